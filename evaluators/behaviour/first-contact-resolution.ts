import { FeedbackKind } from "../../contracts/span-attributes.js";
import { hasEvent } from "./behaviour-request.js";
import type { BehaviourMetricDefinition } from "./behaviour-metric.js";
import { sessionObservation } from "./session-observation.js";
import { identifiedSessions } from "./sessions.js";

/** 问题一次解决率. */
export const firstContactResolution: BehaviourMetricDefinition = {
  id: "first_contact_resolution",
  title: "First-contact resolution",
  level: "session",
  kind: "rate",
  higherIsBetter: true,
  definition:
    "Sessions resolved by their first answer / all sessions: the session has exactly one request, that request carries a resolved event, and no handoff or follow_up event. A session is the requests of one session id; a request without one is in no session. No window (the single request is the condition).",
  caution: "Needs the application to report resolutions; sessions it never asks about count as not resolved.",
  measuredFrom: "session_user_events",
  observe: ({ requests }) =>
    identifiedSessions(requests).map((session) => {
      const only = session.length === 1 ? session[0]! : null;
      const resolved = only !== null && hasEvent(only, FeedbackKind.resolved) && !hasEvent(only, FeedbackKind.handoff) && !hasEvent(only, FeedbackKind.followUp);
      return sessionObservation(session, resolved ? 1 : 0);
    }),
};
