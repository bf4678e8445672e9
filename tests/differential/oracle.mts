// The differential test's oracle: the real @gotgenes/pi-permission-system
// 20.7.3 sources, driven through their own config loader, PermissionManager
// and ToolCallGatePipeline. Reads a JSONL batch of cases
//   { "id", "global"?, "project"?, "agents"?, "projectAgents"?, "agent"?,
//     "cwd", "mcpServerNames"?, "calls": [{ "tool", "input" }] }
// (configs are raw file texts) and prints one JSON line per case with the
// config issues, the startup warning and, per call, every gate's decision.
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const pkgDir = join(require.resolve("@gotgenes/pi-permission-system"), "..", "..");
const src = (p: string) => import(join(pkgDir, "src", p));

const { PermissionManager } = await src("permission-manager.ts");
const { PermissionResolver } = await src("permission-resolver.ts");
const { ToolCallGatePipeline } = await src("handlers/gates/tool-call-gate-pipeline.ts");
const { PathNormalizer } = await src("path-normalizer.ts");
const { posixPathFlavor } = await src("path/path-flavor.ts");
const { formatDenyReason, formatUnavailableReason } = await src("denial-messages.ts");
const { isGateBypass } = await src("handlers/gates/descriptor.ts");
const { loadUnifiedConfig, mergeUnifiedConfigs, detectPermissiveBashFallback } = await src("config-loader.ts");
const { normalizePermissionSystemConfig } = await src("extension-config.ts");

const lines = readFileSync(process.argv[2], "utf8").split("\n").filter((l) => l.trim());
const root = mkdtempSync(join(tmpdir(), "pl-oracle-"));

function writeAgents(dir: string, agents: Record<string, string> | undefined) {
  mkdirSync(dir, { recursive: true });
  for (const [name, md] of Object.entries(agents ?? {})) writeFileSync(join(dir, `${name}.md`), md);
}

for (const [n, line] of lines.entries()) {
  const spec = JSON.parse(line);
  const dir = join(root, String(n));
  mkdirSync(dir);
  const globalPath = join(dir, "global.json");
  const projectPath = join(dir, "project.json");
  if (typeof spec.global === "string") writeFileSync(globalPath, spec.global);
  if (typeof spec.project === "string") writeFileSync(projectPath, spec.project);
  writeAgents(join(dir, "agents"), spec.agents);
  writeAgents(join(dir, "project-agents"), spec.projectAgents);
  const out: any = { id: spec.id };
  try {
    const g = loadUnifiedConfig(globalPath);
    const p = loadUnifiedConfig(projectPath);
    const merged = mergeUnifiedConfigs(g.config, p.config);
    const knobs = normalizePermissionSystemConfig(merged);
    out.configIssues = [...g.issues, ...p.issues].map((s: string) => s.replaceAll(globalPath, "global.json").replaceAll(projectPath, "project.json"));
    out.permissiveBashWarning = detectPermissiveBashFallback(merged.permission) ?? null;
    const cwd: string = spec.cwd;
    const manager = new PermissionManager({
      globalConfigPath: globalPath,
      projectGlobalConfigPath: projectPath,
      agentsDir: join(dir, "agents"),
      projectAgentsDir: join(dir, "project-agents"),
      mcpServerNames: spec.mcpServerNames ?? [],
      flavor: posixPathFlavor,
      isYoloEnabled: () => knobs.yoloMode,
    });
    const resolver = new PermissionResolver(manager, { getRuleset: () => [] });
    const normalizer = new PathNormalizer(posixPathFlavor, cwd);
    const pipeline = new ToolCallGatePipeline(resolver, {
      getActiveSkillEntries: () => [],
      getInfrastructureReadDirs: () => [...(knobs.piInfrastructureReadPaths ?? [])],
      getToolPreviewLimits: () => ({}),
      getPathNormalizer: () => normalizer,
      getShellToolAliases: () => knobs.shellTools,
      getPromotablePathTokenMatcher: (a?: string) => manager.getPromotablePathTokenMatcher(a),
    });
    const agentName: string | null = spec.agent ?? null;
    out.toolHidden = [];
    out.results = [];
    for (const call of spec.calls ?? []) {
      const gates: any[] = [];
      const runner = {
        async run(gate: any) {
          if (!gate) return { action: "allow" };
          if (isGateBypass(gate)) {
            gates.push({ gate: gate.log?.event ?? "bypass", state: "allow" });
            return { action: "allow" };
          }
          const check = gate.preCheck;
          const entry: any = { gate: gate.surface, state: check.source === "session" ? "allow" : check.state };
          for (const k of ["matchedPattern", "reason", "origin", "command", "commandContext"]) {
            entry[k] = check[k] ?? null;
          }
          entry.message = check.state === "deny" ? formatDenyReason(gate.denialContext) : null;
          entry.promptMessage = check.state === "ask" ? (gate.promptDetails?.message ?? null) : null;
          entry.noUiMessage = check.state === "ask" ? formatUnavailableReason(gate.denialContext) : null;
          gates.push(entry);
          return check.state === "deny" ? { action: "block" } : { action: "allow" };
        },
      };
      try {
        await pipeline.evaluate({ toolName: call.tool, input: call.input ?? {}, toolCallId: "oracle", agentName, cwd }, runner);
        const decision = gates.some((x) => x.state === "deny") ? "deny" : gates.some((x) => x.state === "ask") ? "ask" : "allow";
        out.results.push({ decision, gates });
      } catch (e: any) {
        out.results.push({ decision: "deny", error: String(e?.message ?? e), gates });
      }
      out.toolHidden.push(manager.getToolPermission(String(call.tool), agentName ?? undefined) === "deny");
    }
  } catch (e: any) {
    out.error = String(e?.stack ?? e);
  }
  console.log(JSON.stringify(out));
}
// The cases' folders go with the batch.
rmSync(root, { recursive: true, force: true });
process.exit(0);
