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
 */
import type { CaseEvaluation } from "../../evaluators/evaluate-case-result.js";
import type { TraceSampler } from "../08-sample/trace-sampler.js";
import type { JudgeQueue } from "./judge-queue.js";
import type { JudgeRequestMessage } from "./judge-request-message.js";

export interface JudgeDispatcherOptions {
  sampler: TraceSampler;
  queue: JudgeQueue;
  clock?: () => number;
  log?: (line: string) => void;
}

export class JudgeDispatcher {
  readonly counters = { offered: 0, skippedPartial: 0, sampled: 0, enqueued: 0, lost: 0 };
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
      if (!decision.sampled) continue;
      this.counters.sampled += 1;
      requests.push({
        case_result_id: caseResult.case_result_id,
        case_result: caseResult,
        case_ref: caseResult.case_id === "" ? null : { case_id: caseResult.case_id, case_version: caseResult.case_version },
        sample_reason: decision.reason === "forced" ? `forced:${decision.forced.join(",")}` : "rate",
        enqueued_at: enqueuedAt,
      });
    }
    if (requests.length === 0) return;
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
