import { chmodSync } from "node:fs";
import { join } from "node:path";
import * as vscode from "vscode";
import { LanguageClient, type LanguageClientOptions, type ServerOptions, TransportKind } from "vscode-languageclient/node";
import { DOCUMENT_SELECTOR, FORMAT_IDS, formatDiff, formatEffectivePolicy, formatReplay, formatSimulation, initializationOptions, resolveServerPath, routeLensCommand, simulateArguments, type Settings } from "./config";

let client: LanguageClient | undefined;

/** The effective-policy documents: read-only, by URI (`permission-lsp-policy:…`). */
const POLICY_SCHEME = "permission-lsp-policy";
const policies = new Map<string, string>();
const policyChanged = new vscode.EventEmitter<vscode.Uri>();

function settings(): Settings {
  const c = vscode.workspace.getConfiguration("permissionLsp");
  return {
    serverPath: c.get("serverPath"),
    targetVersion: c.get("targetVersion"),
    lints: c.get("lints"),
    agent: c.get("agent"),
    home: c.get("home"),
    cwd: c.get("cwd"),
    historyLogs: c.get("history.logs"),
    historyUnusedRules: c.get("history.unusedRules"),
    formats: Object.fromEntries(FORMAT_IDS.map((id) => [id, c.get<Record<string, unknown>>(id)])),
  };
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const output = vscode.window.createOutputChannel("Permission LSP", { log: true });
  const s = settings();
  // A zip may lose the executable bit of the shipped server: give it back.
  try {
    chmodSync(join(context.extensionPath, "server", process.platform === "win32" ? "permission-lsp.exe" : "permission-lsp"), 0o755);
  } catch {
    // No server shipped in this build.
  }
  const command = resolveServerPath(s.serverPath, process.env.PATH, process.platform, context.extensionPath);
  if (!command) {
    void vscode.window.showErrorMessage(
      s.serverPath
        ? `Permission LSP: the server binary "${s.serverPath}" does not exist or is not executable.`
        : "Permission LSP: `permission-lsp` is not on your PATH. Install it (`npm i -g permission-lsp`, `pip install permission-lsp` or `cargo install --path .` in the repository), install the extension's platform build that carries it, or set `permissionLsp.serverPath`.",
    );
    return;
  }
  const serverOptions: ServerOptions = { command, args: ["serve"], transport: TransportKind.stdio };
  const clientOptions: LanguageClientOptions = {
    documentSelector: DOCUMENT_SELECTOR,
    initializationOptions: initializationOptions(s),
    outputChannel: output,
    middleware: {
      // The "Simulate…" and "Effective policy" lenses need the extension (an input box, a document):
      // they run its commands. The client registers the server's own command ids itself.
      provideCodeLenses: async (document, token, next) => {
        const lenses = await next(document, token);
        for (const l of lenses ?? []) if (l.command) l.command = routeLensCommand(l.command);
        return lenses;
      },
      resolveCodeLens: async (lens, token, next) => {
        const l = await next(lens, token);
        if (l?.command) l.command = routeLensCommand(l.command);
        return l;
      },
      // The history lenses run server commands: show what they answer.
      executeCommand: async (command, args, next) => {
        const result = await next(command, args);
        if (command === "permission-lsp.replay" || command === "permission-lsp.diff") {
          output.appendLine(command === "permission-lsp.replay" ? formatReplay(result) : formatDiff(result));
          output.show(true);
        }
        return result;
      },
    },
  };
  client = new LanguageClient("permissionLsp", "Permission LSP", serverOptions, clientOptions);
  await client.start();

  context.subscriptions.push(
    vscode.workspace.registerTextDocumentContentProvider(POLICY_SCHEME, {
      onDidChange: policyChanged.event,
      provideTextDocumentContent: (uri) => policies.get(uri.toString()) ?? "",
    }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration("permissionLsp") && client) {
        void client.sendNotification("workspace/didChangeConfiguration", { settings: initializationOptions(settings()) });
      }
    }),
    // The palette commands and the lenses routed to them (a lens passes `{ uri }`).
    vscode.commands.registerCommand("permissionLsp.simulate", (args?: { uri?: string }) =>
      simulate(output, args?.uri ?? vscode.window.activeTextEditor?.document.uri.toString()),
    ),
    vscode.commands.registerCommand("permissionLsp.effectivePolicy", (args?: { uri?: string }) =>
      effectivePolicy(output, args?.uri ?? vscode.window.activeTextEditor?.document.uri.toString()),
    ),
  );
}

/** The merged rule list of every scope, as `permission-lsp explain --format json` prints it. */
async function effectivePolicy(output: vscode.OutputChannel, uri: string | undefined): Promise<void> {
  if (!client || !uri) {
    void vscode.window.showWarningMessage("Permission LSP: open a permission config first.");
    return;
  }
  const s = settings();
  const args: Record<string, string> = { uri };
  if (s.agent) args.agent = s.agent;
  if (s.home) args.home = s.home;
  let result: unknown;
  try {
    result = await client.sendRequest("workspace/executeCommand", { command: "permission-lsp.effectivePolicy", arguments: [args] });
  } catch (e) {
    void vscode.window.showErrorMessage(`Permission LSP: ${e instanceof Error ? e.message : String(e)}`);
    return;
  }
  const text = formatEffectivePolicy(result);
  output.appendLine(text);
  // A read-only document beside the config, one per config (shown again, it is brought up to date).
  const name = decodeURIComponent(uri.split("/").pop() ?? "config");
  const policyUri = vscode.Uri.from({ scheme: POLICY_SCHEME, path: `/Effective policy (${name})`, query: uri });
  policies.set(policyUri.toString(), text);
  policyChanged.fire(policyUri);
  const doc = await vscode.workspace.openTextDocument(policyUri);
  await vscode.window.showTextDocument(doc, { preview: true, viewColumn: vscode.ViewColumn.Beside });
}

async function simulate(output: vscode.OutputChannel, uri: string | undefined): Promise<void> {
  if (!client || !uri) {
    void vscode.window.showWarningMessage("Permission LSP: open a permission config first.");
    return;
  }
  const commandLine = await vscode.window.showInputBox({
    prompt: "A tool call: a bash command line, or `read PATH`, `mcp SERVER:TOOL`, `skill NAME`",
    placeHolder: "git push --force",
  });
  if (!commandLine) return;
  let result: unknown;
  try {
    result = await client.sendRequest("workspace/executeCommand", {
      command: "permission-lsp.simulateCommandLine",
      arguments: [simulateArguments(uri, commandLine, settings())],
    });
  } catch (e) {
    void vscode.window.showErrorMessage(`Permission LSP: ${e instanceof Error ? e.message : String(e)}`);
    return;
  }
  output.appendLine(formatSimulation(commandLine, result));
  output.show(true);
}

export async function deactivate(): Promise<void> {
  await client?.stop();
}
