/**
 * What a user writes for `ragscope eval` / `runExperiment`: a function that
 * answers one Eval Case by calling their instrumented pipeline. ragscope opens
 * the request span around it (run, case, case version and dataset linkage), so
 * the task writes no ids; stages the pipeline traces (traceRetrieve,
 * traceGenerate ...) become children of that request.
 */
import type { EvalCase } from "../contracts/eval-case.js";

export interface TaskContext {
  runId: string;
  /** 1 for the first run of a case, up to --repeat. */
  repeat: number;
  /** Aborted when the case's timeout passes: a task that can stop early should. */
  signal: AbortSignal;
}

/** The answer text, or an object holding it in `answer` (the rest is the task's own). */
export type TaskAnswer = string | { answer: string };

export type ExperimentTask = (evalCase: EvalCase, context: TaskContext) => Promise<TaskAnswer> | TaskAnswer;

/**
 * The answer text, or why the value is not an answer (a case that returns nothing has failed). An empty text is an
 * answer — the pipeline answered with nothing — judged as `serve` judges the same trace (an empty answer fails,
 * root cause FORMAT_ERROR), not a failure of the task's run, which would count in error_rate.
 */
export function answerText(value: unknown): { ok: true; answer: string } | { ok: false; reason: string } {
  if (typeof value === "string") return { ok: true, answer: value };
  if (value === undefined || value === null) return { ok: false, reason: `the task returned ${value === null ? "null" : "nothing"}; it must return the answer text or { answer }` };
  if (typeof value === "object" && "answer" in value) return answerText((value as { answer: unknown }).answer);
  return { ok: false, reason: `the task returned a ${typeof value}; it must return the answer text or { answer }` };
}
