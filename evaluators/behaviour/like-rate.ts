import { FeedbackKind } from "../../contracts/span-attributes.js";
import { lastEventOf } from "./behaviour-request.js";
import { requestObservation, type BehaviourMetricDefinition } from "./behaviour-metric.js";

const THUMBS = [FeedbackKind.thumbsUp, FeedbackKind.thumbsDown];

/** 点赞率. */
export const likeRate: BehaviourMetricDefinition = {
  id: "like_rate",
  title: "Like rate",
  level: "request",
  kind: "rate",
  higherIsBetter: true,
  definition: "Requests whose last thumbs event is thumbs_up / all requests. A user who changes a thumbs up to down counts as down. No window: an event days later counts.",
  caution: "Few users rate; the rate is a floor of satisfaction, not its measure.",
  measuredFrom: "user_events",
  observe: ({ requests }) => requests.map((request) => requestObservation(request, lastEventOf(request, THUMBS)?.kind === FeedbackKind.thumbsUp ? 1 : 0)),
};
