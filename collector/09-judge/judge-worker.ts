/**
 * A judge worker: the handler of the judge queue (judge-queue.ts). For each
 * request it looks up the Eval Case, runs the judge metrics that apply
 * (`run`, evaluators/judge/judge-evaluations.ts's runJudgeEvaluations bound to
 * a judge), and writes the Evaluation Results; only then does the batch count
 * as handled, so the queue acknowledges it (offsets committed after the judge
 * results are durable).
 *
 * - Its own concurrency: up to `concurrency` requests are judged at once. The
 *   call rate is the judge's (RateLimitedJudge with a TokenBucket).
 * - Grader errors are results like any other (outcome error), written and
 *   acknowledged; the judge retried them within its own budget.
 * - A request whose judging throws (a bug, not a grader error) is reported,
 *   counted and acknowledged, so one poisoned request cannot block the queue.
 * - A sink that stays down past the retry policy fails the batch: nothing is
 *   acknowledged and the queue delivers it again (the judge cache makes the
 *   second pass free).
 */
import type { CaseResult } from "../../contracts/case-result.js";
import type { EvalCase } from "../../contracts/eval-case.js";
import { evalCaseFor } from "../../contracts/eval-case-tenant.js";
import type { EvaluationResult } from "../../contracts/evaluation-result.js";
import { failure, success, type Result } from "../../core/result.js";
import type { CaseStore } from "../../store/ports/case-store.js";
import { retry, type RetryPolicy } from "../../core/retry.js";
import type { SinkFailure } from "../../store/ports/result-sink.js";
import type { JudgeQueueFailure } from "./judge-queue.js";
import type { JudgeRequestMessage } from "./judge-request-message.js";
import type { JudgedCase, JudgeResultSink } from "../../store/ports/judge-result-sink.js";
import type { AttributionOptions } from "../../evaluators/root-cause/index.js";

/** What one request asks for: the judge, the embedding measurements, or both. */
export interface JudgeWork {
  judge: boolean;
  measureEmbeddings: boolean;
}

export type JudgeEvaluationRunner = (caseResult: CaseResult, evalCase: EvalCase | null, evaluatedAt: string, work: JudgeWork) => Promise<EvaluationResult[]>;

export interface JudgeWorkerOptions {
  run: JudgeEvaluationRunner;
  cases: CaseStore;
  sink: JudgeResultSink;
  concurrency: number;
  sinkRetry: RetryPolicy;
  clock?: () => number;
  signal?: AbortSignal;
  log?: (line: string) => void;
  /** Called with what was just written durably (alerts read it). Must not throw. */
  onDurable?: (judged: readonly JudgedCase[]) => void;
  /** Handed to the sink with each judged case, which decides its root cause again (JudgedCase.attribution): the corpus index of `eval --corpus`. */
  attribution?: AttributionOptions;
}

export class JudgeWorker {
  readonly counters = { requests: 0, judgedCases: 0, evaluationResults: 0, graderErrors: 0, poisonRequests: 0, unknownCases: 0, sinkRetries: 0, sinkFailures: 0 };
  lastSinkError: string | null = null;
  private readonly clock: () => number;
  private readonly log: (line: string) => void;

  constructor(private readonly options: JudgeWorkerOptions) {
    if (!(options.concurrency >= 1)) throw new RangeError(`judge concurrency must be at least 1, got ${options.concurrency}`);
    this.clock = options.clock ?? Date.now;
    this.log = options.log ?? ((line) => console.warn(line));
  }

  /** The queue handler. */
  readonly handle = async (messages: readonly JudgeRequestMessage[]): Promise<Result<void, JudgeQueueFailure>> => {
    this.counters.requests += messages.length;
    const judged = (await this.judgeAll(messages)).filter((item): item is JudgedCase => item !== null);
    const written = await retry<void, SinkFailure>(() => this.options.sink.write(judged), this.options.sinkRetry, {
      onRetry: () => {
        this.counters.sinkRetries += 1;
      },
      signal: this.options.signal,
    });
    if (!written.ok) {
      this.counters.sinkFailures += 1;
      this.lastSinkError = written.error.message;
      return failure({ retriable: true, message: written.error.message });
    }
    this.counters.judgedCases += judged.length;
    for (const item of judged) {
      this.counters.evaluationResults += item.evaluationResults.length;
      this.counters.graderErrors += item.evaluationResults.filter((result) => result.outcome === "error").length;
    }
    this.options.onDurable?.(judged);
    return success(undefined);
  };

  private async judgeAll(messages: readonly JudgeRequestMessage[]): Promise<(JudgedCase | null)[]> {
    const results: (JudgedCase | null)[] = new Array(messages.length).fill(null);
    let next = 0;
    const lane = async () => {
      while (next < messages.length) {
        const index = next;
        next += 1;
        results[index] = await this.judgeOne(messages[index]!);
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.options.concurrency, messages.length) }, lane));
    return results;
  }

  private async judgeOne(message: JudgeRequestMessage): Promise<JudgedCase | null> {
    let evalCase: EvalCase | null = null;
    if (message.case_ref !== null) {
      const found = await this.options.cases.get(message.case_ref.case_id, message.case_ref.case_version);
      // Another tenant's case (its reference answer, its gold evidence) never reaches the judge of this tenant's trace.
      evalCase = evalCaseFor(found, message.case_result.rag_observation.tenant_id);
      if (evalCase === null) this.counters.unknownCases += 1;
    }
    try {
      const work = { judge: message.judge ?? true, measureEmbeddings: message.measure_embeddings ?? true };
      const evaluationResults = await this.options.run(message.case_result, evalCase, new Date(this.clock()).toISOString(), work);
      return { caseResult: message.case_result, evaluationResults, evalCase, ...(this.options.attribution ? { attribution: this.options.attribution } : {}) };
    } catch (error) {
      this.counters.poisonRequests += 1;
      this.log(`ragscope judge worker: judging case result ${message.case_result_id} failed and is skipped: ${error instanceof Error ? error.message : String(error)}`);
      return null;
    }
  }
}
