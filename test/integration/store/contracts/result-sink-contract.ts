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

    test("a late user event joins its request's stored result, once; one for an unknown request is kept", async () => {
      const { caseResult, evalCase } = seedExample();
      const request = evaluateCaseResult(createDefaultRegistry(), { ...caseResult, run_id: "run_late" }, evalCase, "2026-07-08T09:32:01.000Z");
      await subject.store.results.write([request]);
      // What the collector rebuilds from a trace holding one feedback span of that request, days later.
      const lateEvent = (spanId: string, kind: string, traceId = request.caseResult.trace_id) => {
        const lone = { ...request.caseResult, case_result_id: `cr_late_${spanId}`, trace_id: traceId, run_id: "", case_id: "", case_version: "", output: null, started_at: "2026-07-11T08:00:00.000Z" };
        const observation = { ...lone.rag_observation, partial_trace: true, span_count: 1, feedback: [{ kind, value: null, comment: null, recorded_at: "2026-07-11T08:00:00.000Z", span_id: spanId, chunk_id: null }] };
        return evaluateCaseResult(createDefaultRegistry(), { ...lone, rag_observation: observation }, null, "2026-07-11T08:00:01.000Z");
      };
      clock += 60_000;
      assert.deepEqual(await subject.store.results.write([lateEvent("aaaaaaaaaaaaaaaa", "copy")]), { ok: true, value: undefined });
      clock += 60_000;
      assert.deepEqual(await subject.store.results.write([lateEvent("aaaaaaaaaaaaaaaa", "copy")]), { ok: true, value: undefined }, "the replay");
      const [stored, ...others] = await subject.store.reader.loadRunCases("run_late");
      assert.equal(others.length, 0);
      assert.equal(stored!.caseResult.output, request.caseResult.output, "still the complete result");
      assert.deepEqual(stored!.caseResult.rag_observation.feedback.map((entry) => [entry.kind, entry.span_id]), [["copy", "aaaaaaaaaaaaaaaa"]]);
      const orphan = lateEvent("bbbbbbbbbbbbbbbb", "handoff", "5a0c9e1d2b3f4a6c8e7d9f0a1b2c3d4e");
      await subject.store.results.write([orphan]);
      const kept = await subject.store.traces.readTrace(orphan.caseResult.case_result_id);
      assert.ok(kept !== null, "an event for a request the store never saw is kept");
    });

    // One write carries a late user event of a stored request and the same case sent again (a new request), the
    // store's clock standing still. The stored request's rewrite with the event arrived before the new request
    // (store/row-version-clock.ts: of one case's requests in a write, the later takes the higher version), so the new
    // request is the case's newest and the stored one keeps the event. Here the stored request starts later, so the
    // list's order alone (or the rewrite written after the batch's requests) would make it the newest again.
    test("a late event of a stored request and the case sent again in one write: the new request is the newest", async () => {
      const { caseResult, evalCase } = seedExample();
      const requestOf = (traceId: string, startedAt: string) =>
        evaluateCaseResult(createDefaultRegistry(), { ...caseResult, case_result_id: "cr_late_and_again", run_id: "run_late_and_again", trace_id: traceId, started_at: startedAt, completed_at: startedAt }, evalCase, "2026-07-08T09:32:01.000Z");
      const stored = requestOf("a1".repeat(16), "2026-07-13T00:01:00.000Z");
      const sentAgain = requestOf("a2".repeat(16), "2026-07-12T23:59:00.000Z");
      assert.ok((await subject.store.results.write([stored])).ok);
      const lone = { ...stored.caseResult, case_result_id: "cr_late_of_a1", run_id: "", case_id: "", case_version: "", output: null, started_at: "2026-07-13T08:00:00.000Z" };
      const observation = { ...lone.rag_observation, partial_trace: true, span_count: 1, feedback: [{ kind: "copy", value: null, comment: null, recorded_at: "2026-07-13T08:00:00.000Z", span_id: "cccccccccccccccc", chunk_id: null }] };
      const lateEvent = evaluateCaseResult(createDefaultRegistry(), { ...lone, rag_observation: observation }, null, "2026-07-13T08:00:01.000Z");
      assert.ok((await subject.store.results.write([lateEvent, sentAgain])).ok);

      assert.equal((await subject.store.traces.readTrace("cr_late_and_again"))?.caseResult.trace_id, "a2".repeat(16), "the new request is the newest");
      assert.deepEqual((await subject.store.reader.loadRunCases("run_late_and_again")).map((loaded) => loaded.caseResult.trace_id), ["a2".repeat(16)]);
      const withEvent = await subject.store.traces.readTrace("cr_late_and_again", { traceId: "a1".repeat(16) });
      assert.deepEqual(withEvent?.caseResult.rag_observation.feedback.map((entry) => entry.span_id), ["cccccccccccccccc"], "the stored request keeps the late event");
    });

    test("quarantined results are kept, one per Case Result", async () => {
      const { caseResult, evalCase } = seedExample();
      const evaluation = evaluateCaseResult(createDefaultRegistry(), { ...caseResult, case_result_id: "cr_quarantined" }, evalCase, "2026-07-08T09:32:01.000Z");
      assert.deepEqual(await subject.store.quarantine.quarantine([evaluation], "CANNOT_PARSE_TEXT"), { ok: true, value: undefined });
      assert.deepEqual(await subject.store.quarantine.quarantine([evaluation], "CANNOT_PARSE_TEXT"), { ok: true, value: undefined });
      assert.deepEqual(await subject.quarantinedIds(), ["cr_quarantined"]);
    });

    // The store's row versions (store/row-version-clock.ts): a case refused again replaces its quarantined row with the
    // later error, even after the clock stepped back; versioned by the clock alone, the earlier row was kept.
    test("a case quarantined again keeps the later error, whatever the clock did", async () => {
      const { caseResult, evalCase } = seedExample();
      const evaluation = evaluateCaseResult(createDefaultRegistry(), { ...caseResult, case_result_id: "cr_quarantined_again" }, evalCase, "2026-07-08T09:32:01.000Z");
      assert.deepEqual(await subject.store.quarantine.quarantine([evaluation], "CANNOT_PARSE_TEXT"), { ok: true, value: undefined });
      clock -= 5_000;
      assert.deepEqual(await subject.store.quarantine.quarantine([evaluation], "VIOLATED_CONSTRAINT"), { ok: true, value: undefined });
      clock += 5_000;
      assert.deepEqual((await subject.quarantinedErrors()).filter(([id]) => id === "cr_quarantined_again"), [["cr_quarantined_again", "VIOLATED_CONSTRAINT"]]);
    });
  });
}
