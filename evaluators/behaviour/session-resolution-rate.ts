import { FeedbackKind } from "../../contracts/span-attributes.js";
import { hasEvent } from "./behaviour-request.js";
import type { BehaviourMetricDefinition } from "./behaviour-metric.js";
import { sessionObservation } from "./session-observation.js";
import { groupSessions } from "./sessions.js";

/** 会话解决率. */
export const sessionResolutionRate: BehaviourMetricDefinition = {
  id: "session_resolution_rate",
  title: "Session resolution rate",
  level: "session",
  kind: "rate",
  higherIsBetter: true,
  definition: "Sessions with a resolved event on any of their requests / all sessions. Only what the application reports: an unreported resolution is not one. No window.",
  caution: "Depends on the application asking; compare it only between sessions where it asks the same way.",
  measuredFrom: "user_events",
  observe: ({ requests }) => groupSessions(requests).map((session) => sessionObservation(session, session.some((request) => hasEvent(request, FeedbackKind.resolved)) ? 1 : 0)),
};
