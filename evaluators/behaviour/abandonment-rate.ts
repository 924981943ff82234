import { FeedbackKind } from "../../contracts/span-attributes.js";
import { hasEvent } from "./behaviour-request.js";
import type { BehaviourMetricDefinition } from "./behaviour-metric.js";
import { sessionObservation } from "./session-observation.js";
import { identifiedSessions } from "./sessions.js";

/**
 * 用户主动放弃率: a per-session rate, so it counts the sessions the session rates count (identifiedSessions) — a
 * request without a session id is in no session; taken as a session of its own, every such request left unrated
 * counted as one more abandoned session. Its silence test needs events recorded on sessions: where no session of the
 * period carries a user event, the silence of its sessions says nothing, and the rate is no data, not 100 %.
 */
export const abandonmentRate: BehaviourMetricDefinition = {
  id: "abandonment_rate",
  title: "User abandonment rate",
  level: "session",
  kind: "rate",
  higherIsBetter: false,
  definition:
    "Abandoned sessions / decided sessions. A session is the requests of one session id; a request without one is in no session. A session is abandoned when it carries an abandoned event, or when it is not resolved, not handed off, and its last request got no user event within abandonMs (default 30 minutes) after its answer ended. A session whose last answer is younger than abandonMs (and has no abandoned, resolved or handoff event) is not decided yet and is left out; an event exactly abandonMs after the answer still counts (edge included).",
  caution: "Silence is not always failure: a user who got the answer and left looks the same. Read it with the resolution and like rates.",
  measuredFrom: "session_user_events",
  observe: ({ requests, windows, now }) =>
    identifiedSessions(requests).flatMap((session) => {
      const explicit = session.some((request) => hasEvent(request, FeedbackKind.abandoned));
      if (explicit) return [sessionObservation(session, 1)];
      if (session.some((request) => hasEvent(request, FeedbackKind.resolved) || hasEvent(request, FeedbackKind.handoff))) return [sessionObservation(session, 0)];
      const last = session.at(-1)!;
      const deadline = last.endedAt + windows.abandonMs;
      const answered = last.events.some((event) => event.at >= last.endedAt && event.at <= deadline);
      if (answered) return [sessionObservation(session, 0)];
      if (now <= deadline) return [];
      return [sessionObservation(session, 1)];
    }),
};
