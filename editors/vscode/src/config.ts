// Pure helpers (no `vscode` import) so they can be unit-tested with node --test.
import { accessSync, constants } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";

export interface Settings {
  serverPath?: string;
  targetVersion?: string;
  lints?: Record<string, string>;
  agent?: string;
  home?: string;
  cwd?: string;
  /** Decision logs to replay (paths or globs), and whether to mark rules they never use. */
  historyLogs?: string[];
  historyUnusedRules?: boolean;
  /** Each format's session options (`permissionLsp.<id>.*`), by format id. */
  formats?: Record<string, Record<string, unknown> | undefined>;
}

/** The formats whose session options are settings (`permissionLsp.<id>.*`). */
export const FORMAT_IDS = ["pi", "claude", "opencode", "codex", "qwen", "gemini"] as const;

type ServerOptions = {
  targetVersion?: string;
  lints: Record<string, string>;
  history?: { logs: string[]; unusedRules: boolean };
  [format: string]: unknown;
};

/** A setting's value is given: not empty, not an empty list or object. */
function given(v: unknown): boolean {
  if (v === undefined || v === null) return false;
  if (typeof v === "string") return v.trim().length > 0;
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === "object") return Object.keys(v as object).length > 0;
  return true;
}

/** Arguments of `permission-lsp.simulateCommandLine`; empty settings are left out. */
export function simulateArguments(uri: string, commandLine: string, s: Settings): Record<string, string> {
  const args: Record<string, string> = { uri, commandLine };
  for (const key of ["agent", "home", "cwd"] as const) {
    const v = s[key]?.trim();
    if (v) args[key] = v;
  }
  return args;
}

/** What the server receives as `initializationOptions`. */
export function initializationOptions(s: Settings): { permissionLsp: ServerOptions } {
  const opts: ServerOptions = { lints: { ...(s.lints ?? {}) } };
  if (s.targetVersion && s.targetVersion.trim()) opts.targetVersion = s.targetVersion.trim();
  const logs = (s.historyLogs ?? []).map((l) => l.trim()).filter((l) => l.length > 0);
  if (logs.length > 0 || s.historyUnusedRules) {
    opts.history = { logs, unusedRules: s.historyUnusedRules === true };
  }
  for (const [id, values] of Object.entries(s.formats ?? {})) {
    const kept = Object.fromEntries(Object.entries(values ?? {}).filter(([, v]) => given(v)));
    if (Object.keys(kept).length > 0) opts[id] = kept;
  }
  return { permissionLsp: opts };
}

