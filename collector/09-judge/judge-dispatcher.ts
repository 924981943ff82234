/**
 * Hands sampled traces to the judge queue once their rule results are durable
 * (issue 6: "Rule results are written first. Sampled traces go to a durable
 * judge queue").
 *
 * Called by the evaluation worker after each successful sink write, before the
 * traces count as durable (collector/07-evaluate/evaluation-worker.ts,
 * `afterWrite`): so a crash before the request reached the queue replays the
 * trace, and the deterministic sampler chooses it again. Only enqueueing is
 * awaited — never the judging.
 *
 * - Partial traces (released without their root) are not judged: a trace is
 *   judged once it is complete; if the late root comes, the re-opened trace
 *   is offered again.
 * - A queue that refuses (full in-process queue, Kafka down past the client's
 *   retries) loses those requests: counted and logged, because the span stream
 *   must not wait for optional, sampled work.
 * - Embedding measurements have their own sample rate
 *   (embeddingsEndpoint.sampleRate): a trace with an Eval Case that the judge
 *   did not sample is still enqueued, for the embeddings only, when it falls
 *   in that sample. Its draw is salted, so it is independent of the judge's:
 *   at equal rates the two samples are not the same traces. Online traffic
 *   without a case has no reference answer to compare with and is not
 *   enqueued for embeddings.
 */
import type { CaseEvaluation } from "../../evaluators/evaluate-case-result.js";
import { isLateFeedback } from "../../store/late-feedback/merge-late-feedback.js";
import { traceSampleDraw } from "../08-sample/trace-hash.js";
import type { TraceSampler } from "../08-sample/trace-sampler.js";
import type { JudgeQueue } from "./judge-queue.js";
import type { JudgeRequestMessage } from "./judge-request-message.js";

export interface JudgeDispatcherOptions {
  sampler: TraceSampler;
  queue: JudgeQueue;
  /** Rate of the embedding measurements on traces with an Eval Case; null: only with the judge's sample. */
  embeddingsSampleRate?: number | null;
  clock?: () => number;
  log?: (line: string) => void;
}

/** The embeddings' draw of a trace: the trace-id draw of a salted id, independent of the judge's. */
export function embeddingsSampleDraw(traceId: string): number {
  return traceSampleDraw(`embeddings:${traceId.trim().toLowerCase()}`);
}

export class JudgeDispatcher {
  readonly counters = { offered: 0, skippedPartial: 0, sampled: 0, sampledForEmbeddingsOnly: 0, enqueued: 0, lost: 0 };
  lastLoss: string | null = null;
  private readonly clock: () => number;
  private readonly log: (line: string) => void;

  constructor(private readonly options: JudgeDispatcherOptions) {
    this.clock = options.clock ?? Date.now;
    this.log = options.log ?? ((line) => console.warn(line));
  }

  async dispatch(evaluations: readonly CaseEvaluation[]): Promise<void> {
    const requests: JudgeRequestMessage[] = [];
    const enqueuedAt = new Date(this.clock()).toISOString();
    for (const evaluation of evaluations) {
      this.counters.offered += 1;
      const caseResult = evaluation.caseResult;
      if (caseResult.rag_observation.partial_trace) {
        this.counters.skippedPartial += 1;
        continue;
      }
      const decision = this.options.sampler.decide(evaluation);
      const measure = this.measuresEmbeddings(evaluation);
      if (!decision.sampled && !measure) continue;
      if (decision.sampled) this.counters.sampled += 1;
      else this.counters.sampledForEmbeddingsOnly += 1;
      requests.push({
        case_result_id: caseResult.case_result_id,
        case_result: caseResult,
        case_ref: caseResult.case_id === "" ? null : { case_id: caseResult.case_id, case_version: caseResult.case_version },
        sample_reason: !decision.sampled ? "embeddings_rate" : decision.reason === "forced" ? `forced:${decision.forced.join(",")}` : "rate",
        enqueued_at: enqueuedAt,
        judge: decision.sampled,
        measure_embeddings: decision.sampled ? this.options.embeddingsSampleRate == null || measure : measure,
      });
    }
    if (requests.length === 0) return;
    return this.enqueue(requests);
  }

  /** In the embeddings' own sample: a trace with an Eval Case (a reference answer to compare with) whose salted draw is below the rate. */
  private measuresEmbeddings(evaluation: CaseEvaluation): boolean {
    const rate = this.options.embeddingsSampleRate;
    const caseResult = evaluation.caseResult;
    if (rate == null || caseResult.case_id === "" || isLateFeedback(caseResult)) return false;
    return embeddingsSampleDraw(caseResult.trace_id) < rate;
  }

  private async enqueue(requests: JudgeRequestMessage[]): Promise<void> {
    const enqueued = await this.options.queue.enqueue(requests);
    if (enqueued.ok) {
      this.counters.enqueued += requests.length;
      return;
    }
    this.counters.lost += requests.length;
    this.lastLoss = enqueued.error.message;
    this.log(`ragscope judge dispatcher: ${requests.length} sampled traces will not be judged: ${enqueued.error.message}`);
  }
}
