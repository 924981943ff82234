/**
 * The same dataset and gate file, evaluated in process and against `ragscope serve` (eval --endpoint), judge
 * differently: an in-process eval always judges (the heuristic judge when no LLM judge is configured), serve only with
 * RAGSCOPE_JUDGE_ENABLED=true (README "Online evaluation"). The gate's not-measured reasons say so in both cases:
 * serve's run read "no case has a value for faithfulness", without saying that serve judged nothing and why, and a
 * judged metric the heuristic judge does not score (answer_correctness) read the same in process. The seed's hard
 * thresholds, printed below the overall score, give the same reasons.
 *
 * Built CLI as subprocesses: serve with the example dataset, no judge variables.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { startServeWithUi, type ServeWithUi } from "../../support/serve-with-ui.js";
import { runRagscope } from "./support/run-ragscope.js";

const dataset = "examples/datasets/policy-regression.yaml";
const task = "examples/policy-assistant/eval-task.ts";
const ON_SERVE = "`ragscope serve`, where `eval --endpoint` sends its cases, judges only with RAGSCOPE_JUDGE_ENABLED=true (an in-process `eval` always judges)";
const NO_JUDGE = { RAGSCOPE_CLICKHOUSE_URL: "", RAGSCOPE_JUDGE_BASE_URL: "", RAGSCOPE_JUDGE_ENABLED: "" };

/** The reason printed beside a gate rule's N/A line. */
function reasonOf(stdout: string, rule: string): string {
  const line = stdout.split("\n").find((candidate) => new RegExp(`^\\s+N/A\\s+${rule.replace(".", "\\.")}\\s`).test(candidate));
  assert.ok(line, `no N/A line for ${rule} in:\n${stdout}`);
  return line.slice(line.indexOf("(") + 1, line.lastIndexOf(")"));
}

describe("not-measured reasons: in-process eval and eval --endpoint against serve", () => {
  let folder: string;
  let gates: string;
  let serve: ServeWithUi | null = null;

  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-serve-judge-reasons-"));
    gates = path.join(folder, "gates.yaml");
    await writeFile(gates, ["generation:", '  faithfulness: ">= 0.9"', '  answer_correctness: ">= 0.8"', ""].join("\n"));
    serve = await startServeWithUi(path.join(folder, "serve-store"), { RAGSCOPE_QUIET_PERIOD_MS: "300", ...NO_JUDGE }, { arguments: ["--dataset", dataset], readyLine: /Eval Cases loaded/, timeoutMs: 60_000 });
  });
  after(async () => {
    await serve?.stop();
    await rm(folder, { recursive: true, force: true });
  });

  test("in process: the heuristic judge's faithfulness and the unjudged correctness both say what to configure", async () => {
    const local = await runRagscope(["eval", "--dataset", dataset, "--task", task, "--run-id", "local", "--gates", gates, "--data-dir", path.join(folder, "local")], NO_JUDGE);
    assert.equal(local.status, 1, local.stdout + local.stderr);
    assert.equal(reasonOf(local.stdout, "generation.faithfulness"), `no case has a value for faithfulness: only the heuristic judge scored it, and a heuristic never decides a gate — configure an LLM judge (LOCAL-JUDGE.md); ${ON_SERVE}`);
    assert.equal(reasonOf(local.stdout, "generation.answer_correctness"), `no case has a value for answer_correctness: no judge scored it — configure an LLM judge (LOCAL-JUDGE.md); ${ON_SERVE}`);
    // The seed's hard thresholds below the score say the same as the gate file's rules (they read a bare "no case has a value").
    assert.equal(reasonOf(local.stdout, "faithfulness"), reasonOf(local.stdout, "generation.faithfulness"));
    assert.equal(reasonOf(local.stdout, "answer_correctness"), reasonOf(local.stdout, "generation.answer_correctness"));
  });

  test("against serve without RAGSCOPE_JUDGE_ENABLED: nothing judged, and the reason names the variable", async () => {
    assert.match(serve!.output(), /online evaluation: judge disabled \(RAGSCOPE_JUDGE_ENABLED\)/);
    const remote = await runRagscope(["eval", "--dataset", dataset, "--task", task, "--run-id", "remote", "--gates", gates, "--endpoint", serve!.receiverUrl, "--read-api", serve!.uiUrl, "--data-dir", path.join(folder, "unused")], NO_JUDGE);
    assert.equal(remote.status, 1, remote.stdout + remote.stderr);
    assert.equal(reasonOf(remote.stdout, "generation.faithfulness"), `no case has a value for faithfulness: no judge scored it — configure an LLM judge (LOCAL-JUDGE.md); ${ON_SERVE}`);
    assert.equal(reasonOf(remote.stdout, "generation.answer_correctness"), `no case has a value for answer_correctness: no judge scored it — configure an LLM judge (LOCAL-JUDGE.md); ${ON_SERVE}`);
    assert.equal(reasonOf(remote.stdout, "faithfulness"), reasonOf(remote.stdout, "generation.faithfulness"));
    assert.equal(reasonOf(remote.stdout, "answer_correctness"), reasonOf(remote.stdout, "generation.answer_correctness"));
  });
});
