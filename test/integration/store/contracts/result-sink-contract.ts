/** The ResultSink and QuarantineSink contract, read back through the RunReader. */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createDefaultRegistry } from "../../../../evaluators/default-registry.js";
import { evaluateCaseResult } from "../../../../evaluators/evaluate-case-result.js";
import { seedExample } from "../../../support/case-results.js";
import type { StoreFactory, StoreUnderTest } from "./store-under-test.js";

export function resultSinkContract(name: string, factory: StoreFactory): void {
  describe(`ResultSink: ${name}`, () => {
    let clock = Date.parse("2026-07-08T10:00:00.000Z");
    let subject: StoreUnderTest;
    before(async () => {
      subject = await factory({ now: () => clock });
    });
    after(() => subject.cleanup());

    test("a written result is read back whole; writing it again replaces, never adds", async () => {
      const { caseResult, evalCase } = seedExample();
      await subject.store.cases.put([evalCase]);
      const evaluation = evaluateCaseResult(createDefaultRegistry(), { ...caseResult, case_version: evalCase.case_version }, evalCase, "2026-07-08T09:32:01.000Z");
      assert.deepEqual(await subject.store.results.write([evaluation]), { ok: true, value: undefined });
      clock += 1_000;
      assert.deepEqual(await subject.store.results.write([evaluation]), { ok: true, value: undefined });
      assert.equal(await subject.store.reader.countCaseResults(caseResult.run_id), 1);
      const [stored, ...rest] = await subject.store.reader.loadRunCases(caseResult.run_id);
      assert.equal(rest.length, 0);
      assert.deepEqual(stored!.caseResult, evaluation.caseResult);
      const byId = (items: readonly { evaluation_result_id: string }[]) => [...items].sort((first, second) => (first.evaluation_result_id < second.evaluation_result_id ? -1 : 1));
      assert.deepEqual(byId(stored!.evaluationResults), byId(evaluation.evaluationResults));
      assert.deepEqual(stored!.evalCase, evalCase);
    });

    test("a result rebuilt from a partial trace never replaces the complete one, whatever the clock", async () => {
      const { caseResult, evalCase } = seedExample();
      const complete = evaluateCaseResult(createDefaultRegistry(), { ...caseResult, run_id: "run_partial" }, evalCase, "2026-07-08T09:32:01.000Z");
      const partialCase = { ...complete.caseResult, output: "only the tail", rag_observation: { ...complete.caseResult.rag_observation, partial_trace: true } };
      const partial = evaluateCaseResult(createDefaultRegistry(), partialCase, evalCase, "2026-07-08T09:40:00.000Z");
      await subject.store.results.write([complete]);
      clock += 60_000;
      await subject.store.results.write([partial]);
      const [stored] = await subject.store.reader.loadRunCases("run_partial");
      assert.equal(stored!.caseResult.output, complete.caseResult.output);
    });

    test("quarantined results are kept, one per Case Result", async () => {
      const { caseResult, evalCase } = seedExample();
      const evaluation = evaluateCaseResult(createDefaultRegistry(), { ...caseResult, case_result_id: "cr_quarantined" }, evalCase, "2026-07-08T09:32:01.000Z");
      assert.deepEqual(await subject.store.quarantine.quarantine([evaluation], "CANNOT_PARSE_TEXT"), { ok: true, value: undefined });
      assert.deepEqual(await subject.store.quarantine.quarantine([evaluation], "CANNOT_PARSE_TEXT"), { ok: true, value: undefined });
      assert.deepEqual(await subject.quarantinedIds(), ["cr_quarantined"]);
    });
  });
}
