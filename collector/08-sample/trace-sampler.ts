/**
 * Chooses the traces the LLM judge sees (issue 6 "Sampling and scheduling").
 *
 * In order:
 * 0. a result rebuilt from user events alone (a late event, merged into its
 *    request's stored result by the sink) has no query or answer to judge:
 *    never sampled, counted as `userEventsOnly`;
 * 1. the judge's spending limit: while it is exhausted nothing is sampled —
 *    forced traces included, since judging them costs the same money — and the
 *    sampler says so: a counter per skipped trace and one log line each time
 *    the limit is reached (and one when sampling resumes);
 * 2. forced inclusion (forced-inclusion.ts): errors, negative feedback,
 *    abstentions, sensitive-data hits;
 * 3. the rate for the trace's tenant, route or service (sampling-rates.ts),
 *    compared with the trace id's draw (trace-hash.ts): every sampler instance
 *    with the same rates chooses the same traces.
 */
import type { CaseEvaluation } from "../../evaluators/evaluate-case-result.js";
import { isLateFeedback } from "../../store/late-feedback/merge-late-feedback.js";
import { forcedReasons, type ForcedReason } from "./forced-inclusion.js";
import { assertValidRates, resolveSampleRate, type RateSource, type SampleRates, type TraceOrigin } from "./sampling-rates.js";
import { traceSampleDraw } from "./trace-hash.js";

/** What the sampler needs of the judge's spending limit (evaluators/judge/judge-budget.ts fits). */
export interface SamplingBudget {
  readonly exhausted: boolean;
  readonly reason: string | null;
}

export type SamplingDecision =
  | { sampled: true; reason: "forced"; forced: ForcedReason[]; rate: number; rateSource: RateSource; draw: number }
  | { sampled: true; reason: "rate"; forced: []; rate: number; rateSource: RateSource; draw: number }
  | { sampled: false; reason: "not_sampled"; forced: []; rate: number; rateSource: RateSource; draw: number }
  | { sampled: false; reason: "user_events_only"; forced: []; rate: number; rateSource: RateSource; draw: number }
  | { sampled: false; reason: "budget_exhausted"; forced: ForcedReason[]; rate: number; rateSource: RateSource; draw: number; message: string };

export interface TraceSamplerOptions {
  rates: SampleRates;
  budget?: SamplingBudget;
  log?: (line: string) => void;
}

export class TraceSampler {
  readonly counters = { decided: 0, userEventsOnly: 0, sampledByRate: 0, sampledForced: 0, notSampled: 0, skippedBudget: 0, forcedSkippedBudget: 0, budgetExhaustions: 0, queuedSkippedBudget: 0 };
  private budgetWasExhausted = false;
  private readonly log: (line: string) => void;

  constructor(private readonly options: TraceSamplerOptions) {
    assertValidRates(options.rates);
    this.log = options.log ?? ((line) => console.warn(line));
  }

  /** Rate-only choice: the same for every instance with the same rates. */
  chooses(traceId: string, origin: TraceOrigin): boolean {
    return traceSampleDraw(traceId) < resolveSampleRate(this.options.rates, origin).rate;
  }

  /**
   * Whether a trace sampled earlier and still in the judge queue is judged now: not while the spending limit is
   * reached. Sampling stops then, but the traces already queued (up to RAGSCOPE_JUDGE_MAX_QUEUED of a burst) were each
   * turned into a budget_exhausted grader error and put in the review queue; they are left unjudged instead, counted,
   * as a trace the sampler skips for the budget. The stop is said once, as a decision says it.
   */
  admitsQueued(): boolean {
    if (!this.noticeBudget()) return true;
    this.counters.queuedSkippedBudget += 1;
    return false;
  }

  /**
   * Whether the spending limit is reached now; says the stop (and counts it) or the resumption when it changed since
   * the sampler last looked. Looked at by every decision and every queued trace, so a stop or a resumption is said
   * when the next trace of any kind comes, not when the next one the rate chooses does.
   */
  private noticeBudget(): boolean {
    const exhausted = this.options.budget?.exhausted ?? false;
    if (exhausted) this.stopped(this.exhaustionReason());
    else if (this.budgetWasExhausted) {
      this.budgetWasExhausted = false;
      this.log("ragscope sampler: judge sampling resumed: spending is below the limit again");
    }
    return exhausted;
  }

  private exhaustionReason(): string {
    return this.options.budget?.reason ?? "judge spending limit reached";
  }

  /** The spending limit keeps a trace from the judge: the first such trace of a stop counts the stop and says it. */
  private stopped(reason: string): void {
    if (!this.budgetWasExhausted) {
      this.counters.budgetExhaustions += 1;
      this.log(`ragscope sampler: judge sampling stopped: ${reason}`);
    }
    this.budgetWasExhausted = true;
  }

  decide(evaluation: CaseEvaluation): SamplingDecision {
    this.counters.decided += 1;
    const { caseResult, evaluationResults } = evaluation;
    const observation = caseResult.rag_observation;
    const { rate, source } = resolveSampleRate(this.options.rates, { serviceName: observation.service_name, route: observation.route, tenantId: observation.tenant_id });
    const draw = traceSampleDraw(caseResult.trace_id);
    const base = { rate, rateSource: source, draw };
    const exhausted = this.noticeBudget();
    if (isLateFeedback(caseResult)) {
      this.counters.userEventsOnly += 1;
      return { sampled: false, reason: "user_events_only", forced: [], ...base };
    }
    const forced = forcedReasons(caseResult, evaluationResults);
    // A trace the rate would not choose is not judged whatever the budget: only the ones the limit keeps from the
    // judge count as skipped for it (ragscope_judge_skipped_for_budget_total), or that counter would grow with traffic.
    if (forced.length === 0 && draw >= rate) {
      this.counters.notSampled += 1;
      return { sampled: false, reason: "not_sampled", forced: [], ...base };
    }
    if (exhausted) {
      this.counters.skippedBudget += 1;
      if (forced.length > 0) this.counters.forcedSkippedBudget += 1;
      return { sampled: false, reason: "budget_exhausted", forced, ...base, message: this.exhaustionReason() };
    }
    if (forced.length > 0) {
      this.counters.sampledForced += 1;
      return { sampled: true, reason: "forced", forced, ...base };
    }
    this.counters.sampledByRate += 1;
    return { sampled: true, reason: "rate", forced: [], ...base };
  }
}
