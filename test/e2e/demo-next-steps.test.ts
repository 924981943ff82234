/**
 * `ragscope demo` ends by saying where to look next, as commands that run as printed. Its summary used to end at
 * "Stored in …", and a new user did not know that the web UI, the report and the gate read that store — nor that,
 * after `demo --data-dir DIR`, each of them needs the same `--data-dir DIR` (without it they read .ragscope/chdb
 * and find nothing). Built CLI as a subprocess, a data folder whose name holds a space (so the printed folder must
 * be quoted for a shell); then the printed `report` and `gate` lines run through `sh -c` from another folder, with
 * `npx ragscope` standing for the built CLI: the report is written (exit 0), and the gate decides on the demo's run
 * (exit 1: the bundled dataset's failed P0 cases veto it, as test/e2e/demo-end-to-end.test.ts works out).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { ragscopeBinary, runRagscope } from "./experiments/support/run-ragscope.js";

describe("ragscope demo says where to look next", () => {
  let folder: string;
  let dataDir: string;
  let nextLines: string[];
  let summary: string;

  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-demo-next-"));
    dataDir = path.join(folder, "demo data");
    const ran = await runRagscope(["demo", "--data-dir", dataDir, "--run-id", "demo-next"], { RAGSCOPE_CLICKHOUSE_URL: "" });
    assert.equal(ran.status, 0, ran.stdout + ran.stderr);
    summary = ran.stdout;
    const lines = ran.stdout.trimEnd().split("\n");
    const start = lines.indexOf("Next:");
    assert.ok(start > 0, `no "Next:" block:\n${ran.stdout}`);
    nextLines = lines.slice(start + 1).map((line) => line.trim());
  });
  after(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  /** The command of a printed line (before the three spaces that start its explanation), the built CLI for npx ragscope. */
  const commandOf = (prefix: string) => {
    const line = nextLines.find((candidate) => candidate.startsWith(prefix));
    assert.ok(line, `no "${prefix}" line in ${JSON.stringify(nextLines)}`);
    return line.split("   ")[0]!.replace(/^npx ragscope/, `'${process.execPath}' '${ragscopeBinary}'`);
  };
  const runPrinted = async (prefix: string) => {
    const elsewhere = path.join(folder, `cwd-${prefix.split(" ")[2]}`);
    await mkdir(elsewhere, { recursive: true });
    return spawnSync("sh", ["-c", commandOf(prefix)], { cwd: elsewhere, encoding: "utf8", env: { ...process.env, RAGSCOPE_CONFIG: "", RAGSCOPE_CLICKHOUSE_URL: "" } });
  };

  test("the summary's metric averages name a heuristic rule's metric so (evaluators/metric-catalog.ts), an exact rule's not", () => {
    assert.match(summary, /^ {4}completeness \(heuristic\) +\d\.\d{4}  n=\d+/m, summary);
    assert.doesNotMatch(summary, /^ {4}completeness +\d/m);
    assert.match(summary, /^ {4}recall_at_5 +\d\.\d{4}  n=\d+/m);
  });

  // The example service records a generation cost of about 0.0000217 USD a request: printed at four decimals it read
  // 0.0000, as if the demo had cost nothing, where `ragscope report` prints 0.000022 (report/format-value.ts rounded).
  test("the summary's mean cost keeps two significant digits, as the report prints it: 0.000022, not 0.0000", () => {
    assert.match(summary, /^ {4}cost +0\.000022  n=26$/m, summary);
  });

  test("the serve, report and gate lines name the demo's data folder, quoted for a shell", () => {
    assert.deepEqual(
      nextLines.map((line) => line.split("   ")[0]),
      [`npx ragscope serve --data-dir '${dataDir}'`, `npx ragscope report --data-dir '${dataDir}'`, `npx ragscope gate --run demo-next --data-dir '${dataDir}'`],
    );
  });

  test("the printed report line runs as printed and writes the report", async () => {
    const report = await runPrinted("npx ragscope report");
    assert.equal(report.status, 0, report.stdout + report.stderr);
    assert.match(report.stdout, /Report written to /);
    assert.match(report.stdout, / · Cost per request 0\.000022 \(of 26 values\) · /, "the cost the summary and the gate print");
  });

  test("the printed gate line runs as printed and decides on the demo's run", async () => {
    const gate = await runPrinted("npx ragscope gate");
    assert.equal(gate.status, 1, gate.stdout + gate.stderr);
    assert.match(gate.stdout, /^Release gate for run demo-next \(26 cases\)/);
    assert.match(gate.stdout, /^ {2}PASS {2}performance\.average_cost +0\.000022 {2}<= 0\.05 /m, "the mean cost as the report prints it, not 0.0000");
  });
});
