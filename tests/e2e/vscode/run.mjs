#!/usr/bin/env node
// permission-lsp's copy of the project's VS Code end-to-end harness (from the shared editors-e2e
// folder), extended: an OpenCode agent file, a workspace setting that must reach the server, and
// the effective policy opening as a document. Run by .ci/run; see README.md beside it.
// End-to-end check of the permission-lsp VS Code extension in a real VS Code (code-server's
// web workbench) driven by headless chromium. See README.md.
//
//   node run.mjs --extension <checkout>/editors/vscode --server <permission-lsp binary>
//   node run.mjs --vsix permission-lsp.vsix --server <binary> [--tools DIR] [--out DIR] [--keep] [--trace]
//   --patch FILE (with --extension): apply a diff (paths from the repository root) to the copy first
//
// Exit status: 0 every check passed, 1 a check failed, 2 the harness could not run.
import { spawn, spawnSync } from "node:child_process";
import { appendFileSync, copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { delimiter, dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const SCRIPT = fileURLToPath(import.meta.url);

// ---------- arguments ----------
function parseArgs(argv) {
  const a = { tools: "/tmp/vsc-e2e", out: "/tmp/vsc-e2e-out", keep: false, netns: true, timeout: 300 };
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i];
    const v = () => {
      if (i + 1 >= argv.length) die(`${k} needs a value`);
      return argv[++i];
    };
    if (k === "--tools") a.tools = resolve(v());
    else if (k === "--vsix") a.vsix = resolve(v());
    else if (k === "--extension") a.extension = resolve(v());
    else if (k === "--server") a.server = resolve(v());
    else if (k === "--out") a.out = resolve(v());
    else if (k === "--scratch") a.scratch = resolve(v());
    else if (k === "--timeout") a.timeout = Number(v());
    else if (k === "--keep") a.keep = true;
    else if (k === "--trace") a.trace = true;
    else if (k === "--patch") a.patch = resolve(v());
    else if (k === "--no-netns") a.netns = false;
    else if (k === "--bundled") a.bundled = true;
    else if (k === "--inside-netns") a.insideNetns = true;
    else if (k === "-h" || k === "--help") {
      console.log(readFileSync(SCRIPT, "utf8").split("\n").slice(1, 9).join("\n"));
      process.exit(0);
    } else die(`unknown argument ${k}`);
  }
  return a;
}

function die(msg) {
  console.error(`vscode-e2e: ${msg}`);
  process.exit(2);
}

function which(name) {
  for (const d of (process.env.PATH ?? "").split(delimiter)) {
    const p = join(d, name);
    if (d && existsSync(p)) return p;
  }
  return undefined;
}

const args = parseArgs(process.argv.slice(2));
const T0 = Number(process.env.VSC_E2E_T0) || Date.now();
process.env.VSC_E2E_T0 = String(T0);
const secs = () => ((Date.now() - T0) / 1000).toFixed(1);
const log = (m) => console.log(`[${secs()}s] ${m}`);

const tools = {
  node: join(args.tools, "node", "bin", "node"),
  codeServer: join(args.tools, "node_modules", "code-server", "out", "node", "entry.js"),
  playwright: join(args.tools, "node_modules", "playwright-core", "index.mjs"),
  chromium: process.env.CHROMIUM ?? which("chromium") ?? "chromium (not on PATH; set CHROMIUM)",
};
for (const [k, p] of Object.entries(tools)) if (!existsSync(p)) die(`missing ${k} at ${p}: run setup.sh ${args.tools}`);
// --bundled: the .vsix carries the server (a platform build); no serverPath is set.
if (!args.bundled && !args.server) args.server = which("permission-lsp");
if (!args.bundled && (!args.server || !existsSync(args.server))) die("no server binary: pass --server PATH (or put permission-lsp on PATH), or --bundled");
if (!args.vsix && !args.extension) die("pass --vsix FILE or --extension DIR (editors/vscode of a checkout)");

