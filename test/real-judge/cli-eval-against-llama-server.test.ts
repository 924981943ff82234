/**
 * `ragscope eval` as a user runs it, judging with a real llama-server: the
 * same setting and checks as cli-demo-against-llama-server.test.ts (see
 * there and real-cli-support.ts), read back from eval's results JSON. A file
 * of its own, so each command has the runner's 15 minutes per file.
 */

import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { after, before, test } from "node:test";
import { assertLedgerIsTheServers, run, startRealJudgeFixture, type RealJudgeFixture, type StoredEvaluation } from "./real-cli-support.js";

let fixture: RealJudgeFixture;
before(async () => {
  fixture = await startRealJudgeFixture();
});
after(async () => {
  await fixture?.stop();
});

test("ragscope eval: every judged metric in the results JSON as a value or a grader error with its reason, at the server's usage", async () => {
  const output = path.join(fixture.folder, "results.json");
  const finished = await run(["eval", "--dataset", fixture.dataset, "--task", "examples/policy-assistant/eval-task.ts", "--run-id", "real-eval", "--data-dir", path.join(fixture.folder, "eval-store"), "--output", output,
    // eval waits this long after the last case for late judge work (default 120 s); a real call here takes minutes.
    "--evaluation-timeout-ms", "600000"], fixture.environment);
  // 0 or 1: the gate decided (the example pipeline fails a rule on this case by design); 2 would be a run that could not decide.
  assert.ok(finished.status === 0 || finished.status === 1, `exit ${finished.status}\n${finished.stdout}\n${finished.stderr}`);
  const results = JSON.parse(await readFile(output, "utf8")) as { case_results: { case_result_id: string }[]; evaluation_results: (StoredEvaluation & { case_result_id: string })[] };
  assert.equal(results.case_results.length, 1);
  const caseResultId = results.case_results[0]!.case_result_id;
  assertLedgerIsTheServers(results.evaluation_results.filter((evaluation) => evaluation.case_result_id === caseResultId), fixture.proxy.exchanges, "eval");
});
