/**
 * Each behaviour metric on small hand-worked sessions, including the edges of
 * its window (an edge is inside: exactly followUpMs later is a follow-up).
 * Times are minutes after T0; the expected counts are worked out in the
 * comments, not computed.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { caseResult as caseResultSchema } from "../../../../contracts/case-result.js";
import {
  behaviourMetrics,
  defaultBehaviourWindows,
  querySimilarity,
  summarize,
  toBehaviourRequest,
  type BehaviourMetricDefinition,
  type BehaviourRequest,
} from "../../../../evaluators/behaviour/index.js";

const T0 = Date.parse("2026-11-01T09:00:00.000Z");
const minute = 60_000;

interface RequestInput {
  trace: string;
  session?: string | null;
  user?: string;
  /** Minutes after T0; 0 when not given. */
  start?: number;
  end?: number;
  query?: string | null;
  cited?: boolean;
  events?: [kind: string, at: number, value?: string][];
}

function request(input: RequestInput): BehaviourRequest {
  const session = input.session === undefined ? "s1" : input.session;
  return {
    traceId: input.trace,
    sessionKey: session ?? `trace:${input.trace}`,
    sessionId: session,
    userId: input.user ?? null,
    experimentId: null,
    variant: null,
    query: input.query === undefined ? `question ${input.trace}` : input.query,
    startedAt: T0 + (input.start ?? 0) * minute,
    endedAt: T0 + (input.end ?? input.start ?? 0) * minute,
    cited: input.cited ?? false,
    events: (input.events ?? []).map(([kind, at, value]) => ({ kind, value: value ?? null, chunkId: null, at: T0 + at * minute })),
  };
}

function metric(id: string): BehaviourMetricDefinition {
  const found = behaviourMetrics.find((definition) => definition.id === id);
  assert.ok(found, id);
  return found;
}

function measure(id: string, requests: BehaviourRequest[], now = T0 + 10_000 * minute) {
  return summarize(id, metric(id).observe({ requests, windows: defaultBehaviourWindows, now }));
}