// ---------- phase 1 (outside the network namespace): scratch dir, .vsix ----------
if (!args.insideNetns) {
  args.scratch = mkdtempSync("/tmp/vsc-e2e-run-");
  rmSync(args.out, { recursive: true, force: true });
  mkdirSync(args.out, { recursive: true });
  if (!args.vsix) args.vsix = buildVsix(args.extension, join(args.scratch, "src"));
  const pass = ["--tools", args.tools, "--vsix", args.vsix, "--out", args.out, "--scratch", args.scratch, "--timeout", String(args.timeout)];
  if (args.bundled) pass.push("--bundled");
  else pass.push("--server", args.server);
  if (args.keep) pass.push("--keep");
  if (args.trace) pass.push("--trace");
  let status;
  const canNetns = args.netns && process.getuid?.() === 0 && which("unshare") && which("ip");
  if (canNetns) {
    // A fresh network namespace with only loopback: code-server and chromium cannot reach
    // anything else (the extension gallery requests fail at once instead of hanging).
    log("entering a network namespace (unshare -n, loopback only)");
    const r = spawnSync("unshare", ["-n", "--", "sh", "-c", 'ip link set lo up && exec "$@"', "sh", process.execPath, SCRIPT, ...pass, "--inside-netns"], { stdio: "inherit" });
    status = r.status ?? 2;
  } else {
    if (args.netns) log("no network namespace (needs root, unshare and ip): running on the host's loopback");
    const r = spawnSync(process.execPath, [SCRIPT, ...pass, "--inside-netns"], { stdio: "inherit" });
    status = r.status ?? 2;
  }
  if (!args.keep) rmSync(args.scratch, { recursive: true, force: true });
  else log(`scratch kept: ${args.scratch}`);
  process.exit(status);
}

function buildVsix(extDir, srcRoot) {
  // The extension's compile step copies ../../schemas/pi-permission-system.schema.json.
  const repo = resolve(extDir, "..", "..");
  const dst = join(srcRoot, "editors", "vscode");
  mkdirSync(dirname(dst), { recursive: true });
  cpSync(extDir, dst, { recursive: true, filter: (p) => !/[\\/](node_modules|out)$/.test(p) && !p.endsWith(".vsix") });
  if (existsSync(join(repo, "schemas"))) cpSync(join(repo, "schemas"), join(srcRoot, "schemas"), { recursive: true });
  if (args.patch) {
    const r = spawnSync("git", ["apply", "--verbose", args.patch], { cwd: srcRoot, encoding: "utf8" });
    if (r.status !== 0) die(`git apply ${args.patch} failed:\n${r.stdout}${r.stderr}`);
    log(`applied ${args.patch} to the copy`);
  }
  log(`building the .vsix from a copy of ${extDir} (npm ci && npm run package)`);
  for (const cmd of [["ci", "--no-audit", "--no-fund"], ["run", "package"]]) {
    const r = spawnSync("npm", cmd, { cwd: dst, encoding: "utf8" });
    if (r.status !== 0) die(`npm ${cmd.join(" ")} failed:\n${(r.stdout + r.stderr).slice(-3000)}`);
  }
  const vsix = join(dst, "permission-lsp.vsix");
  if (!existsSync(vsix)) die("npm run package produced no permission-lsp.vsix");
  return vsix;
}

// ---------- phase 2 (inside): code-server + chromium ----------
const S = args.scratch;
const dirs = { home: join(S, "home"), ud: join(S, "user-data"), ext: join(S, "extensions"), ws: join(S, "ws") };
for (const d of Object.values(dirs)) mkdirSync(d, { recursive: true });
const screensDir = join(args.out, "screens");
mkdirSync(screensDir, { recursive: true });
const childEnv = {
  ...process.env,
  HOME: dirs.home,
  XDG_CONFIG_HOME: join(dirs.home, ".config"),
  XDG_DATA_HOME: join(dirs.home, ".local", "share"),
  XDG_CACHE_HOME: join(dirs.home, ".cache"),
  PATH: `${dirname(tools.node)}${delimiter}${process.env.PATH}`,
};

