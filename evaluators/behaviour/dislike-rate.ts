import { FeedbackKind } from "../../contracts/span-attributes.js";
import { lastEventOf } from "./behaviour-request.js";
import { requestObservation, type BehaviourMetricDefinition } from "./behaviour-metric.js";

const THUMBS = [FeedbackKind.thumbsUp, FeedbackKind.thumbsDown];

/** 点踩率. */
export const dislikeRate: BehaviourMetricDefinition = {
  id: "dislike_rate",
  title: "Dislike rate",
  level: "request",
  kind: "rate",
  higherIsBetter: false,
  definition: "Requests whose last thumbs event is thumbs_down / all requests. No window: an event days later counts.",
  caution: "Counted over all requests, not over rated ones, so a change in how often users rate moves it too.",
  measuredFrom: "user_events",
  observe: ({ requests }) => requests.map((request) => requestObservation(request, lastEventOf(request, THUMBS)?.kind === FeedbackKind.thumbsDown ? 1 : 0)),
};
