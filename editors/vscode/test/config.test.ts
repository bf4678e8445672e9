import { strict as assert } from "node:assert";
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { DOCUMENT_SELECTOR, formatDiff, formatEffectivePolicy, formatReplay, formatSimulation, initializationOptions, resolveServerPath, routeLensCommand, simulateArguments } from "../src/config";

test("settings become initializationOptions", () => {
  assert.deepEqual(initializationOptions({ targetVersion: " 25.1.0 ", lints: { PL010: "off" } }), {
    permissionLsp: { targetVersion: "25.1.0", lints: { PL010: "off" } },
  });
  assert.deepEqual(initializationOptions({}), { permissionLsp: { lints: {} } });
  assert.deepEqual(initializationOptions({ historyLogs: [" logs/*.jsonl ", ""], historyUnusedRules: true }), {
    permissionLsp: { lints: {}, history: { logs: ["logs/*.jsonl"], unusedRules: true } },
  });
  // Each format's session options go under its id; empty ones are left out.
  assert.deepEqual(
    initializationOptions({
      formats: { claude: { permissionMode: "plan", allowedTools: [], env: {} }, pi: { agentDir: "" }, opencode: undefined },
    }),
    { permissionLsp: { lints: {}, claude: { permissionMode: "plan" } } },
  );
});

test("the server shipped in the extension comes before PATH, after the setting", () => {
  const ext = mkdtempSync(join(tmpdir(), "pl-ext-bundled-"));
  mkdirSync(join(ext, "server"));
  const bundled = join(ext, "server", "permission-lsp");
  writeFileSync(bundled, "#!/bin/sh\n");
  chmodSync(bundled, 0o755);
  const onPath = mkdtempSync(join(tmpdir(), "pl-ext-path-"));
  writeFileSync(join(onPath, "permission-lsp"), "#!/bin/sh\n");
  chmodSync(join(onPath, "permission-lsp"), 0o755);
  assert.equal(resolveServerPath(undefined, onPath, "linux", ext), bundled);
  assert.equal(resolveServerPath(join(onPath, "permission-lsp"), onPath, "linux", ext), join(onPath, "permission-lsp"));
  assert.equal(resolveServerPath(undefined, onPath, "linux", join(ext, "nothing")), join(onPath, "permission-lsp"));
});

test("the server is found on PATH or at the configured path", () => {
  const dir = mkdtempSync(join(tmpdir(), "pl-ext-"));
  const bin = join(dir, "permission-lsp");
  writeFileSync(bin, "#!/bin/sh\n");
  chmodSync(bin, 0o755);
  assert.equal(resolveServerPath(undefined, `/nonexistent:${dir}`, "linux"), bin);
  assert.equal(resolveServerPath(bin, "", "linux"), bin);
  assert.equal(resolveServerPath("/nope/permission-lsp", dir, "linux"), undefined);
  assert.equal(resolveServerPath("relative/path", dir, "linux"), undefined);
  assert.equal(resolveServerPath(undefined, "/nonexistent", "linux"), undefined);
});

test("a simulation result reads as one block", () => {
  const text = formatSimulation("npm install", {
    decision: "deny",
    rule: { surface: "bash", pattern: "npm *", scope: "project", file: "/p/config.json", line: 5, column: 7 },
    reason: "Use pnpm",
    agent_message: "[pi-permission-system] is not permitted to run 'bash' command 'npm install' (matched 'npm *'). Reason: Use pnpm.",
    config_issues: [],
  });
  assert.match(text, /^DENY  npm install\n  decided by: bash › "npm \*" \[project\] \(\/p\/config.json:5:7\)\n  reason: Use pnpm/);
});

test("simulation arguments carry the scope settings that are set", () => {
  assert.deepEqual(simulateArguments("file:///p/config.json", "git push", { agent: "reviewer", home: " ", cwd: "/w/p" }), {
    uri: "file:///p/config.json",
    commandLine: "git push",
    agent: "reviewer",
    cwd: "/w/p",
  });
});

test("the document selector covers OpenCode configs and agent files", () => {
  const patterns = DOCUMENT_SELECTOR.map((d) => d.pattern);
  assert.ok(patterns.includes("**/opencode.jsonc"));
  assert.ok(patterns.some((p) => p.includes(".opencode") && p.endsWith("*.md")));
});

test("the document selector covers Codex rules files and config.toml", () => {
  const codex = DOCUMENT_SELECTOR.filter((d) => d.pattern.includes("codex"));
  assert.ok(codex.some((d) => d.language === "starlark" && d.pattern.endsWith("rules/*.rules")));
  assert.ok(codex.some((d) => d.language === "toml" && d.pattern.endsWith("config.toml")));
});

test("the history lenses' answers are printed", () => {
  assert.equal(
    formatReplay({
      headline: "5 calls; 1 changes: 1 newly allowed",
      changes: [{ file: "r.jsonl", line: 4, recorded: "ask", now: "allow", tool: "bash", input: { command: "npm install" }, answer: "approved", rule: { surface: "bash", pattern: "npm *" } }],
    }),
    'History: 5 calls; 1 changes: 1 newly allowed\n  r.jsonl:4: ask -> allow  bash `npm install` now by bash › "npm *"; answered approved then',
  );
  assert.equal(
    formatDiff({
      base: "HEAD", newly_allowed: 1, newly_asked: 0, newly_denied: 0,
      differences: [{ tool: "bash", input: { command: "npm" }, before: "ask", after: "allow", before_rule: { pattern: "*" }, after_rule: { pattern: "npm *" } }],
    }),
    'Against HEAD: 1 newly allowed, 0 newly asked, 0 newly denied\n  newly allowed: bash `npm` by "npm *"; was ask by "*"',
  );
});

test("the lenses that need the extension run its commands, with their arguments", () => {
  const args = [{ uri: "file:///p/.claude/settings.json" }];
  assert.deepEqual(routeLensCommand({ title: "▶ Simulate", command: "permission-lsp.simulateCommandLine", arguments: args }), {
    title: "▶ Simulate",
    command: "permissionLsp.simulate",
    arguments: args,
  });
  assert.equal(routeLensCommand({ command: "permission-lsp.effectivePolicy" }).command, "permissionLsp.effectivePolicy");
  // The history lenses stay the server's (the client forwards them).
  assert.equal(routeLensCommand({ command: "permission-lsp.replay" }).command, "permission-lsp.replay");
});

test("the effective policy reads as the server's text, else as its rules", () => {
  assert.equal(formatEffectivePolicy({ text: "Effective policy of Claude Code\n" }), "Effective policy of Claude Code\n");
  const t = formatEffectivePolicy({
    runtime: "OpenCode 1.18.33",
    files: [{ scope: "project", path: "/p/opencode.json", present: true }],
    rules: [{ index: 0, surface: "bash", pattern: "*", action: "ask" }],
  });
  assert.match(t, /Effective policy of OpenCode 1\.18\.33/);
  assert.match(t, /0  bash  \*  ask/);
});