const checks = [];
function check(name, ok, detail = "") {
  checks.push({ name, ok: !!ok, detail: String(detail).slice(0, 2000) });
  log(`${ok ? "PASS" : "FAIL"} ${name}${detail ? ` — ${String(detail).replace(/\s+/g, " ").slice(0, 300)}` : ""}`);
}
const observations = {};

let codeServer;
let browser;
let cleaning = false;
async function cleanup() {
  if (cleaning) return;
  cleaning = true;
  try {
    await browser?.close();
  } catch {}
  if (codeServer?.pid) {
    // code-server, its extension host and the language server share this process group.
    try {
      process.kill(-codeServer.pid, "SIGTERM");
    } catch {}
    for (let i = 0; i < 50; i++) {
      try {
        process.kill(-codeServer.pid, 0);
      } catch {
        break;
      }
      await sleep(100);
    }
    try {
      process.kill(-codeServer.pid, "SIGKILL");
    } catch {}
  }
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, async () => {
  await cleanup();
  process.exit(2);
});
const watchdog = setTimeout(async () => {
  log(`timeout after ${args.timeout}s`);
  check("the run finished in time", false, `${args.timeout}s`);
  await finish();
}, args.timeout * 1000);

function writeFixtures(ws) {
  const f = (rel, text) => {
    mkdirSync(dirname(join(ws, rel)), { recursive: true });
    writeFileSync(join(ws, rel), text);
  };
  // Claude Code, shared settings: a trailing comma (Claude Code drops the whole file), a rule
  // with a trailing space, an allow rule that a deny shadows.
  f(".claude/settings.json", `{
  "permissions": {
    "allow": [
      "Bash(npm run test:*) ",
      "Bash(rm -rf *)",
    ],
    "deny": ["Bash(rm *)"]
  }
}
`);
  // The same rules in valid JSON, so the rule-level problems show too.
  f(".claude/settings.local.json", `{
  "permissions": {
    "allow": [
      "Bash(npm run test:*) ",
      "Bash(rm -rf *)"
    ],
    "deny": ["Bash(rm *)"]
  }
}
`);
  // pi-permission-system: the legacy top-level \`bash\` key (20.7.3 drops the file).
  f(".pi/extensions/pi-permission-system/config.json", `{
  "bash": {
    "*": "deny",
    "git *": "allow"
  }
}
`);
  // OpenCode agent file: the frontmatter's rules, last match wins there too.
  f(".opencode/agent/review.md", `---
description: Reviews code
permission:
  bash:
    "git push *": deny
    "*": allow
    "git log *": deny
---
Review the code.
`);
  // A workspace setting that must reach the server: the project counts as trusted, so
  // CC017 (untrusted project: allow rules ignored) must not show.
  f(".vscode/settings.json", `{ "permissionLsp.claude.trusted": true }
`);
  // OpenCode: last match wins, so the catch-all after the specific deny overrides it.
  f("opencode.json", `{
  "permission": {
    "bash": {
      "git push *": "deny",
      "*": "allow"
    },
    "edit": "ask"
  }
}
`);
}

const EXPECT = {
  ".claude/settings.json": ["CC001"],
  ".claude/settings.local.json": ["CC005", "CC014"],
  ".pi/extensions/pi-permission-system/config.json": ["PL111"],
  "opencode.json": ["OC005"],
  ".opencode/agent/review.md": ["OC005"],
};

function freePort() {
  return new Promise((res, rej) => {
    const s = createServer();
    s.on("error", rej);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => res(port));
    });
  });
}

function filesNamed(root, name, acc = []) {
  if (!existsSync(root)) return acc;
  for (const e of readdirSync(root, { withFileTypes: true })) {
    const p = join(root, e.name);
    if (e.isDirectory()) filesNamed(p, name, acc);
    else if (e.name === name) acc.push(p);
  }
  return acc;
}
const readAll = (paths) => paths.map((p) => readFileSync(p, "utf8")).join("\n");
const exthostLog = () => readAll(filesNamed(join(dirs.ud, "logs"), "remoteexthost.log"));
const channelLog = () => readAll(filesNamed(join(dirs.ud, "logs"), "Permission LSP.log"));

