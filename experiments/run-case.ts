/**
 * Runs the task on one case inside the request span ragscope opens itself,
 * with the run / case / dataset linkage, so the collector rebuilds the case's
 * Case Result from the trace. Never throws: a task that throws, passes its
 * timeout or returns no answer ends the span with an error, which the
 * collector records as `execution_status: failed` with the error
 * (`execution_error.type` timeout for a timeout).
 */
import { context as otelContext } from "@opentelemetry/api";
import type { EvalCase } from "../contracts/eval-case.js";
import { requestStage } from "../instrumentation/stages/trace-request.js";
import { startStageSpan } from "../instrumentation/stage-span.js";
import { answerText, type ExperimentTask } from "./task.js";

export interface CaseRun {
  caseId: string;
  caseVersion: string;
  repeat: number;
  answer: string | null;
  /** Null when the task answered. */
  error: { type: "task_error" | "timeout" | "no_answer"; message: string } | null;
  /** Wall-clock milliseconds of the task, from the injected clock. */
  durationMs: number;
}

export interface RunCaseOptions {
  runId: string;
  repeat: number;
  timeoutMs: number;
  /** `eval --tenant`: the tenant every request is recorded under (the case's own context.tenant_id otherwise). */
  tenantId?: string;
  now?: () => number;
}

class TaskTimeout extends Error {}

export async function runCase(task: ExperimentTask, evalCase: EvalCase, options: RunCaseOptions): Promise<CaseRun> {
  const now = options.now ?? Date.now;
  const started = now();
  const tenantId = options.tenantId ?? (typeof evalCase.context.tenant_id === "string" ? evalCase.context.tenant_id : undefined);
  const stage = startStageSpan(
    requestStage<string>({
      query: evalCase.input,
      runId: options.runId,
      caseId: evalCase.case_id,
      caseVersion: evalCase.case_version,
      datasetId: evalCase.dataset_id,
      datasetVersion: evalCase.dataset_version,
      tenantId,
    }),
  );
  const abort = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      abort.abort();
      reject(new TaskTimeout(`the task did not answer within ${options.timeoutMs} ms (--timeout-ms)`));
    }, options.timeoutMs);
  });
  const finish = (answer: string | null, error: CaseRun["error"]): CaseRun => ({
    caseId: evalCase.case_id,
    caseVersion: evalCase.case_version,
    repeat: options.repeat,
    answer,
    error,
    durationMs: now() - started,
  });
  try {
    const invoke = () => Promise.resolve().then(() => task(evalCase, { runId: options.runId, repeat: options.repeat, signal: abort.signal }));
    const value = await Promise.race([stage ? otelContext.with(stage.context, invoke) : invoke(), timeout]);
    const answer = answerText(value);
    if (!answer.ok) {
      stage?.fail(new Error(answer.reason));
      return finish(null, { type: "no_answer", message: answer.reason });
    }
    stage?.succeed(answer.answer);
    return finish(answer.answer, null);
  } catch (error) {
    const isTimeout = error instanceof TaskTimeout;
    const message = error instanceof Error ? error.message : String(error);
    if (isTimeout) stage?.span.setAttribute("error.type", "timeout");
    stage?.fail(error);
    return finish(null, { type: isTimeout ? "timeout" : "task_error", message: message || "the task threw without a message" });
  } finally {
    clearTimeout(timer);
  }
}
