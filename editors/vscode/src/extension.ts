import * as vscode from "vscode";
import { LanguageClient, type LanguageClientOptions, type ServerOptions, TransportKind } from "vscode-languageclient/node";
import { DOCUMENT_SELECTOR, FORMAT_IDS, formatDiff, formatReplay, formatSimulation, initializationOptions, resolveServerPath, simulateArguments, type Settings } from "./config";

let client: LanguageClient | undefined;

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
  const command = resolveServerPath(s.serverPath, process.env.PATH);
  if (!command) {
    void vscode.window.showErrorMessage(
      s.serverPath
        ? `Permission LSP: the server binary "${s.serverPath}" does not exist or is not executable.`
        : "Permission LSP: `permission-lsp` is not on your PATH. Install it (`cargo install --path .` in the permission-lsp repository) or set `permissionLsp.serverPath`.",
    );
    return;
  }
  const serverOptions: ServerOptions = { command, args: ["serve"], transport: TransportKind.stdio };
  const clientOptions: LanguageClientOptions = {
    documentSelector: DOCUMENT_SELECTOR,
    initializationOptions: initializationOptions(s),
    outputChannel: output,
    middleware: {
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
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration("permissionLsp") && client) {
        void client.sendNotification("workspace/didChangeConfiguration", { settings: initializationOptions(settings()) });
      }
    }),
    // The "Simulate…" code lens and the palette command both land here.
    vscode.commands.registerCommand("permission-lsp.simulateCommandLine", (args?: { uri?: string }) => simulate(output, args?.uri)),
    vscode.commands.registerCommand("permissionLsp.simulate", () => simulate(output, vscode.window.activeTextEditor?.document.uri.toString())),
    vscode.commands.registerCommand("permissionLsp.effectivePolicy", () => effectivePolicy(output, vscode.window.activeTextEditor?.document.uri.toString())),
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
  const result = await client.sendRequest("workspace/executeCommand", { command: "permission-lsp.effectivePolicy", arguments: [args] });
  output.appendLine(JSON.stringify(result, null, 2));
  output.show(true);
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
  const result = await client.sendRequest("workspace/executeCommand", {
    command: "permission-lsp.simulateCommandLine",
    arguments: [simulateArguments(uri, commandLine, settings())],
  });
  output.appendLine(formatSimulation(commandLine, result));
  output.show(true);
}

export async function deactivate(): Promise<void> {
  await client?.stop();
}
