/**
 * A case of a run sent again, as the RunReader and TraceReader contracts store it: a harness retrying case
 * "case_resent" of run "run_resent" after midnight UTC from a renamed service. The same run and case ids give the
 * same case_result_id ("cr_resent", contracts/ids.ts); the second request has its own trace ("b"×32 after "a"×32),
 * start (00:01 after 23:59 the day before), service ("support-bot-v2" after "support-bot") and answer, and is
 * written a minute of the store's clock later.
 */
import type { CaseEvaluation } from "../../../../evaluators/evaluate-case-result.js";
import { evaluatedRequest } from "../../../support/evaluated-request.js";
import type { StoreUnderTest } from "./store-under-test.js";

export async function sendCaseAgain(subject: StoreUnderTest, advanceClock: (milliseconds: number) => void, tenant: string | null): Promise<{ first: CaseEvaluation; second: CaseEvaluation }> {
  const sent = (traceId: string, startedAt: string, service: string, output: string) => evaluatedRequest({ runId: "run_resent", caseResultId: "cr_resent", caseId: "case_resent", traceId, startedAt, service, tenant, output });
  const first = sent("a".repeat(32), "2026-07-07T23:59:00.000Z", "support-bot", "the first answer");
  await subject.store.results.write([first]);
  advanceClock(60_000);
  const second = sent("b".repeat(32), "2026-07-08T00:01:00.000Z", "support-bot-v2", "the second answer");
  await subject.store.results.write([second]);
  await subject.settle();
  return { first, second };
}
