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

    // A case sent again twice within one batch, both requests judged in one judge write, the store's clock standing
    // still: each request's verdict rewrite takes a version of its own in the batch's order (store/row-version-clock.ts),
    // so the later request stays the newest, with its judge results. Before, both rewrites had the write's version and
    // the request the list shows first (the later start: here the earlier request) became the newest.
    test("two requests of one case judged in one write: the later one stays the newest, with its judge results", async () => {
      const { caseResult, evalCase } = seedExample();
      await subject.store.cases.put([evalCase]);
      const requestOf = (traceId: string, startedAt: string) =>
        evaluateCaseResult(createDefaultRegistry(), { ...caseResult, case_result_id: "cr_judged_twice", run_id: "run_judged_twice", trace_id: traceId, started_at: startedAt, completed_at: startedAt }, evalCase, "2026-07-08T09:32:01.000Z");
      // A day apart (after midnight UTC), so that each request keeps Evaluation Results of its own; the earlier listed first.
      const earlier = requestOf("f1".repeat(16), "2026-07-09T00:01:00.000Z");
      const later = requestOf("f2".repeat(16), "2026-07-08T23:59:00.000Z");
      assert.ok((await subject.store.results.write([earlier, later])).ok);
      const judgedOf = async (request: typeof earlier) => ({ caseResult: request.caseResult, evaluationResults: await runJudgeEvaluations(new HeuristicJudge(), request.caseResult, evalCase, "2026-07-08T09:33:00.000Z"), evalCase });
      const batch = [await judgedOf(earlier), await judgedOf(later)];
      assert.ok(batch.every((judged) => judged.evaluationResults.length > 0), "the heuristic judge applies to the seed example");
      assert.deepEqual(await subject.store.judgeResults.write(batch), { ok: true, value: undefined });
      await subject.settle();

      const newest = await subject.store.traces.readTrace("cr_judged_twice");
      assert.equal(newest?.caseResult.trace_id, "f2".repeat(16), "the later request");
      const judgeIds = batch[1]!.evaluationResults.map((result) => result.evaluator_id);
      assert.deepEqual(
        newest.evaluationResults.filter((result) => judgeIds.includes(result.evaluator_id)).map((result) => [result.evaluator_id, result.case_result_id]),
        batch[1]!.evaluationResults.map((result) => [result.evaluator_id, result.case_result_id]).sort(),
        "with its judge results",
      );
      assert.deepEqual((await subject.store.reader.loadRunCases("run_judged_twice")).map((loaded) => loaded.caseResult.trace_id), ["f2".repeat(16)]);
    });

    test("an empty batch writes nothing", async () => {
      assert.deepEqual(await subject.store.judgeResults.write([]), { ok: true, value: undefined });
    });
  });
}
