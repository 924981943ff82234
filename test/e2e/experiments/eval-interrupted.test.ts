/**
 * `ragscope eval` stopped by a signal, as a user meets it: the eval is a
 * subprocess over a dataset of 8 cases with a task module this test writes,
 * run one case at a time. The task logs each case it starts and answers only
 * once the test creates that case's release file, so the test knows which
 * case runs when it sends the signal (it waits on the progress line and the
 * task's log, never on time). Then `gate` runs as a subprocess and the store
 * is read back.
 *
 * Expected, from the README ("Exit codes", "Evaluate your own pipeline"):
 * on the first SIGINT no case starts, the running one finishes and every
 * finished case is stored; the run's lineage says interrupted with 8 planned
 * and 3 stored cases; stdout reports the 3 cases and why nothing is decided;
 * --output and --junit are written for the 3 cases and say interrupted; the
 * exit code is 130; `gate` cannot decide on the run (exit 2). A second SIGINT
 * ends the process at once, and the run's lineage then still says running.
 */
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { XMLParser } from "fast-xml-parser";
import { openClickHouse } from "../../../store/clickhouse/clickhouse-connection.js";
import { queryRows } from "../../support/temporary-store.js";
import { projectRoot, ragscopeBinary, runRagscope } from "./support/run-ragscope.js";

const CASES = ["case_01", "case_02", "case_03", "case_04", "case_05", "case_06", "case_07", "case_08"];

/** Logs each case it starts to TASK_LOG, then answers once TASK_RELEASE/<case id> exists. */
const TASK_MODULE = `import { appendFileSync, existsSync } from "node:fs";
import path from "node:path";
export default async function task(evalCase) {
  appendFileSync(process.env.TASK_LOG, "started " + evalCase.case_id + "\\n");
  while (!existsSync(path.join(process.env.TASK_RELEASE, evalCase.case_id))) await new Promise((resolve) => setTimeout(resolve, 20));
  return "The answer to " + evalCase.case_id + ".";
}
`;

