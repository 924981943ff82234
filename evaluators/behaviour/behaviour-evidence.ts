/**
 * What a behaviour metric is measured from, and whether the requests of a
 * period carry it at all. A rate over requests that could not carry its event
 * overstates certainty: an application that never records user events (or
 * sends no session ids) has every like, handoff and resolution rate at 0.0 %
 * and every session abandoned, though nothing was observed. So a metric whose
 * evidence no request of the period carries is no data, never 0; once one
 * request carries it, the definitions' own denominators apply (README.md) —
 * a user who saw an answer and gave no event then counts, as the seed's rates
 * intend.
 *
 * The period is what the metric is given: a board's range and filters, an
 * experiment's requests. The dashboards' SQL applies the same test to the
 * same requests (dashboards/source/aggregate-metrics.ts, user events).
 */
import { ANSWER_REACTION_KINDS, type FeedbackKindName } from "../../contracts/span-attributes.js";
import type { BehaviourMetricDefinition } from "./behaviour-metric.js";
import type { BehaviourRequest } from "./behaviour-request.js";

/**
 * - user_events: a user reaction to an answer (SDK recordUserEvent / recordFeedback, span rag.feedback: thumbs, copy,
 *   handoff, citation click, rating — ANSWER_REACTION_KINDS) on a request: an application that records only
 *   follow-up, resolved or abandoned events offers no reaction to count, and its like or handoff rate is not known
 *   (the dashboards probe the same kinds, so every surface says the same);
 * - session_ids: a request with a session id (the session windows need one);
 * - user_events_or_session_ids: either (a follow-up is an event, or the next request of a session soon after);
 * - session_user_events: a user event on a request with a session id (the per-session rates — resolution,
 *   first-contact resolution, abandonment — count sessions with an id only: events on requests without one say
 *   nothing of any session).
 */
export type BehaviourEvidence = "user_events" | "session_ids" | "user_events_or_session_ids" | "session_user_events";

const carriesUserEvent = (request: BehaviourRequest): boolean => request.events.length > 0;
const carriesReaction = (request: BehaviourRequest): boolean => request.events.some((event) => ANSWER_REACTION_KINDS.includes(event.kind as FeedbackKindName));
const carriesSessionId = (request: BehaviourRequest): boolean => request.sessionId !== null;

export function carriesEvidence(requests: readonly BehaviourRequest[], evidence: BehaviourEvidence): boolean {
  switch (evidence) {
    case "user_events":
      return requests.some(carriesReaction);
    case "session_ids":
      return requests.some(carriesSessionId);
    case "user_events_or_session_ids":
      return requests.some((request) => carriesUserEvent(request) || carriesSessionId(request));
    case "session_user_events":
      return requests.some((request) => carriesUserEvent(request) && carriesSessionId(request));
  }
}

const WHAT: Record<BehaviourEvidence, string> = { user_events: "a reaction to its answer (thumbs, copy, handoff, citation click or rating)", session_ids: "a session id", user_events_or_session_ids: "a user event or a session id", session_user_events: "a user event and a session id" };

/** The sentence the definitions end with. */
export function missingEvidence(evidence: BehaviourEvidence): string {
  return `No data (not 0) when no request of the period carries ${WHAT[evidence]}.`;
}

/** What a board says of a metric whose evidence no request of its range carries. */
export function noEvidenceInRange(evidence: BehaviourEvidence): string {
  return `No request of the range carries ${WHAT[evidence]}: no data, not 0.`;
}

/** What an experiment's report says of an arm none of whose requests carries a metric's evidence. */
export function noEvidenceInArm(evidence: BehaviourEvidence): string {
  return `none of its requests carries ${WHAT[evidence]}, so its rate is not known (not 0); check that the variant records them`;
}

/** The definition observing nothing — no data — where the period's requests lack its evidence; its words say so. */
export function measuredOnlyWithEvidence(definition: BehaviourMetricDefinition): BehaviourMetricDefinition {
  return {
    ...definition,
    definition: `${definition.definition} ${missingEvidence(definition.measuredFrom)}`,
    observe: (context) => (carriesEvidence(context.requests, definition.measuredFrom) ? definition.observe(context) : []),
  };
}
