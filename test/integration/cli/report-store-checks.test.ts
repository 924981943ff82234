/**
 * `ragscope report` and `ragscope dead-letters` pointed at nothing, as a user
 * (or a CI job with a typo) runs them: bin/ragscope.js as a subprocess. A data
 * folder that does not exist is exit 2 with one line naming it and the flag,
 * and no folder is left behind; a folder that holds no ragscope store is exit
 * 2; a --run, --baseline or --candidate with no stored results is exit 2
 * naming it, and no report is written; a --service, --dataset or --tenant
 * value that matches no stored request is a warning (README "Exit codes"), and
 * so is a --trace-id.
 *
 * The store: run "release-7" of dataset "refunds" with two cases, service
 * "checkout", tenant "acme", written through the store's own write port.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { plannedCaseResult, writeToFolder } from "../../support/stored-requests.js";

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const ragscope = path.join(projectRoot, "bin/ragscope.js");

function run(args: string[], cwd: string) {
  const child = spawnSync(process.execPath, [ragscope, ...args], { encoding: "utf8", cwd, env: { ...process.env, RAGSCOPE_CLICKHOUSE_URL: "", RAGSCOPE_DATA_DIR: "", RAGSCOPE_CONFIG: "" } });
  return { status: child.status, stdout: child.stdout, stderr: child.stderr };
}

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");

let folder: string;
let dataDir: string;

before(async () => {
  folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-report-checks-"));
  dataDir = path.join(folder, "chdb");
  const startedAtMs = Date.parse("2026-03-02T10:00:00.000Z");
  const requests = ["a", "b"].map((name, index) => ({
    caseResult: plannedCaseResult({ caseResultId: `cr_${name}`, traceId: `${index + 1}`.padStart(32, "0"), runId: "release-7", caseId: `case_${name}`, service: "checkout", tenant: "acme", startedAtMs: startedAtMs + index * 60_000 }),
    evaluationResults: [],
  }));
  await writeToFolder(dataDir, requests, { case_a: "refunds", case_b: "refunds" });
});

after(async () => {
  await rm(folder, { recursive: true, force: true });
});

describe("a data folder that does not exist", () => {
  for (const command of ["report", "dead-letters"]) {
    test(`${command}: exit 2, one line naming the folder and --data-dir / RAGSCOPE_DATA_DIR, and no folder created`, () => {
      const typo = path.join(folder, "chbd");
      const result = run([command, "--data-dir", typo, ...(command === "report" ? ["--out", path.join(folder, `${command}-typo.html`)] : [])], folder);
      assert.equal(result.status, 2, result.stderr);
      const lines = result.stderr.trim().split("\n");
      assert.equal(lines.length, 1, result.stderr);
      assert.match(lines[0]!, new RegExp(`^ragscope ${command}: no store at ${escaped(typo)}: the folder does not exist.*--data-dir \\(or RAGSCOPE_DATA_DIR\\)`));
      assert.equal(existsSync(typo), false, "the mistyped folder was created");
      assert.equal(existsSync(path.join(folder, `${command}-typo.html`)), false, "a report was written");
    });
  }

  test("report: the same through RAGSCOPE_DATA_DIR", () => {
    const typo = path.join(folder, "elsewhere", "chdb");
    const child = spawnSync(process.execPath, [ragscope, "report", "--out", path.join(folder, "env-typo.html")], { encoding: "utf8", cwd: folder, env: { ...process.env, RAGSCOPE_CLICKHOUSE_URL: "", RAGSCOPE_CONFIG: "", RAGSCOPE_DATA_DIR: typo } });
    assert.equal(child.status, 2, child.stderr);
    assert.match(child.stderr, new RegExp(`no store at ${escaped(typo)}`));
    assert.equal(existsSync(path.join(folder, "elsewhere")), false);
  });
});

describe("a folder without a ragscope store", () => {
  for (const command of ["report", "dead-letters"]) {
    test(`${command}: exit 2, saying it holds no ragscope data, and writing nothing into it`, async () => {
      const empty = path.join(folder, `empty-${command}`);
      await mkdir(empty);
      const result = run([command, "--data-dir", empty, ...(command === "report" ? ["--out", path.join(folder, `${command}-empty.html`)] : [])], folder);
      assert.equal(result.status, 2, result.stderr);
      assert.match(result.stderr, new RegExp(`^ragscope ${command}: no store at ${escaped(empty)}: the folder holds no ClickHouse engine data \\(no metadata/ folder\\), so nothing was stored there.*--data-dir`, "m"));
      assert.equal(existsSync(path.join(folder, `${command}-empty.html`)), false);
      assert.deepEqual(readdirSync(empty), [], "the engine's folders are not created in it");
    });
  }
});

describe("report runs and filters that match nothing", () => {
  for (const flag of ["--run", "--baseline", "--candidate"]) {
    test(`${flag} with no stored results: exit 2 naming it and the stored runs, no report written`, () => {
      const out = path.join(folder, `unknown${flag}.html`);
      const result = run(["report", "--data-dir", dataDir, flag, "release-8", "--out", out], folder);
      assert.equal(result.status, 2, result.stderr);
      const lines = result.stderr.trim().split("\n");
      assert.equal(lines.length, 1, result.stderr);
      assert.match(lines[0]!, new RegExp(`^ragscope report: ${flag} "release-8": no stored results of that run in .*${escaped(dataDir)}.*runs stored there, newest first: release-7\\)$`));
      assert.equal(existsSync(out), false, "a report of nothing was written");
    });
  }

  test("a run of another tenant reads as not stored", () => {
    const result = run(["report", "--data-dir", dataDir, "--tenant", "globex", "--run", "release-7", "--out", path.join(folder, "globex.html")], folder);
    assert.equal(result.status, 2, result.stderr);
    assert.match(result.stderr, /--run "release-7": no stored results of that run in .*tenant "globex".*no run has stored results there/);
  });

  test("a --service, --dataset or --tenant value nothing was stored under: a warning naming it, the report still written (exit 0)", () => {
    // The stored values: no warning.
    const stored = run(["report", "--data-dir", dataDir, "--run", "release-7", "--service", "checkout", "--dataset", "refunds", "--tenant", "acme", "--out", path.join(folder, "stored.html")], folder);
    assert.equal(stored.status, 0, stored.stderr);
    assert.doesNotMatch(stored.stderr, /warning|no stored results/);
    const out = path.join(folder, "typos.html");
    const result = run(["report", "--data-dir", dataDir, "--service", "chekout", "--dataset", "refund", "--tenant", "acme", "--tenant", "acmee", "--out", out], folder);
    assert.equal(result.status, 0, result.stderr);
    const warnings = result.stderr.split("\n").filter((line) => line.startsWith("ragscope report: warning:"));
    assert.equal(warnings.length, 3, result.stderr);
    assert.match(warnings[0]!, /--service "chekout" matches no stored request in .* "no data"/);
    assert.match(warnings[1]!, /--dataset "refund" matches no stored request/);
    assert.match(warnings[2]!, /--tenant "acmee" matches no stored request/);
    assert.ok(existsSync(out));
  });

  test("a --trace-id no stored request has is a warning (the stages section was left out without a word); a stored one is none", () => {
    const unknown = run(["report", "--data-dir", dataDir, "--trace-id", "ab".repeat(16), "--out", path.join(folder, "trace-typo.html")], folder);
    assert.equal(unknown.status, 0, unknown.stderr);
    assert.match(unknown.stderr, /^ragscope report: warning: --trace-id "abababababababababababababababab" matches no stored request in .*, so the report shows no trace's stages/m);
    const stored = run(["report", "--data-dir", dataDir, "--trace-id", "1".padStart(32, "0"), "--out", path.join(folder, "trace-stored.html")], folder);
    assert.equal(stored.status, 0, stored.stderr);
    assert.doesNotMatch(stored.stderr, /--trace-id/);
  });
});
