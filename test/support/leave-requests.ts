/**
 * `count` RAG requests of the leave bot the judge's budget tests send (retrieve, context, generate, one chunk that
 * supports the answer), recorded through the SDK in this process: each answer differs, so no judge cache answers it.
 */
import { traceContext, traceGenerate, traceRequest, traceRetrieve } from "../../instrumentation/index.js";

export const LEAVE_CONTEXT = "Employees have 10 days of annual leave per calendar year.";

export async function recordLeaveRequests(count: number): Promise<void> {
  for (let index = 1; index <= count; index += 1) {
    const answer = `Employees get 10 days of annual leave a year (request ${index}).`;
    await traceRequest({ query: `how much annual leave? (${index})` }, async () => {
      await traceRetrieve({ query: "annual leave" }, () => [{ chunkId: "leave_1", documentId: "handbook", text: LEAVE_CONTEXT }]);
      await traceContext({}, () => ({ text: LEAVE_CONTEXT, chunkIds: ["leave_1"] }));
      await traceGenerate({ model: "m" }, () => ({ text: answer }));
      return answer;
    });
  }
}