interface RunningEval {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

describe("ragscope eval stopped by a signal", () => {
  let folder: string;
  let dataDir: string;
  let dataset: string;
  let taskFile: string;
  const started = (log: string) => (existsSync(log) ? readFileSync(log, "utf8").split("\n").filter(Boolean) : []);

  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-eval-interrupted-"));
    dataDir = path.join(folder, "store");
    dataset = path.join(folder, "qa_toy.json");
    await writeFile(dataset, JSON.stringify({ dataset_id: "qa_toy", dataset_version: "v1", cases: CASES.map((id) => ({ case_id: id, case_version: "1", input: `What does ${id} ask?` })) }));
    taskFile = path.join(folder, "task.mjs");
    await writeFile(taskFile, TASK_MODULE);
  });
  after(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  /** The eval as a subprocess; `name` names its task log and release folder. */
  async function startEval(name: string, args: string[]): Promise<RunningEval & { log: string; release: string }> {
    const log = path.join(folder, `${name}.log`);
    const release = path.join(folder, `${name}-release`);
    await mkdir(release, { recursive: true });
    const child = spawn(process.execPath, [ragscopeBinary, "eval", "--dataset", dataset, "--task", taskFile, "--concurrency", "1", "--data-dir", dataDir, ...args], {
      cwd: projectRoot,
      env: { ...process.env, RAGSCOPE_CONFIG: "", TASK_LOG: log, TASK_RELEASE: release },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
    return { child, stdout: () => stdout, stderr: () => stderr, exited, log, release };
  }

  /** Waits until `condition` holds, or fails with what the eval printed once it exited without it. */
  async function until(running: RunningEval, what: string, condition: () => boolean): Promise<void> {
    let ended = false;
    void running.exited.then(() => (ended = true));
    while (!condition()) {
      if (ended) assert.fail(`the eval exited before ${what}:\n${running.stdout()}\n${running.stderr()}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  test("SIGINT while the third case runs: it finishes, 3 of 8 are stored, the run is recorded interrupted, outputs say so, exit 130; gate cannot decide", async () => {
    const output = path.join(folder, "intr1.json");
    const junit = path.join(folder, "intr1.xml");
    const running = await startEval("intr1", ["--run-id", "intr1", "--output", output, "--junit", junit]);
    for (const id of ["case_01", "case_02"]) await writeFile(path.join(running.release, id), "");
    // Off a terminal every case prints a progress line (8 cases, at most ~20 lines a run).
    await until(running, "the second case finished and the third started", () => /cases 2\/8/.test(running.stderr()) && started(running.log).includes("started case_03"));
    running.child.kill("SIGINT");
    await until(running, "it said it is stopping", () => /SIGINT: stopping run intr1/.test(running.stderr()));
    await writeFile(path.join(running.release, "case_03"), "");
    const { code } = await running.exited;
    assert.equal(code, 130, `${running.stdout()}\n${running.stderr()}`);

    // No case started after the signal.
    assert.deepEqual(started(running.log), ["started case_01", "started case_02", "started case_03"]);
    const stdout = running.stdout();
    assert.match(stdout, /^Run intr1: 3 of 8 cases \(interrupted\) — /m);
    assert.match(stdout, /Could not decide: run intr1 was interrupted \(SIGINT\): 3 of 8 cases ran and 3 are stored, 5 never started/);
    assert.match(stdout, /^Decision: UNDECIDED$/m);
    // The gate is not checked on part of a run: no verdict of it is printed.
    assert.doesNotMatch(stdout, /Release gate:/);

    const results = JSON.parse(await readFile(output, "utf8"));
    assert.equal(results.decision, "undecided");
    assert.deepEqual(results.run_lineage.completion, { status: "interrupted", planned_cases: 8, stored_cases: 3 });
    assert.deepEqual(results.case_results.map((item: { case_id: string }) => item.case_id).sort(), ["case_01", "case_02", "case_03"]);
    assert.equal(results.gate, null);

    const suite = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "" }).parse(await readFile(junit, "utf8")).testsuites.testsuite[0];
    assert.equal(suite.name, "ragscope eval intr1 (interrupted by SIGINT: 3 of 8 cases stored)");
    assert.equal(Number(suite.tests), 3);

    const gate = await runRagscope(["gate", "--run", "intr1", "--data-dir", dataDir]);
    assert.equal(gate.status, 2, gate.stdout + gate.stderr);
    assert.equal(gate.stdout, "");
    assert.match(gate.stderr, /^ragscope gate: run intr1 was interrupted: 3 of 8 cases stored; /);
    assert.equal(gate.stderr.trim().split("\n").length, 1, gate.stderr);

    // Nor is it a baseline: a comparison with 3 of its 8 cases would compare different datasets. Refused before any case runs.
    const compared = await runRagscope(["eval", "--dataset", dataset, "--task", taskFile, "--data-dir", dataDir, "--baseline", "intr1"], { TASK_LOG: path.join(folder, "baseline.log"), TASK_RELEASE: folder });
    assert.equal(compared.status, 2, compared.stdout + compared.stderr);
    assert.match(compared.stderr, /--baseline intr1: run intr1 was interrupted: 3 of 8 cases stored/);
    assert.equal(existsSync(path.join(folder, "baseline.log")), false, "no case ran");
  });

  test("a second SIGINT ends the eval at once, while its case still runs; the run's lineage says it did not finish, and gate cannot decide", async () => {
    const running = await startEval("intr2", ["--run-id", "intr2"]);
    await writeFile(path.join(running.release, "case_01"), "");
    await until(running, "the first case finished and the second started", () => /cases 1\/8/.test(running.stderr()) && started(running.log).includes("started case_02"));
    running.child.kill("SIGINT");
    await until(running, "it said it is stopping", () => /SIGINT: stopping run intr2/.test(running.stderr()));
    running.child.kill("SIGINT");
    // case_02 is never released: the eval ended without waiting for it, by the signal (a shell reports 130).
    const { code, signal } = await running.exited;
    assert.equal(signal, "SIGINT", `exit code ${code}\n${running.stdout()}\n${running.stderr()}`);
    assert.match(running.stderr(), /SIGINT again: ending now; run intr2 keeps what is stored and its lineage says it did not finish/);
    assert.deepEqual(started(running.log), ["started case_01", "started case_02"]);

    const gate = await runRagscope(["gate", "--run", "intr2", "--data-dir", dataDir]);
    assert.equal(gate.status, 2, gate.stdout + gate.stderr);
    assert.match(gate.stderr, /^ragscope gate: run intr2 has not finished: its eval is still running, or ended without recording its end \(killed\); [01] of 8 cases stored/);
  });

  test("the store holds what the runs did: intr1's 3 cases and lineage interrupted, intr2's lineage still running", async () => {
    // Read last: the engine binds one data folder per process, and the subprocesses above needed it.
    const connection = await openClickHouse({ url: null, username: "default", password: "", database: "ragscope", dataPath: dataDir });
    try {
      const cases = await queryRows<{ case_id: string }>(connection, "SELECT case_id FROM {{database}}.case_results FINAL WHERE run_id = 'intr1' ORDER BY case_id");
      assert.deepEqual(cases.map((row) => row.case_id), ["case_01", "case_02", "case_03"]);
      const completion = async (runId: string) => {
        const [row] = await queryRows<{ payload: string }>(connection, "SELECT payload FROM {{database}}.runs FINAL WHERE run_id = {runId:String}", { runId });
        return row === undefined ? undefined : (JSON.parse(row.payload) as { completion: unknown }).completion;
      };
      assert.deepEqual(await completion("intr1"), { status: "interrupted", planned_cases: 8, stored_cases: 3 });
      assert.deepEqual(await completion("intr2"), { status: "running", planned_cases: 8, stored_cases: null });
    } finally {
      await connection.close();
    }
  });
});
