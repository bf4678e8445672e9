// Times vscode-json-languageservice's doValidation with the runtime's own
// $schema (from the @gotgenes/pi-permission-system 20.7.3 tarball) on the
// same files the criterion benchmark uses. Usage: ./run.sh
import { readFileSync } from "node:fs";
import { getLanguageService } from "vscode-json-languageservice";
import { TextDocument } from "vscode-languageserver-textdocument";

const schemaPath = process.argv[2];
const files = process.argv.slice(3);
const schema = JSON.parse(readFileSync(schemaPath, "utf8"));
const uri = "https://example.invalid/permissions.schema.json";
const ls = getLanguageService({ schemaRequestService: async () => JSON.stringify(schema) });
ls.configure({ validate: true, allowComments: true, schemas: [{ uri, fileMatch: ["*.json"], schema }] });

for (const file of files) {
  const text = readFileSync(file, "utf8");
  let version = 0;
  const once = async () => {
    const doc = TextDocument.create("file:///bench/config.json", "jsonc", ++version, text);
    const json = ls.parseJSONDocument(doc);
    return ls.doValidation(doc, json, { comments: "ignore", trailingCommas: "error" });
  };
  for (let i = 0; i < 20; i++) await once(); // warm up the JIT
  const runs = text.length > 100000 ? 40 : 2000;
  const times = [];
  for (let i = 0; i < runs; i++) {
    const t = process.hrtime.bigint();
    await once();
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  times.sort((a, b) => a - b);
  const med = times[Math.floor(times.length / 2)];
  console.log(`${file}: median ${med.toFixed(3)} ms, p10 ${times[Math.floor(runs * 0.1)].toFixed(3)} ms, p90 ${times[Math.floor(runs * 0.9)].toFixed(3)} ms (${runs} runs, parse + validate)`);
}

// The same files through `permission-lsp check` (a whole process per run:
// start, read, analyse, print), in the same run, when the binary is given.
const bin = process.env.PERMISSION_LSP_BIN;
if (bin) {
  const { spawnSync } = await import("node:child_process");
  for (const file of files) {
    const times = [];
    for (let i = 0; i < 30; i++) {
      const t = process.hrtime.bigint();
      const run = spawnSync(bin, ["check", "--format", "json", file], { stdio: "ignore" });
      times.push(Number(process.hrtime.bigint() - t) / 1e6);
      // 0: nothing at error level, 1: errors found; anything else (or no
      // process at all) would time a failure, not a check.
      if (run.error || run.signal || run.status > 1) {
        throw new Error(`${bin} check ${file}: ${run.error ?? run.signal ?? `exit ${run.status}`}`);
      }
    }
    times.sort((a, b) => a - b);
    console.log(`${file}: permission-lsp check median ${times[15].toFixed(3)} ms, p10 ${times[3].toFixed(3)} ms, p90 ${times[27].toFixed(3)} ms (30 processes)`);
  }
}
