/**
 * The JudgeResultSink contract: judge results land beside the rule results,
 * the case's verdict is decided again over both (checked against
 * decideCaseVerdict on the same inputs), and a replay keeps one copy.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { decideCaseVerdict } from "../../../../evaluators/case-verdict.js";
import { createDefaultRegistry } from "../../../../evaluators/default-registry.js";
import { evaluateCaseResult } from "../../../../evaluators/evaluate-case-result.js";
import { HeuristicJudge } from "../../../../evaluators/judge/heuristic-judge.js";
import { runJudgeEvaluations } from "../../../../evaluators/judge/judge-evaluations.js";
import { seedExample } from "../../../support/case-results.js";
import type { StoreFactory, StoreUnderTest } from "./store-under-test.js";

export function judgeResultSinkContract(name: string, factory: StoreFactory): void {
  describe(`JudgeResultSink: ${name}`, () => {
    let clock = Date.parse("2026-07-08T10:00:00.000Z");
    let subject: StoreUnderTest;
    before(async () => {
      subject = await factory({ now: () => clock });
    });
    after(() => subject.cleanup());

    test("judge results are stored beside the rule results and the case's verdict is decided over both", async () => {
      const { caseResult, evalCase } = seedExample();
      await subject.store.cases.put([evalCase]);
      const rules = evaluateCaseResult(createDefaultRegistry(), { ...caseResult, run_id: "run_judged" }, evalCase, "2026-07-08T09:32:01.000Z");
      await subject.store.results.write([rules]);
      clock += 1_000;
      const judged = await runJudgeEvaluations(new HeuristicJudge(), rules.caseResult, evalCase, "2026-07-08T09:33:00.000Z");
      assert.ok(judged.length > 0, "the heuristic judge applies to the seed example");
      const batch = [{ caseResult: rules.caseResult, evaluationResults: judged, evalCase }];
      assert.deepEqual(await subject.store.judgeResults.write(batch), { ok: true, value: undefined });
      assert.deepEqual(await subject.store.judgeResults.write(batch), { ok: true, value: undefined });

      const [stored] = await subject.store.reader.loadRunCases("run_judged");
      const ids = stored!.evaluationResults.map((result) => result.evaluation_result_id);
      assert.equal(new Set(ids).size, ids.length, "one copy of each Evaluation Result");
      for (const result of judged) assert.ok(ids.includes(result.evaluation_result_id), `${result.evaluator_id} stored`);
      for (const result of rules.evaluationResults.filter((item) => item.evaluator_id !== "root_cause")) assert.ok(ids.includes(result.evaluation_result_id), `${result.evaluator_id} kept`);
      const expected = decideCaseVerdict(rules.caseResult, evalCase, [...rules.evaluationResults, ...judged], new Date(clock).toISOString());
      assert.equal(stored!.caseResult.quality_status, expected.caseResult.quality_status);
    });

    test("an empty batch writes nothing", async () => {
      assert.deepEqual(await subject.store.judgeResults.write([]), { ok: true, value: undefined });
    });
  });
}
