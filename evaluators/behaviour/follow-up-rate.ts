import { FeedbackKind } from "../../contracts/span-attributes.js";
import { hasEvent } from "./behaviour-request.js";
import { requestObservation, type BehaviourMetricDefinition } from "./behaviour-metric.js";
import { nextRequests } from "./sessions.js";

/** 追问率. */
export const followUpRate: BehaviourMetricDefinition = {
  id: "follow_up_rate",
  title: "Follow-up rate",
  level: "request",
  kind: "rate",
  higherIsBetter: false,
  definition:
    "Requests followed up / all requests. A request is followed up when it carries a follow_up event, or when the next request of the same session starts at most followUpMs (default 10 minutes) after this answer ended (edge included). Requests without a session id are followed up only by the event.",
  caution: "A high follow-up rate may mean incomplete answers — or an engaged user exploring a topic.",
  measuredFrom: "user_events_or_session_ids",
  observe: ({ requests, windows }) => {
    const next = nextRequests(requests);
    return requests.map((request) => {
      const following = next.get(request.traceId);
      const derived = following !== undefined && request.sessionId !== null && following.startedAt - request.endedAt <= windows.followUpMs;
      return requestObservation(request, derived || hasEvent(request, FeedbackKind.followUp) ? 1 : 0);
    });
  },
};
