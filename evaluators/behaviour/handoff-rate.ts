import { FeedbackKind } from "../../contracts/span-attributes.js";
import { hasEvent } from "./behaviour-request.js";
import { requestObservation, type BehaviourMetricDefinition } from "./behaviour-metric.js";

/** 人工客服转接率. */
export const handoffRate: BehaviourMetricDefinition = {
  id: "handoff_rate",
  title: "Handoff-to-human rate",
  level: "request",
  kind: "rate",
  higherIsBetter: false,
  definition: "Requests with a handoff event / all requests (the dashboards' handoff rate). No window.",
  caution: "Some handoffs are right (a refund needs a person); compare it between variants or over time, not against zero.",
  measuredFrom: "user_events",
  observe: ({ requests }) => requests.map((request) => requestObservation(request, hasEvent(request, FeedbackKind.handoff) ? 1 : 0)),
};