function executable(p: string): boolean {
  try {
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The server binary: the configured path (must exist), else the one shipped
 * inside the extension (`server/` of a platform `.vsix`), else
 * `permission-lsp` found on PATH. `undefined` when there is none.
 */
export function resolveServerPath(
  configured: string | undefined,
  envPath: string | undefined,
  platform = process.platform,
  extensionDir?: string,
): string | undefined {
  const name = platform === "win32" ? "permission-lsp.exe" : "permission-lsp";
  if (configured && configured.trim()) {
    const p = configured.trim();
    return isAbsolute(p) && executable(p) ? p : undefined;
  }
  if (extensionDir) {
    const bundled = join(extensionDir, "server", name);
    if (executable(bundled)) return bundled;
  }
  for (const dir of (envPath ?? "").split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    if (executable(candidate)) return candidate;
  }
  return undefined;
}

/** The files the server is attached to. */
export const DOCUMENT_SELECTOR = [
  { scheme: "file", language: "json", pattern: "**/extensions/pi-permission-system/config.json" },
  { scheme: "file", language: "jsonc", pattern: "**/extensions/pi-permission-system/config.json" },
  { scheme: "file", language: "json", pattern: "**/*.json" },
  { scheme: "file", language: "jsonc", pattern: "**/*.json" },
  { scheme: "file", language: "markdown", pattern: "**/.pi/agents/*.md" },
  { scheme: "file", language: "markdown", pattern: "**/.pi/agent/agents/*.md" },
  // OpenCode: opencode.jsonc and agent / mode markdown files.
  { scheme: "file", language: "jsonc", pattern: "**/opencode.jsonc" },
  { scheme: "file", language: "json", pattern: "**/opencode.jsonc" },
  { scheme: "file", language: "markdown", pattern: "**/{.opencode,opencode}/{agent,agents,mode,modes}/**/*.md" },
  // Codex CLI: rules files (Starlark) and config.toml.
  { scheme: "file", language: "starlark", pattern: "**/{.codex,codex}/rules/*.rules" },
  { scheme: "file", language: "toml", pattern: "**/{.codex,codex}/config.toml" },
  // Qwen Code: settings.json (JSON with comments; matched by **/*.json above).
];

/** One line of the simulation result for the output panel. */
export function formatSimulation(commandLine: string, r: any): string {
  const lines = [`${String(r?.decision ?? "?").toUpperCase()}  ${commandLine}`];
  if (r?.rule) {
    const at = r.rule.file ? ` (${r.rule.file}:${r.rule.line}:${r.rule.column})` : "";
    lines.push(`  decided by: ${r.rule.surface} › "${r.rule.pattern}" [${r.rule.scope}]${at}`);
  }
  if (r?.reason) lines.push(`  reason: ${r.reason}`);
  if (r?.agent_message) lines.push(`  agent sees: ${r.agent_message}`);
  if (r?.tool_hidden) lines.push("  note: the tool's catch-all is deny, so the agent never sees this tool");
  for (const issue of r?.config_issues ?? []) lines.push(`  config issue: ${issue}`);
  return lines.join("\n");
}

function callText(tool: string, input: any): string {
  return typeof input?.command === "string" ? `${tool} \`${input.command}\`` : `${tool} ${JSON.stringify(input)}`;
}

/** The result of `permission-lsp.replay` (the history code lens) for the output channel. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function formatReplay(r: any): string {
  const lines = [`History: ${r?.headline ?? "?"}`];
  for (const c of r?.changes ?? []) {
    const by = c.rule ? ` now by ${c.rule.surface} › "${c.rule.pattern}"` : " now by the default";
    const answer = c.answer ? `; answered ${c.answer} then` : "";
    lines.push(`  ${c.file}:${c.line}: ${c.recorded} -> ${c.now}  ${callText(c.tool, c.input)}${by}${answer}`);
  }
  return lines.join("\n");
}

/** The result of `permission-lsp.diff` (the code lens against HEAD) for the output channel. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function formatDiff(r: any): string {
  const lines = [
    `Against ${r?.base ?? "HEAD"}: ${r?.newly_allowed ?? 0} newly allowed, ${r?.newly_asked ?? 0} newly asked, ${r?.newly_denied ?? 0} newly denied`,
  ];
  for (const d of r?.differences ?? []) {
    const kind = d.after === "allow" ? "newly allowed" : d.after === "ask" ? "newly asked" : "newly denied";
    const now = d.after_rule ? `"${d.after_rule.pattern}"` : "the default";
    const was = d.before_rule ? `"${d.before_rule.pattern}"` : "the default";
    lines.push(`  ${kind}: ${callText(d.tool, d.input)} by ${now}; was ${d.before} by ${was}`);
  }
  return lines.join("\n");
}

/** The effective policy (the server's `permission-lsp.effectivePolicy` answer) as a readable document. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function formatEffectivePolicy(r: any): string {
  if (typeof r?.text === "string" && r.text.length > 0) return r.text;
  // An older server: the rules from the report itself.
  const lines = [`Effective policy of ${r?.runtime ?? "?"}`, ""];
  for (const f of r?.files ?? []) lines.push(`  ${String(f.scope).padEnd(14)} ${f.present ? f.path : "(none)"}`);
  lines.push("", "Rules in the order the runtime weighs them:");
  for (const x of r?.rules ?? []) lines.push(`  ${x.index}  ${x.surface}  ${x.pattern}  ${x.action}`);
  return lines.join("\n");
}

/** Server commands a code lens runs, and the extension's command that runs each instead (one that asks for
 * what the lens needs, or shows the answer). */
export const LENS_COMMANDS: Record<string, string> = {
  "permission-lsp.simulateCommandLine": "permissionLsp.simulate",
  "permission-lsp.effectivePolicy": "permissionLsp.effectivePolicy",
};

/** A code lens's command, routed to the extension's own command where it has one (keeping its arguments). */
export function routeLensCommand<T extends { command: string }>(c: T): T {
  const ours = LENS_COMMANDS[c.command];
  return ours ? { ...c, command: ours } : c;
}
