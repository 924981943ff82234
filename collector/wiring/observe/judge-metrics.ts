/**
 * The LLM judge's counters on /metrics, for `ragscope serve` and the evaluator
 * of `ragscope evaluate` / `ragscope collect` (the processes that run judge
 * workers): what a platform engineer alerts on — grader errors by type, spend
 * and tokens — beside the mean cost per call the dashboards show. Read at
 * scrape time from the judge workers' usage ledger
 * (evaluators/judge/judge-usage-ledger.ts), so nothing is counted twice.
 *
 * Registered whether the judge is enabled or not, every labelled series from
 * the start at 0: a series that appears only with its first error gives
 * rate() and absence alerts nothing to read (as the dead-letter reasons).
 */
import { JUDGE_ERROR_TYPES } from "../../../evaluators/judge/judge.js";
import { JudgeUsageLedger } from "../../../evaluators/judge/judge-usage-ledger.js";
import type { TraceSampler } from "../../08-sample/trace-sampler.js";
import type { MetricsRegistry } from "./metrics-registry.js";

/**
 * @param usage the online stage's ledger (OnlineStageParts.judgeUsage); null where no judge worker runs: every counter stays 0.
 * @param sampler the online stage's sampler (OnlineStageParts.sampler); null without the judge.
 */
export function registerJudgeMetrics(registry: MetricsRegistry, usage: JudgeUsageLedger | null, sampler: Pick<TraceSampler, "counters"> | null): void {
  const ledger = usage ?? new JudgeUsageLedger();
  registry.counter(
    "ragscope_judge_calls_total",
    "HTTP requests sent to the judge endpoint: retries, structured-output fallbacks and repair turns included; cache hits and calls refused by the spending limit send none",
    () => ledger.overall().calls,
  );
  registry.counter("ragscope_judge_outcomes_total", "judged metrics by outcome (one per metric of a judged trace, cache hits included): the denominator of the grader error ratio", () => {
    const overall = ledger.overall();
    return [
      { labels: { outcome: "pass" }, value: overall.passes },
      { labels: { outcome: "fail" }, value: overall.fails },
      { labels: { outcome: "grader_error" }, value: overall.graderErrors },
    ];
  });
  registry.counter(
    "ragscope_judge_grader_errors_total",
    "judged metrics that ended in a grader error (after the judge's retries), by error type; budget_exhausted: refused by RAGSCOPE_JUDGE_SPENDING_LIMIT_PER_HOUR without a call",
    () => {
      const byType = ledger.overall().graderErrorsByType;
      return JUDGE_ERROR_TYPES.map((type) => ({ labels: { error_type: type }, value: byType[type] }));
    },
  );
  registry.counter("ragscope_judge_tokens_total", "tokens of the judge's calls as the endpoint reported them (estimated when it reports none), by type", () => {
    const overall = ledger.overall();
    return [
      { labels: { type: "input" }, value: overall.inputTokens },
      { labels: { type: "output" }, value: overall.outputTokens },
    ];
  });
  registry.counter(
    "ragscope_judge_cost_usd_total",
    "what the judge's calls cost at RAGSCOPE_JUDGE_INPUT_PRICE_PER_1K and RAGSCOPE_JUDGE_OUTPUT_PRICE_PER_1K (prices in USD), failed attempts included; cache hits cost nothing",
    () => ledger.overall().cost,
  );
  registry.counter(
    "ragscope_judge_skipped_for_budget_total",
    "traces left unjudged because RAGSCOPE_JUDGE_SPENDING_LIMIT_PER_HOUR was reached, by when: sampling (the sampler would have chosen the trace) or queued (chosen before, still in the judge queue when the limit was reached; not turned into grader errors)",
    () => [
      { labels: { when: "sampling" }, value: sampler?.counters.skippedBudget ?? 0 },
      { labels: { when: "queued" }, value: sampler?.counters.queuedSkippedBudget ?? 0 },
    ],
  );
  registry.counter("ragscope_judge_cache_hits_total", "judged metrics answered from the judge cache: no call, no cost", () => ledger.overall().cacheHits);
}
