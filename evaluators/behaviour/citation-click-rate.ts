import { FeedbackKind } from "../../contracts/span-attributes.js";
import { hasEvent } from "./behaviour-request.js";
import { requestObservation, type BehaviourMetricDefinition } from "./behaviour-metric.js";

/** 引用点击率. */
export const citationClickRate: BehaviourMetricDefinition = {
  id: "citation_click_rate",
  title: "Citation click rate",
  level: "request",
  kind: "rate",
  higherIsBetter: null,
  definition: "Requests with at least one citation_click event / requests whose answer cited at least one chunk (nothing to click otherwise). No window.",
  caution: "A high citation-click rate is not necessarily good: it may mean users do not trust the answer and check its sources.",
  measuredFrom: "user_events",
  observe: ({ requests }) => requests.filter((request) => request.cited).map((request) => requestObservation(request, hasEvent(request, FeedbackKind.citationClick) ? 1 : 0)),
};
