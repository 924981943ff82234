/**
 * A case of a run sent again, as the RunReader and TraceReader contracts store it: a harness retrying case
 * "case_resent" of run "run_resent" after midnight UTC from a renamed service. The same run and case ids give the
 * same case_result_id ("cr_resent", contracts/ids.ts); the second request has its own trace ("b"×32 after "a"×32),
 * start (00:01 after 23:59 the day before), service ("support-bot-v2" after "support-bot") and answer, and is
 * written a minute of the store's clock later.
 */
import type { CaseEvaluation } from "../../../../evaluators/evaluate-case-result.js";
import { evaluatedRequest } from "../../../support/evaluated-request.js";
import { rootCauseResult } from "../../../support/root-cause-result.js";
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

/** Where sendFailingCaseAgain sends its case: after midnight UTC (the default), or the same day, a minute apart. */
export interface FailingCaseSentAgain {
  runId: string;
  caseResultId: string;
  traceIds: [string, string];
  startedAt: [string, string];
}

export const AFTER_MIDNIGHT: FailingCaseSentAgain = {
  runId: "run_resent_failing",
  caseResultId: "cr_resent_failing",
  traceIds: ["c".repeat(32), "d".repeat(32)],
  startedAt: ["2026-07-07T23:59:00.000Z", "2026-07-08T00:01:00.000Z"],
};

/**
 * The same day: evaluation_results keeps one root-cause result per Case Result id and day (sorted by evaluator, day and
 * Evaluation Result id), the second request's, so the store holds no cause for the first request.
 */
export const SAME_DAY: FailingCaseSentAgain = {
  runId: "run_resent_same_day",
  caseResultId: "cr_resent_same_day",
  traceIds: ["e".repeat(32), "f".repeat(32)],
  startedAt: ["2026-07-08T09:40:00.000Z", "2026-07-08T09:41:00.000Z"],
};

/**
 * The same case sent again (as sendCaseAgain, from support-bot then support-bot-v2), both requests failing, each with
 * the root-cause evaluator's label `rootCause` written with it (its own trace and start): what the Failures board and
 * the root-cause rollups count as two failing requests, each under its own minute and service, as the trace list
 * lists them.
 */
export async function sendFailingCaseAgain(
  subject: StoreUnderTest,
  advanceClock: (milliseconds: number) => void | Promise<void>,
  tenant: string | null,
  rootCause: string,
  sent: FailingCaseSentAgain = AFTER_MIDNIGHT,
): Promise<{ first: CaseEvaluation; second: CaseEvaluation }> {
  const failing = (index: 0 | 1, service: string, output: string): CaseEvaluation => {
    const startedAt = sent.startedAt[index];
    const request = evaluatedRequest({ runId: sent.runId, caseResultId: sent.caseResultId, caseId: `case_${sent.caseResultId}`, traceId: sent.traceIds[index], startedAt, service, tenant, output });
    return {
      ...request,
      caseResult: { ...request.caseResult, quality_status: "failed" },
      evaluationResults: [
        ...request.evaluationResults.filter((result) => result.evaluator_id !== "root_cause"),
        rootCauseResult(sent.caseResultId, rootCause, startedAt),
      ],
    };
  };
  const first = failing(0, "support-bot", "the first answer");
  await subject.store.results.write([first]);
  await advanceClock(60_000);
  const second = failing(1, "support-bot-v2", "the second answer");
  await subject.store.results.write([second]);
  await subject.settle();
  return { first, second };
}
