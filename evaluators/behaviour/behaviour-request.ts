/**
 * What the behaviour metrics read of one request: when it ran, in which
 * session, what was asked, and the user events on it. Built from a stored
 * Case Result (`toBehaviourRequest`), so late events merged into it count.
 */
import type { CaseResult } from "../../contracts/case-result.js";

export interface UserEvent {
  readonly kind: string;
  readonly value: string | null;
  readonly chunkId: string | null;
  /** Milliseconds since the epoch. */
  readonly at: number;
}

export interface BehaviourRequest {
  readonly traceId: string;
  /** The session the request belongs to; a request without one is keyed by its trace (`trace:<id>`), so the windows between requests (follow-up, repeat) find no other request for it, and the per-session rates leave it out (sessions.ts identifiedSessions). */
  readonly sessionKey: string;
  readonly sessionId: string | null;
  readonly userId: string | null;
  readonly experimentId: string | null;
  readonly variant: string | null;
  readonly query: string | null;
  /** Milliseconds since the epoch. */
  readonly startedAt: number;
  /** When the answer was given; the start when the trace has no end. */
  readonly endedAt: number;
  /** The answer cited at least one chunk (a citation could be clicked). */
  readonly cited: boolean;
  /** In time order. */
  readonly events: readonly UserEvent[];
}

export function toBehaviourRequest(caseResult: CaseResult): BehaviourRequest {
  const observation = caseResult.rag_observation;
  const startedAt = Date.parse(caseResult.started_at);
  const completed = caseResult.completed_at === null ? Number.NaN : Date.parse(caseResult.completed_at);
  return {
    traceId: caseResult.trace_id,
    sessionKey: observation.session_id ?? `trace:${caseResult.trace_id}`,
    sessionId: observation.session_id,
    userId: observation.user_id,
    experimentId: observation.experiment_id,
    variant: observation.experiment_variant,
    query: observation.query,
    startedAt,
    endedAt: Number.isFinite(completed) ? completed : startedAt,
    cited: (observation.citations ?? []).length > 0,
    events: observation.feedback
      .map((entry) => ({ kind: entry.kind, value: entry.value, chunkId: entry.chunk_id, at: Date.parse(entry.recorded_at) }))
      .sort((left, right) => left.at - right.at),
  };
}

export function hasEvent(request: BehaviourRequest, kind: string): boolean {
  return request.events.some((event) => event.kind === kind);
}

/** The last event of any of these kinds (a user who changes a thumbs up to down counts as down). */
export function lastEventOf(request: BehaviourRequest, kinds: readonly string[]): UserEvent | null {
  for (let index = request.events.length - 1; index >= 0; index -= 1) {
    const event = request.events[index]!;
    if (kinds.includes(event.kind)) return event;
  }
  return null;
}
