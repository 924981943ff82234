/**
 * The sink's counters behind ragscope_traces_evaluated_total and ragscope_traces_written_total (the Kafka roles'
 * /metrics): two requests of one run's case keep one Case Result id (contracts/ids.ts), and written together they are
 * two traces evaluated, as they are two written. The retry bookkeeping that keeps a batch offered again after a failed
 * write from counting twice was keyed by the Case Result id alone, so the second request counted as already offered:
 * on `collect`, 34 traces evaluated against 60 written. The store here is a stand-in that refuses its first write
 * (result-sink.ts: tests may supply another implementation of the interface).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { encodeTraceRequestJson } from "../../../collector/00-otlp/encode-json.js";
import { MeasuredSink } from "../../../collector/wiring/observe/measured-sink.js";
import { failure, success } from "../../../core/result.js";
import type { CaseEvaluation } from "../../../evaluators/evaluate-case-result.js";
import type { ResultSink } from "../../../store/ports/result-sink.js";
import { replayTrace } from "../../golden/replay-golden.js";
import { syntheticSpan, text } from "../../support/synthetic-otlp-requests.js";

class RefusesFirstWrite implements ResultSink {
  writes = 0;
  async write() {
    this.writes += 1;
    return this.writes === 1 ? failure({ retriable: true, message: "the store did not answer" }) : success(undefined);
  }
  async close(): Promise<void> {}
}

/** Two requests (traces 2 and 3) of case case-a in run run-2, evaluated as the collector evaluates them. */
async function twoRequestsOfOneCase(): Promise<CaseEvaluation[]> {
  const linkage = [text("ragscope.stage", "request"), text("ragscope.run_id", "run-2"), text("ragscope.case_id", "case-a"), text("ragscope.case_version", "1")];
  const spans = [syntheticSpan(2, 0, linkage), syntheticSpan(3, 0, linkage)];
  const json = encodeTraceRequestJson({
    resourceSpans: [{ resource: { attributes: [text("service.name", "shop-bot")], droppedAttributesCount: 0 }, scopeSpans: [{ scope: { name: "s", version: "1", attributes: [], droppedAttributesCount: 0 }, spans, schemaUrl: "" }], schemaUrl: "" }],
  });
  return replayTrace(json, []);
}

test("two requests of one Case Result id in one write: two traces evaluated and two written, once each across a retried write", async () => {
  const batch = await twoRequestsOfOneCase();
  assert.equal(batch.length, 2);
  assert.equal(batch[0]!.caseResult.case_result_id, batch[1]!.caseResult.case_result_id, "one Case Result id under both requests");
  assert.notEqual(batch[0]!.caseResult.trace_id, batch[1]!.caseResult.trace_id);
  const sink = new MeasuredSink(new RefusesFirstWrite(), null);
  assert.equal((await sink.write(batch)).ok, false);
  assert.equal(sink.counters.tracesEvaluated, 2, "both offered");
  assert.equal((await sink.write(batch)).ok, true, "the worker offers the batch again");
  assert.equal(sink.counters.tracesEvaluated, 2, "the retry is not counted again");
  assert.equal(sink.counters.traces, 2);
  assert.equal(sink.counters.spansEvaluated, sink.counters.spans);
});
