import { FeedbackKind } from "../../contracts/span-attributes.js";
import { hasEvent } from "./behaviour-request.js";
import type { BehaviourMetricDefinition } from "./behaviour-metric.js";
import { sessionObservation } from "./session-observation.js";
import { identifiedSessions } from "./sessions.js";

/** 会话解决率. */
export const sessionResolutionRate: BehaviourMetricDefinition = {
  id: "session_resolution_rate",
  title: "Session resolution rate",
  level: "session",
  kind: "rate",
  higherIsBetter: true,
  definition: "Sessions with a resolved event on any of their requests / all sessions. A session is the requests of one session id; a request without one is in no session. Only what the application reports: an unreported resolution is not one. No window.",
  caution: "Depends on the application asking; compare it only between sessions where it asks the same way.",
  measuredFrom: "session_user_events",
  observe: ({ requests }) => identifiedSessions(requests).map((session) => sessionObservation(session, session.some((request) => hasEvent(request, FeedbackKind.resolved)) ? 1 : 0)),
};
