/**
 * The traffic the session-rate suites store (test/e2e/session-rates-evidence.test.ts through `ragscope report`,
 * test/integration/store/session-event-counts-upgrade.test.ts across an upgrade; each works the rates out by
 * hand in its header). One service, no run (online traffic), requests at whole minutes from T0:
 *   quiet range [T0, T0 + 10 min): session q1 two requests (minutes 0, 1), q2 one (2), none with an event; a
 *     request without a session id (3) resolved — an event, but on no session;
 *   event range [T0 + 60, T0 + 70 min): s1 two requests (60, 61), the second resolved; s2 one (62), resolved —
 *     first contact; s3 one (63), no event; without a session id one resolved (64), one without events (65).
 */
import type { PlannedRequest } from "./stored-requests.js";

export const MINUTE = 60_000;
/** Whole minutes (the rollups' grain) on a whole hour, two days back. */
export const T0 = Math.floor((Date.now() - 2 * 86_400_000) / (60 * MINUTE)) * 60 * MINUTE;

export interface PlannedSessionRequest {
  id: string;
  session: string | null;
  /** Minutes after T0. */
  minute: number;
  resolved?: boolean;
}

export const SESSION_TRAFFIC: readonly PlannedSessionRequest[] = [
  { id: "q1a", session: "q1", minute: 0 },
  { id: "q1b", session: "q1", minute: 1 },
  { id: "q2a", session: "q2", minute: 2 },
  { id: "q_none", session: null, minute: 3, resolved: true },
  { id: "s1a", session: "s1", minute: 60 },
  { id: "s1b", session: "s1", minute: 61, resolved: true },
  { id: "s2a", session: "s2", minute: 62, resolved: true },
  { id: "s3a", session: "s3", minute: 63 },
  { id: "e_none_resolved", session: null, minute: 64, resolved: true },
  { id: "e_none", session: null, minute: 65 },
];

/**
 * One planned request as the sink is given it: Case Result `cr_<id>`, started 5 s into its minute, a resolved
 * event 30 s later when it is resolved; its trace id `<traceIdPrefix><index>` padded to 32 digits (each suite
 * its own prefix).
 */
export function sessionTrafficRequest(planned: PlannedSessionRequest, index: number, traceIdPrefix: string): PlannedRequest {
  const startedAtMs = T0 + planned.minute * MINUTE + 5_000;
  return {
    caseResultId: `cr_${planned.id}`,
    traceId: `${traceIdPrefix}${index}`.padStart(32, "0"),
    sessionId: planned.session,
    startedAtMs,
    feedback: planned.resolved === true ? [{ kind: "resolved", recorded_at: new Date(startedAtMs + 30_000).toISOString() }] : [],
  };
}