describe("behaviour metrics, hand-worked", () => {
  test("like and dislike rate: the last thumbs counts, over all requests", () => {
    const requests = [
      request({ trace: "a", events: [["thumbs_up", 1]] }),
      request({ trace: "b", events: [["thumbs_up", 1], ["thumbs_down", 2]] }), // changed to down
      request({ trace: "c" }),
      request({ trace: "d", events: [["thumbs_down", 1], ["thumbs_up", 3000]] }), // changed to up two days later
    ];
    // likes: a, d = 2 of 4; dislikes: b = 1 of 4.
    assert.deepEqual(measure("like_rate", requests), { metric: "like_rate", count: 4, total: 2, value: 0.5 });
    assert.deepEqual(measure("dislike_rate", requests), { metric: "dislike_rate", count: 4, total: 1, value: 0.25 });
    assert.equal(measure("like_rate", []).value, null, "nothing to count is null, not 0");
  });

  test("follow-up rate: next request within 10 minutes of the answer's end (edge inside), or the event", () => {
    const requests = [
      request({ trace: "a", start: 0, end: 1 }),
      request({ trace: "b", start: 11, end: 12 }), // 11 - 1 = 10 min after a's answer: a is followed up (edge)
      request({ trace: "c", start: 22.001, end: 23 }), // 10.001 min after b's answer: b is not
      request({ trace: "d", start: 30, session: "s2", events: [["follow_up", 31]] }), // explicit event
      request({ trace: "e", start: 0, session: null }), // no session: only the event could make it one
      request({ trace: "f", start: 1, session: null }),
    ];
    // followed up: a, d = 2 of 6.
    const summary = measure("follow_up_rate", requests);
    assert.deepEqual([summary.total, summary.count], [2, 6]);
  });

  test("repeated-question rate: a near-duplicate (Jaccard ≥ 0.8) asked again within 30 minutes (edge inside)", () => {
    const requests = [
      request({ trace: "a", start: 0, query: "How do refunds work?" }),
      request({ trace: "b", start: 30, query: "how do refunds work" }), // same tokens, 30 min after a (edge): repeat
      request({ trace: "c", start: 60.5, query: "How do refunds work?" }), // 30.5 after b: outside
      request({ trace: "d", start: 61, query: "how do returns work" }), // vs c: 3 shared / 5 = 0.6: not a repeat
      request({ trace: "e", start: 62, query: "退款 多久 到账" }),
      request({ trace: "f", start: 63, query: "退款多久到账？" }), // CJK per-character tokens: the same set
      request({ trace: "g", start: 64, query: null }),
    ];
    // repeats: b, f = 2 of 7.
    const summary = measure("repeated_question_rate", requests);
    assert.deepEqual([summary.total, summary.count], [2, 7]);
    assert.equal(querySimilarity("how do refunds work", "how do returns work"), 0.6);
    assert.equal(querySimilarity("a b c d e", "a b c d"), 0.8, "4 of 5: at the threshold, a repeat");
    assert.equal(querySimilarity("?", "?"), 0, "no token, nobody's duplicate");
  });

  test("copy rate and handoff rate: requests with the event / all requests", () => {
    const requests = [
      request({ trace: "a", events: [["copy", 1], ["copy", 2]] }), // twice, one request
      request({ trace: "b", events: [["handoff", 1]] }),
      request({ trace: "c" }),
    ];
    assert.deepEqual([measure("copy_rate", requests).total, measure("copy_rate", requests).count], [1, 3]);
    assert.deepEqual([measure("handoff_rate", requests).total, measure("handoff_rate", requests).count], [1, 3]);
  });

  test("an application recording only follow-up, resolved or abandoned events gives the reaction rates no data, not 0 — as the dashboards read it", () => {
    const requests = [request({ trace: "a", events: [["resolved", 1]] }), request({ trace: "b", events: [["follow_up", 1]] }), request({ trace: "c", cited: true })];
    for (const id of ["like_rate", "dislike_rate", "copy_rate", "handoff_rate", "citation_click_rate", "satisfaction"]) assert.equal(measure(id, requests).value, null, id);
    // One reaction anywhere in the period, and the others count as no reaction.
    const withReaction = [...requests, request({ trace: "d", events: [["copy", 1]] })];
    assert.deepEqual([measure("like_rate", withReaction).value, measure("copy_rate", withReaction).value], [0, 0.25]);
  });

  test("citation click rate: over answers that cited something", () => {
    const requests = [
      request({ trace: "a", cited: true, events: [["citation_click", 2]] }),
      request({ trace: "b", cited: true }),
      request({ trace: "c", cited: true }),
      request({ trace: "d", cited: false }), // nothing to click: left out
    ];
    assert.deepEqual(measure("citation_click_rate", requests), { metric: "citation_click_rate", count: 3, total: 1, value: 1 / 3 });
    assert.match(metric("citation_click_rate").caution ?? "", /not necessarily good/);
  });

  test("session resolution and first-contact resolution", () => {
    const requests = [
      request({ trace: "a1", session: "A", start: 0, events: [["resolved", 2]] }), // one request, resolved: both
      request({ trace: "b1", session: "B", start: 0 }),
      request({ trace: "b2", session: "B", start: 3, events: [["resolved", 4]] }), // resolved on the second: resolution only
      request({ trace: "c1", session: "C", start: 0, events: [["resolved", 1], ["handoff", 1]] }), // handed off: not first-contact
      request({ trace: "d1", session: "D", start: 0 }), // never resolved
    ];
    // resolved sessions: A, B, C = 3 of 4; first contact: A = 1 of 4.
    assert.deepEqual([measure("session_resolution_rate", requests).total, measure("session_resolution_rate", requests).count], [3, 4]);
    assert.deepEqual([measure("first_contact_resolution", requests).total, measure("first_contact_resolution", requests).count], [1, 4]);
  });

  test("session resolution and first-contact resolution count sessions with an id only, and no data without a session event", () => {
    const requests = [
      request({ trace: "a1", session: "A", start: 0, events: [["resolved", 2]] }), // one request, resolved: both
      request({ trace: "b1", session: "B", start: 0 }), // never resolved
      request({ trace: "n1", session: null, start: 0, events: [["resolved", 1]] }), // no session id: in no session
      request({ trace: "n2", session: null, start: 1 }),
    ];
    // Sessions A and B: resolved A = 1 of 2, first contact A = 1 of 2 (not 2 of 4 with n1 and n2 as sessions).
    for (const id of ["session_resolution_rate", "first_contact_resolution"]) {
      assert.deepEqual([measure(id, requests).total, measure(id, requests).count], [1, 2], id);
      // Only the request without a session id carries an event: no session carries one, so no data (not 0 of 1).
      const quiet = [request({ trace: "b1", session: "B", start: 0 }), request({ trace: "n1", session: null, start: 0, events: [["resolved", 1]] })];
      assert.deepEqual([measure(id, quiet).value, measure(id, quiet).count], [null, 0], id);
    }
  });

  test("abandonment: silence for 30 minutes after the last answer; undecided sessions left out", () => {
    const now = T0 + 100 * minute;
    const requests = [
      request({ trace: "a", session: "A", start: 0, end: 1 }), // silent since minute 1, 99 min ago: abandoned
      request({ trace: "b", session: "B", start: 0, end: 1, events: [["thumbs_up", 31]] }), // event exactly 30 min after: not abandoned (edge)
      request({ trace: "c", session: "C", start: 0, end: 1, events: [["thumbs_up", 31.5]] }), // event 30.5 min after: too late, abandoned
      request({ trace: "d", session: "D", start: 0, end: 69 }), // deadline 99 < now 100: decided, abandoned
      request({ trace: "e", session: "E", start: 0, end: 70 }), // deadline 100 = now: not decided yet, left out
      request({ trace: "f", session: "F", start: 90, end: 91, events: [["abandoned", 92]] }), // explicit
      request({ trace: "g", session: "G", start: 90, end: 91, events: [["resolved", 92]] }), // resolved: not abandoned, decided
    ];
    // decided: A B C D F G = 6; abandoned: A C D F = 4.
    const summary = summarize("abandonment_rate", metric("abandonment_rate").observe({ requests, windows: defaultBehaviourWindows, now }));
    assert.deepEqual([summary.total, summary.count], [4, 6]);
  });

  test("abandonment counts sessions with an id only, and no data without a session event", () => {
    const now = T0 + 100 * minute;
    const requests = [
      request({ trace: "a", session: "A", start: 0, end: 1 }), // silent since minute 1, 99 min ago: abandoned
      request({ trace: "g", session: "G", start: 90, end: 91, events: [["resolved", 92]] }), // resolved: not abandoned
      request({ trace: "n1", session: null, start: 0, end: 1 }), // no session id: in no session
      request({ trace: "n2", session: null, start: 0, end: 1 }),
      request({ trace: "n3", session: null, start: 0, end: 1, events: [["thumbs_up", 2]] }),
    ];
    // Sessions A and G, both decided; abandoned A = 1 of 2 (not 3 of 5 with n1, n2 silent and n3 answered as sessions).
    const summary = summarize("abandonment_rate", metric("abandonment_rate").observe({ requests, windows: defaultBehaviourWindows, now }));
    assert.deepEqual([summary.total, summary.count], [1, 2]);
    // Only the request without a session id carries an event: no session carries one, so no data (not 1 of 2 with n3 as a session).
    const quiet = [request({ trace: "a", session: "A", start: 0, end: 1 }), request({ trace: "n3", session: null, start: 0, end: 1, events: [["thumbs_up", 2]] })];
    const quietSummary = summarize("abandonment_rate", metric("abandonment_rate").observe({ requests: quiet, windows: defaultBehaviourWindows, now }));
    assert.deepEqual([quietSummary.value, quietSummary.count], [null, 0]);
  });

  test("satisfaction: the mean of numeric ratings, unrated requests left out", () => {
    const requests = [
      request({ trace: "a", events: [["rating", 1, "5"]] }),
      request({ trace: "b", events: [["rating", 1, "2"], ["rating", 2, "4"]] }), // the last rating: 4
      request({ trace: "c" }),
      request({ trace: "d", events: [["rating", 1, "great"]] }), // not a number: left out
    ];
    assert.deepEqual(measure("satisfaction", requests), { metric: "satisfaction", count: 2, total: 9, value: 4.5 });
  });

  test("a stored Case Result becomes a behaviour request, merged late events included", () => {
    const stored = caseResultSchema.parse({
      case_result_id: "cr",
      run_id: "",
      case_id: "",
      case_version: "",
      execution_status: "completed",
      quality_status: "not_evaluated",
      input_snapshot_uri: null,
      output: "answer",
      rag_observation: {
        query: "q",
        retrieved_chunks: null,
        context: null,
        citations: ["c1"],
        session_id: "s9",
        user_id: "u9",
        experiment_id: "e",
        experiment_variant: "B",
        feedback: [
          { kind: "rating", value: "4", recorded_at: "2026-11-03T00:00:00.000Z", span_id: "2" },
          { kind: "copy", recorded_at: "2026-11-01T09:01:00.000Z", span_id: "1" },
        ],
      },
      trace_id: "t",
      execution_error: { type: "none", message: null },
      started_at: "2026-11-01T09:00:00.000Z",
      completed_at: "2026-11-01T09:00:02.000Z",
    });
    const converted = toBehaviourRequest(stored);
    assert.equal(converted.sessionKey, "s9");
    assert.equal(converted.variant, "B");
    assert.equal(converted.cited, true);
    assert.equal(converted.endedAt - converted.startedAt, 2000);
    assert.deepEqual(converted.events.map((event) => event.kind), ["copy", "rating"], "in time order");
  });
});
