/**
 * The late-event merge rules both stores share: which results are late events,
 * which stored result they join (trace, tenant), and that an event is added once.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { caseResult as caseResultSchema, type CaseResult } from "../../../contracts/case-result.js";
import { isLateFeedback, mergeFeedback, planLateFeedback } from "../../../store/late-feedback/merge-late-feedback.js";
import { onlineCaseResult } from "../../support/online-case-results.js";

const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";

function lateEvent(spanId: string, kind: string, recordedAt: string, tenantId: string | null = null): CaseResult {
  const base = onlineCaseResult({ traceId, tenantId });
  return caseResultSchema.parse({
    ...base,
    execution_status: "partial",
    output: null,
    rag_observation: { ...base.rag_observation, partial_trace: true, span_count: 1, feedback: [{ kind, recorded_at: recordedAt, span_id: spanId }] },
  });
}

describe("late user events", () => {
  const stored = onlineCaseResult({ traceId, output: "answer", tenantId: "acme" });

  test("a result made of feedback spans only is a late event; a request with feedback is not", () => {
    assert.equal(isLateFeedback(lateEvent("a1", "copy", "2026-07-10T00:00:00.000Z")), true);
    const withFeedback = { ...stored, rag_observation: { ...stored.rag_observation, span_count: 4, feedback: lateEvent("a1", "copy", "2026-07-10T00:00:00.000Z").rag_observation.feedback } };
    assert.equal(isLateFeedback(withFeedback), false);
  });

  test("an event already stored (same span id) is not added again", () => {
    const once = mergeFeedback(stored, lateEvent("a1", "copy", "2026-07-10T00:00:00.000Z").rag_observation.feedback);
    assert.ok(once);
    assert.equal(once.rag_observation.feedback.length, 1);
    assert.equal(mergeFeedback(once, lateEvent("a1", "copy", "2026-07-10T00:00:00.000Z").rag_observation.feedback), null);
  });

  test("joins the stored result of its trace; a credential of another tenant does not", () => {
    const sameTenant = planLateFeedback([{ caseResult: lateEvent("b1", "handoff", "2026-07-10T00:00:00.000Z", "acme") }], [stored]);
    assert.equal(sameTenant.batch.length, 0);
    assert.equal(sameTenant.rewrites.length, 1);
    assert.equal(sameTenant.mergedEvents, 1);
    const otherTenant = planLateFeedback([{ caseResult: lateEvent("b1", "handoff", "2026-07-10T00:00:00.000Z", "globex") }], [stored]);
    assert.equal(otherTenant.batch.length, 1, "kept as its own partial result, not merged into another tenant's");
    assert.equal(otherTenant.rewrites.length, 0);
  });

  test("a request and its late events in one batch: the request carries them, in time order", () => {
    const plan = planLateFeedback(
      [{ caseResult: lateEvent("c2", "rating", "2026-07-11T00:00:00.000Z") }, { caseResult: stored }, { caseResult: lateEvent("c1", "copy", "2026-07-10T00:00:00.000Z") }],
      [],
    );
    assert.equal(plan.batch.length, 1);
    assert.deepEqual(plan.batch[0]!.caseResult.rag_observation.feedback.map((entry) => entry.kind), ["copy", "rating"]);
    assert.equal(plan.rewrites.length, 0);
  });
});