async function waitFor(fn, ms, every = 250) {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) return v;
    await sleep(every);
  }
}

let finished = false;
async function finish() {
  if (finished) return;
  finished = true;
  clearTimeout(watchdog);
  await cleanup();
  // Keep the logs VS Code wrote next to the screenshots.
  const logsOut = join(args.out, "logs");
  mkdirSync(logsOut, { recursive: true });
  for (const name of ["remoteexthost.log", "Permission LSP.log", "remoteagent.log"]) {
    filesNamed(join(dirs.ud, "logs"), name).forEach((p, i) => copyFileSync(p, join(logsOut, `${i}-${name.replace(/ /g, "_")}`)));
  }
  if (existsSync(join(S, "code-server.log"))) copyFileSync(join(S, "code-server.log"), join(logsOut, "code-server.log"));
  const passed = checks.filter((c) => c.ok).length;
  const failed = checks.length - passed;
  writeFileSync(join(args.out, "report.json"), JSON.stringify({ seconds: Number(secs()), passed, failed, checks, observations }, null, 2));
  console.log(`\nreport: ${join(args.out, "report.json")}  screenshots: ${screensDir}`);
  for (const c of checks.filter((c) => !c.ok)) console.log(`  failed: ${c.name}: ${c.detail.replace(/\s+/g, " ").slice(0, 400)}`);
  console.log(`e2e: ${passed} passed, ${failed} failed`);
  process.exit(failed > 0 ? 1 : 0);
}

