// The differential test's oracle for pi-permission-system 26.3.1: the real
// upstream sources (the project's `pi-26.3.1` reference runtime, its `pkg/`)
// run through tsx, one process for a whole JSONL batch of cases. Per case:
// the real config loader + PermissionManager + PermissionResolver +
// ToolCallGatePipeline with a recording runner that derives each gate's check
// as the real GateRunner does and applies the real yolo rule; an ask gate is
// treated as approved so later gates are reported. The case format is the
// differential generator's (global, project, agents, projectAgents, agent,
// cwd, mcpServerNames, calls; projectTrusted defaults to true).
//
// Output: one JSON line per case: {configIssues, results: [{decision, firstBlock, gates}]},
// each gate with its state, matched pattern, executed unit and the agent-facing text.
// Usage: tsx oracle.mts batch.jsonl   (PI_PERM_PKG: the sources' folder)
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

type Json = any;
const here = dirname(fileURLToPath(import.meta.url));
const pkgDir = process.env.PI_PERM_PKG ?? join(here, "pkg");
const src = (p: string) => import(join(pkgDir, "src", p));

const text = (c: Json) => (typeof c === "string" ? c : JSON.stringify(c, null, 2));

function agentsInto(dir: string, agents: Record<string, string> | undefined) {
  mkdirSync(dir, { recursive: true });
  for (const [name, md] of Object.entries(agents ?? {})) writeFileSync(join(dir, `${name}.md`), md);
}

const { PermissionManager } = await src("permission-manager.ts");
const { PermissionResolver } = await src("permission-resolver.ts");
const { ToolCallGatePipeline } = await src("handlers/gates/tool-call-gate-pipeline.ts");
const { PathNormalizer } = await src("path-normalizer.ts");
const { posixPathFlavor } = await src("path/path-flavor.ts");
const { isGateBypass } = await src("handlers/gates/descriptor.ts");
const { resolveYoloGrant } = await src("handlers/gates/helpers.ts");
const { loadUnifiedConfig, mergeUnifiedConfigs } = await src("config-loader.ts");
const { normalizePermissionSystemConfig } = await src("extension-config.ts");
const { renderPolicyDenial, renderUnavailableDenial } = await src("presentation/agent-renderer.ts");

// Each case in a folder of its own, removed when the case is decided.
async function decideCase(spec: Json): Promise<Json> {
  const dir = mkdtempSync(join(tmpdir(), "pi26-diff-"));
  try {
    return await decideIn(dir, spec);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function decideIn(dir: string, spec: Json): Promise<Json> {
  const trusted = spec.projectTrusted !== false;
  const globalPath = join(dir, "global.json");
  const projectPath = join(dir, "project.json");
  if (spec.global !== undefined) writeFileSync(globalPath, text(spec.global));
  if (spec.project !== undefined) writeFileSync(projectPath, text(spec.project));
  agentsInto(join(dir, "agents"), spec.agents);
  agentsInto(join(dir, "project-agents"), spec.projectAgents);
  const g = loadUnifiedConfig(globalPath);
  const p = trusted ? loadUnifiedConfig(projectPath) : { config: {}, issues: [] };
  const knobs = normalizePermissionSystemConfig(mergeUnifiedConfigs(mergeUnifiedConfigs({}, g.config), p.config));
  const configIssues = [...g.issues, ...p.issues].map((s: string) =>
    s.replaceAll(globalPath, "global.json").replaceAll(projectPath, "project.json"),
  );
  const cwd: string = spec.cwd ?? "/workspace/project";
  const agentName: string | null = spec.agent ?? null;
  const yoloOn = () => knobs.yoloMode === true;
  const manager = new PermissionManager({
    globalConfigPath: globalPath,
    projectGlobalConfigPath: trusted ? projectPath : undefined,
    agentsDir: join(dir, "agents"),
    projectAgentsDir: trusted ? join(dir, "project-agents") : undefined,
    mcpServerNames: spec.mcpServerNames ?? [],
    flavor: posixPathFlavor,
    isYoloEnabled: yoloOn,
  });
  const resolver = new PermissionResolver(manager, { getRuleset: () => [] });
  const normalizer = new PathNormalizer(posixPathFlavor, cwd);
  const pipeline = new ToolCallGatePipeline(resolver, {
    getActiveSkillEntries: () => [],
    getInfrastructureReadDirs: () => [...(knobs.piInfrastructureReadPaths ?? [])],
    getToolPreviewLimits: () => ({}),
    getPathNormalizer: () => normalizer,
    getShellToolAliases: () => knobs.shellTools,
  });
  const results: Json[] = [];
  for (const call of spec.calls ?? []) {
    const gates: Json[] = [];
    const runner = {
      async run(gate: Json) {
        if (!gate) return { action: "allow" };
        if (isGateBypass(gate)) {
          gates.push({ gate: gate.log?.event ?? "bypass", state: "allow" });
          return { action: "allow" };
        }
        let check: Json = gate.preCheck
          ? gate.preCheck
          : gate.preResolved
            ? { state: gate.preResolved.state, toolName: gate.surface, source: "tool", origin: "builtin" }
            : resolver.resolve({ kind: "tool", surface: gate.surface, input: gate.input, agentName: agentName ?? undefined });
        let state = check.state;
        if (check.source !== "session") {
          const yolo = resolveYoloGrant(check, yoloOn());
          if (yolo) {
            check = yolo;
            state = "allow";
          }
        }
        const record: Json = { gate: gate.surface, state, matchedPattern: check.matchedPattern ?? null };
        record.executedUnit = check.executedUnit ?? null;
        // The agent-facing texts, as the real runner renders them (26.0 on).
        if (gate.payload && state === "deny") record.message = renderPolicyDenial(gate.payload, check.reason ?? null);
        if (gate.payload && state === "ask") record.noUiMessage = renderUnavailableDenial(gate.payload, null);
        gates.push(record);
        return state === "deny" ? { action: "block", reason: "denied" } : { action: "allow" };
      },
    };
    try {
      await pipeline.evaluate({ toolName: call.tool, input: call.input ?? {}, toolCallId: "oracle", agentName, cwd }, runner);
      const deny = gates.some((x) => x.state === "deny");
      const ask = gates.some((x) => x.state === "ask");
      const first = gates.find((x) => x.state !== "allow");
      results.push({ decision: deny ? "deny" : ask ? "ask" : "allow", firstBlock: first ? first.state : "allow", gates });
    } catch (e: any) {
      results.push({ decision: "deny", error: String(e?.message ?? e), gates });
    }
  }
  return { configIssues, results };
}

const lines = readFileSync(process.argv[2], "utf8").split("\n").filter((l) => l.trim());
const out: string[] = [];
for (const line of lines) {
  try {
    out.push(JSON.stringify(await decideCase(JSON.parse(line))));
  } catch (e: any) {
    out.push(JSON.stringify({ error: String(e?.message ?? e) }));
  }
}
process.stdout.write(out.join("\n") + "\n", () => process.exit(0));
