import { requestObservation, type BehaviourMetricDefinition } from "./behaviour-metric.js";
import { querySimilarity } from "./query-similarity.js";
import { groupSessions } from "./sessions.js";

/** 重复提问率. */
export const repeatedQuestionRate: BehaviourMetricDefinition = {
  id: "repeated_question_rate",
  title: "Repeated-question rate",
  level: "request",
  kind: "rate",
  higherIsBetter: false,
  definition:
    "Requests that repeat an earlier question / all requests. A request repeats when an earlier request of the same session, started at most repeatMs (default 30 minutes) before it (edge included), has a near-duplicate query: Jaccard similarity of normalised query tokens at least repeatSimilarity (default 0.8; query-similarity.ts). A request without a query or a session id never repeats.",
  caution: "A high repeated-question rate may mean the system did not understand the question.",
  measuredFrom: "session_ids",
  observe: ({ requests, windows }) =>
    groupSessions(requests).flatMap((session) =>
      session.map((request, index) => {
        const query = request.query;
        const repeats =
          query !== null &&
          request.sessionId !== null &&
          session.slice(0, index).some((earlier) => earlier.query !== null && request.startedAt - earlier.startedAt <= windows.repeatMs && querySimilarity(earlier.query, query) >= windows.repeatSimilarity);
        return requestObservation(request, repeats ? 1 : 0);
      }),
    ),
};