async function main() {
  writeFixtures(dirs.ws);
  mkdirSync(join(dirs.ud, "User"), { recursive: true });
  writeFileSync(join(dirs.ud, "User", "settings.json"), JSON.stringify({
    ...(args.bundled ? {} : { "permissionLsp.serverPath": args.server }),
    "security.workspace.trust.enabled": false,
    "workbench.startupEditor": "none",
    "workbench.tips.enabled": false,
    "workbench.secondarySideBar.defaultVisibility": "hidden",
    "workbench.colorTheme": "Default Light Modern",
    "workbench.enableExperiments": false,
    "telemetry.telemetryLevel": "off",
    "extensions.autoCheckUpdates": false,
    "extensions.autoUpdate": false,
    "extensions.ignoreRecommendations": true,
    "update.mode": "none",
    "chat.disableAIFeatures": true,
    "json.schemaDownload.enable": false,
    "editor.minimap.enabled": false,
    "editor.hover.above": false, // room for the whole hover in the screenshot
    "window.commandCenter": false,
    // --trace: the LSP traffic goes to the "Permission LSP" channel (and its log file).
    ...(args.trace ? { "permissionLsp.trace.server": "verbose" } : {}),
  }, null, 2));
  const port = await freePort();
  const config = join(S, "config.yaml");
  writeFileSync(config, `bind-addr: 127.0.0.1:${port}\nauth: none\ncert: false\n`);
  const csArgs = ["--config", config, "--user-data-dir", dirs.ud, "--extensions-dir", dirs.ext];

  // Install the .vsix the way a user would.
  const inst = spawnSync(tools.node, [tools.codeServer, ...csArgs, "--install-extension", args.vsix, "--force"], { env: childEnv, encoding: "utf8" });
  const instOut = (inst.stdout ?? "") + (inst.stderr ?? "");
  check("the .vsix installs (code-server --install-extension)", inst.status === 0 && /successfully installed/i.test(instOut), instOut.trim().split("\n").pop());
  const version = (spawnSync(tools.node, [tools.codeServer, "--config", config, "--version"], { env: childEnv, encoding: "utf8" }).stdout.match(/^\d+\.\d+\.\d+.*$/m) ?? ["?"])[0];
  observations.codeServer = version;

  log(`starting code-server on 127.0.0.1:${port} (${version})`);
  const csLog = join(S, "code-server.log");
  writeFileSync(csLog, "");
  codeServer = spawn(tools.node, [tools.codeServer, ...csArgs, "--disable-telemetry", "--disable-update-check", "--disable-workspace-trust", "--ignore-last-opened", dirs.ws], {
    env: childEnv,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  codeServer.stdout.on("data", (d) => appendFileSync(csLog, d));
  codeServer.stderr.on("data", (d) => appendFileSync(csLog, d));
  const base = `http://127.0.0.1:${port}`;
  const up = await waitFor(async () => {
    try {
      return (await fetch(`${base}/healthz`)).ok;
    } catch {
      return false;
    }
  }, 60000);
  check("code-server serves on loopback", up, up ? base : readFileSync(csLog, "utf8").slice(-1500));
  if (!up) return;

  const { chromium } = await import(pathToFileURL(tools.playwright).href);
  browser = await chromium.launch({
    executablePath: tools.chromium,
    args: ["--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--no-first-run"],
    env: childEnv,
  });
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const consoleErrors = [];
  page.on("console", (m) => {
    if (/permission/i.test(m.text())) consoleErrors.push(`${m.type()}: ${m.text().slice(0, 500)}`);
  });
  let shot = 0;
  const screenshot = async (name) => {
    const p = join(screensDir, `${String(++shot).padStart(2, "0")}-${name}.png`);
    await page.screenshot({ path: p });
    return p;
  };

  // ----- helpers that act as a user would -----
  const visibleText = (sel) => page.$$eval(sel, (els) => els.filter((e) => e.offsetParent !== null || getComputedStyle(e).position === "fixed").map((e) => e.innerText));
  const toasts = () => visibleText(".notification-toast");
  const dialogs = () => visibleText(".monaco-dialog-box");
  const quickInputOpen = async () => (await visibleText(".quick-input-widget")).join("\n");
  async function dismiss() {
    for (let i = 0; i < 3; i++) {
      if ((await dialogs()).length) await page.keyboard.press("Enter");
      await page.keyboard.press("Escape");
      await sleep(150);
    }
  }
  async function palette(title) {
    await page.keyboard.press("F1");
    await page.waitForSelector(".quick-input-widget input", { state: "visible", timeout: 10000 });
    await page.keyboard.type(title);
    const row = page.locator(".quick-input-list .monaco-list-row").filter({ hasText: title }).first();
    await row.waitFor({ state: "visible", timeout: 10000 });
    await row.click();
    await sleep(300);
  }
  async function paletteEntries(prefix) {
    await page.keyboard.press("F1");
    await page.waitForSelector(".quick-input-widget input", { state: "visible", timeout: 10000 });
    await page.keyboard.type(prefix);
    await sleep(1200);
    const rows = await page.$$eval(".quick-input-list .monaco-list-row", (els) => els.map((e) => e.getAttribute("aria-label") ?? e.innerText));
    return rows;
  }
  async function openFile(rel) {
    const base = rel.split("/").pop();
    for (let attempt = 0; attempt < 2; attempt++) {
      await page.keyboard.press("Control+P");
      await page.waitForSelector(".quick-input-widget input", { state: "visible", timeout: 10000 });
      await page.keyboard.type(rel);
      await sleep(1200);
      await page.keyboard.press("Enter");
      const ok = await waitFor(async () => (await page.title()).startsWith(`${base} `), 5000);
      if (ok) {
        await sleep(300);
        return true;
      }
      await dismiss();
    }
    return false;
  }
  async function gotoLine(lc) {
    await page.keyboard.press("Control+G");
    await page.waitForSelector(".quick-input-widget input", { state: "visible", timeout: 10000 });
    await page.keyboard.type(lc);
    await page.keyboard.press("Enter");
    await sleep(300);
  }
  // The editor's hover (not the workbench's tab / explorer tooltips): its text, and whether a
  // hover provider's part (markdown) is in it yet; the problems part shows first, the
  // providers' parts a moment later. textContent, not innerText: a hover taller than the room
  // above the line scrolls, and innerText leaves the scrolled-away rows out.
  const editorHover = () => page.$$eval(".monaco-hover", (els) => {
    const vis = els.filter((e) => e.offsetParent !== null && !e.closest(".workbench-hover-container, .workbench-hover"));
    const text = vis.map((e) => { const rows = [...e.querySelectorAll(".hover-row")]; return rows.length ? rows.map((r) => r.textContent.trim()).join("\n") : e.textContent; }).join("\n").trim();
    return { text, providers: vis.reduce((n, e) => n + e.querySelectorAll(".markdown-hover").length, 0) };
  });
  async function hoverAt(lc, ms = 8000) {
    await page.mouse.move(5, 895); // park the pointer where it shows no tooltip
    await gotoLine(lc);
    const t0 = Date.now();
    await page.keyboard.press("Control+K");
    await page.keyboard.press("Control+I");
    // Wait for a provider's part, then for the text to settle.
    let last = { text: "", providers: 0 };
    let since = Date.now();
    await waitFor(async () => {
      const h = await editorHover();
      if (h.text !== last.text) {
        last = h;
        since = Date.now();
      }
      return h.providers > 0 && Date.now() - since > 700;
    }, ms);
    return { text: last.text, providers: last.providers, ms: since - t0 };
  }
  const lensTexts = async () => (await visibleText(".codelens-decoration")).map((t) => t.replace(/\s*\n\s*\|\s*\n\s*/g, " | ").trim());
  const markerRows = () => page.$$eval(".markers-panel .monaco-list-row", (els) => els.map((e) => ({ label: e.getAttribute("aria-label") ?? "", text: e.innerText })));
  async function problems() {
    // file rows ("N problems in file F of folder D") start a group; marker rows carry "source | CODE | [Ln, Col]".
    const out = {};
    let file;
    for (const r of await markerRows()) {
      const m = r.label.match(/problems? in file (.+?) of folder (.+)$/);
      if (m) {
        file = `${m[2]}/${m[1]}`;
        out[file] ??= [];
        continue;
      }
      const code = r.text.match(/permission-lsp\s*\|?\s*([A-Z]{2,3}\d{3})/) || r.text.match(/permission-lsp\(([A-Z]{2,3}\d{3})\)/);
      if (file && code) out[file].push(code[1]);
    }
    return out;
  }
  const codesFor = (probs, rel) => Object.entries(probs).filter(([k]) => `/${k}`.endsWith(`/${rel}`)).flatMap(([, v]) => v);
  const channelGrows = async (before, re, ms = 8000) => waitFor(async () => {
    const now = channelLog();
    const added = now.slice(before.length);
    return re.test(added) ? added : "";
  }, ms);

  // ----- the workbench -----
  await page.goto(`${base}/?folder=${encodeURIComponent(dirs.ws)}`);
  const wb = await waitFor(async () => !!(await page.$(".monaco-workbench .part.editor")), 60000);
  check("the VS Code workbench loads in chromium", wb);
  if (!wb) return;
  await sleep(2500);

  // ----- open every config, the way a user does (Quick Open) -----
  for (const rel of Object.keys(EXPECT)) {
    const ok = await openFile(rel);
    if (!ok) check(`Quick Open opens ${rel}`, false, `window title: ${await page.title()}`);
  }
  // Activation: the extension host log.
  const act = await waitFor(() => /_doActivateExtension permission-lsp\.permission-lsp/.test(exthostLog()), 15000);
  await sleep(1500);
  const xl = exthostLog();
  const actErr = xl.match(/Activating extension permission-lsp\.permission-lsp failed[^\n]*\n[^\n]*\n[^\n]*\n[^\n]*\n[^\n]*/);
  observations.activation = act ? (xl.match(/_doActivateExtension permission-lsp\.permission-lsp[^\n]*/) ?? [""])[0] : "never activated";
  check("the extension activates without an error (extension host log)", act && !actErr, actErr ? actErr[0] : observations.activation);
  check("the language server starts (\"Permission LSP\" output channel)", await waitFor(() => /ready/.test(channelLog()), 10000), channelLog().trim().split("\n")[0] ?? "no channel log");

  // ----- Problems panel -----
  await page.keyboard.press("Control+Shift+M");
  await sleep(500);
  await palette("View: Toggle Maximized Panel").catch(() => {});
  const want = Object.entries(EXPECT).flatMap(([rel, codes]) => codes.map((c) => [rel, c]));
  let probs = {};
  await waitFor(async () => {
    probs = await problems();
    return want.every(([rel, c]) => codesFor(probs, rel).includes(c));
  }, 30000, 500);
  observations.problems = probs;
  for (const [rel, codes] of Object.entries(EXPECT)) {
    const got = codesFor(probs, rel);
    check(`Problems panel: ${rel} shows ${codes.join(", ")}`, codes.every((c) => got.includes(c)), `got [${got.join(", ")}]`);
  }
  const local = codesFor(probs, ".claude/settings.local.json");
  check("a setting reaches the server (permissionLsp.claude.trusted: no CC017)", local.length > 0 && !local.includes("CC017"), `got [${local.join(", ")}]`);
  await screenshot("problems");
  await palette("View: Toggle Maximized Panel").catch(() => {});
  await palette("View: Toggle Panel Visibility").catch(() => {});
  await dismiss();

  // ----- hover at a rule -----
  await openFile(".claude/settings.local.json");
  const hover = await hoverAt("5:10");
  observations.hoverClaude = hover;
  // The server's part reads "allow rule Bash(rm -rf *) — Claude Code …", then an example call.
  check("hover at `Bash(rm -rf *)` explains the rule and the deny that wins", /allow rule\s*Bash\(rm -rf \*\)/.test(hover.text) && /→\s*deny by\s*Bash\(rm \*\)/.test(hover.text), `${hover.ms} ms: ${hover.text}`);
  await screenshot("hover");
  await dismiss();
  await openFile("opencode.json");
  observations.hoverOpencode = await hoverAt("4:10");
  check("hover at an OpenCode rule shows the server's part", observations.hoverOpencode.providers > 0 && /git push/.test(observations.hoverOpencode.text), `${observations.hoverOpencode.ms} ms: ${observations.hoverOpencode.text}`);
  await dismiss();
  await openFile(".pi/extensions/pi-permission-system/config.json");
  observations.hoverPi = await hoverAt("4:6", 3000);
  observations.lensesPi = await lensTexts();
  await dismiss();

  // ----- code lenses -----
  await openFile(".claude/settings.local.json");
  const lenses = (await waitFor(async () => {
    const l = await lensTexts();
    return l.length ? l : null;
  }, 10000)) ?? [];
  observations.lensesClaude = lenses;
  check("code lenses \"Simulate a tool call…\" and \"Effective policy\" show", lenses.some((l) => /Simulate a tool call/.test(l)) && lenses.some((l) => /Effective policy/.test(l)), JSON.stringify(lenses));
  await openFile("opencode.json");
  observations.lensesOpencode = await waitFor(async () => {
    const l = await lensTexts();
    return l.length ? l : null;
  }, 5000);

  // ----- command palette -----
  await openFile(".claude/settings.local.json");
  const entries = await paletteEntries("Permission LSP");
  observations.palette = entries;
  check("the command palette lists the extension's commands", entries.some((e) => /Permission LSP: Simulate tool call/.test(e)) && entries.some((e) => /Permission LSP: Show the effective policy/.test(e)), JSON.stringify(entries));
  await dismiss();

  // ----- run "Simulate tool call…" from the palette -----
  async function simulateVia(kind, start, call, expectRe) {
    let before = channelLog();
    await start();
    const prompt = await waitFor(async () => /tool call/i.test(await quickInputOpen()) && (await quickInputOpen()), 5000);
    if (!prompt) {
      const why = [...(await dialogs()), ...(await toasts())].join(" / ") || "no input box, no message";
      await screenshot(`${kind}-no-input`);
      await dismiss();
      return { ok: false, detail: why };
    }
    await page.keyboard.type(call);
    await page.keyboard.press("Enter");
    const added = await channelGrows(before, new RegExp(call.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")));
    await sleep(500);
    await screenshot(`${kind}-result`);
    await dismiss();
    return { ok: !!added && expectRe.test(added), detail: added.trim() || "nothing printed in the \"Permission LSP\" channel" };
  }
  let r = await simulateVia("palette-simulate", () => palette("Permission LSP: Simulate tool call"), "rm -rf build", /DENY/);
  check("palette \"Simulate tool call…\" asks for a call and prints the decision (rm -rf build → DENY)", r.ok, r.detail);
  await openFile(".claude/settings.local.json");
  r = await simulateVia("lens-simulate", () => page.locator(".codelens-decoration a", { hasText: "Simulate" }).first().click(), "git push --force", /ASK|ALLOW|DENY/);
  check("clicking the \"Simulate a tool call…\" lens asks for a call and prints the decision", r.ok, r.detail);

  // ----- effective policy: palette and lens -----
  async function effectiveVia(kind, start) {
    const before = channelLog();
    await start();
    const added = await channelGrows(before, /Rules in the order the runtime weighs them/, 6000);
    // A readable document opens beside the config: a tab named for it, the policy as text.
    const tab = await waitFor(async () => {
      const tabs = await page.$$eval(".tab", (els) => els.map((e) => e.getAttribute("aria-label") || e.textContent || ""));
      return tabs.find((t) => /Effective policy/.test(t)) ?? "";
    }, 6000);
    const shownText = async () =>
      (await page.$$eval(".editor-group-container .view-lines", (els) => els.map((e) => e.textContent).join("\n"))).replace(/\u00a0/g, " ");
    const readable = !!tab && !!(await waitFor(async () => {
      const shown = await shownText();
      return /Files, in the order the runtime reads them/.test(shown) && !/"schemaVersion"/.test(shown);
    }, 5000));
    const why = added
      ? `${tab ? `tab "${tab}"` : "no document tab"}; ${added.trim().slice(0, 400)}`
      : [...(await dialogs()), ...(await toasts())].join(" / ") || "nothing happened (no output, no message)";
    await screenshot(kind);
    await dismiss();
    return { ok: !!added && !!tab && readable, detail: why };
  }
  await openFile(".claude/settings.local.json");
  r = await effectiveVia("palette-effective-policy", () => palette("Permission LSP: Show the effective policy"));
  check("palette \"Show the effective policy\" opens the merged policy as a readable document", r.ok, r.detail);
  await openFile(".claude/settings.local.json");
  r = await effectiveVia("lens-effective-policy", () => page.locator(".codelens-decoration a", { hasText: "Effective policy" }).first().click());
  check("clicking the \"Effective policy\" lens opens the merged policy as a readable document", r.ok, r.detail);
  // The OpenCode agent file's lens answers for that agent (its own `git log *` deny; the
  // project's build agent allows it). Other editors closed first: their lenses would come first.
  await palette("View: Close All Editor Groups").catch(() => {});
  await sleep(500);
  await openFile(".opencode/agent/review.md");
  r = await simulateVia("agent-simulate", () => page.locator(".codelens-decoration a", { hasText: "Simulate" }).first().click(), "git log -1", /DENY/);
  check("the Simulate lens of an OpenCode agent file answers for that agent (git log -1 → DENY)", r.ok, r.detail);

  observations.consoleMessages = consoleErrors;
  observations.toastsAtEnd = await toasts();
}

main().then(finish, async (e) => {
  check("the harness ran to the end", false, e?.stack ?? String(e));
  await finish();
});
