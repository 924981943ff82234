/** Requests grouped by session, each session in time order (ties by trace id, so the order is deterministic). */
import type { BehaviourRequest } from "./behaviour-request.js";

export function groupSessions(requests: readonly BehaviourRequest[]): BehaviourRequest[][] {
  const sessions = new Map<string, BehaviourRequest[]>();
  for (const request of requests) {
    const list = sessions.get(request.sessionKey) ?? [];
    list.push(request);
    sessions.set(request.sessionKey, list);
  }
  return [...sessions.values()].map((list) => list.sort((left, right) => left.startedAt - right.startedAt || left.traceId.localeCompare(right.traceId)));
}

/**
 * The sessions with an id, each in time order: what the per-session rates count (session resolution, first-contact
 * resolution, abandonment). A request without a session id belongs to no session; counting it as a session of its own
 * inflated their denominator.
 */
export function identifiedSessions(requests: readonly BehaviourRequest[]): BehaviourRequest[][] {
  return groupSessions(requests.filter((request) => request.sessionId !== null));
}

/** The request that came next in the same session, if any. */
export function nextRequests(requests: readonly BehaviourRequest[]): Map<string, BehaviourRequest> {
  const next = new Map<string, BehaviourRequest>();
  for (const session of groupSessions(requests)) {
    for (let index = 0; index + 1 < session.length; index += 1) next.set(session[index]!.traceId, session[index + 1]!);
  }
  return next;
}
