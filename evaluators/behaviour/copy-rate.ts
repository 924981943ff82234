import { FeedbackKind } from "../../contracts/span-attributes.js";
import { hasEvent } from "./behaviour-request.js";
import { requestObservation, type BehaviourMetricDefinition } from "./behaviour-metric.js";

/** 答案复制率. */
export const copyRate: BehaviourMetricDefinition = {
  id: "copy_rate",
  title: "Answer copy rate",
  level: "request",
  kind: "rate",
  higherIsBetter: true,
  definition: "Requests with at least one copy event / all requests. No window.",
  caution: "Copying suggests the answer was used; it says nothing about whether it was right.",
  measuredFrom: "user_events",
  observe: ({ requests }) => requests.map((request) => requestObservation(request, hasEvent(request, FeedbackKind.copy) ? 1 : 0)),
};
