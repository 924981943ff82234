import { FeedbackKind } from "../../contracts/span-attributes.js";
import { readRating } from "../../core/rating-value.js";
import { lastEventOf } from "./behaviour-request.js";
import { requestObservation, type BehaviourMetricDefinition } from "./behaviour-metric.js";

/** 用户满意度, where a score is given. */
export const satisfaction: BehaviourMetricDefinition = {
  id: "satisfaction",
  title: "User satisfaction",
  level: "request",
  kind: "mean",
  higherIsBetter: true,
  definition:
    "Mean of the rating events' values over requests that carry a numeric rating (the last one when rated twice), on the application's own scale. Requests without a rating are left out, not counted as 0. No window.",
  caution: "Only users who choose to rate are counted, and they are rarely typical.",
  measuredFrom: "user_events",
  observe: ({ requests }) =>
    requests.flatMap((request) => {
      const rating = lastEventOf(request, [FeedbackKind.rating]);
      // The engine's reading (core/rating-value.ts), so the UI, the report's behaviour table and Grafana count the same ratings.
      const score = readRating(rating?.value);
      return score === null ? [] : [requestObservation(request, score)];
    }),
};
