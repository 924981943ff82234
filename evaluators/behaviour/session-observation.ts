/** One observation for a whole session, filed under its first request (its variant and user). */
import type { BehaviourRequest } from "./behaviour-request.js";
import type { BehaviourObservation } from "./behaviour-metric.js";

export function sessionObservation(session: readonly BehaviourRequest[], value: number): BehaviourObservation {
  const first = session[0]!;
  return { traceId: first.traceId, sessionKey: first.sessionKey, userId: first.userId, variant: first.variant, value };
}

/** The last moment anything happened in the session: a request's end or a user event. */
export function lastActivity(session: readonly BehaviourRequest[]): number {
  let last = Number.NEGATIVE_INFINITY;
  for (const request of session) {
    last = Math.max(last, request.endedAt);
    for (const event of request.events) last = Math.max(last, event.at);
  }
  return last;
}
