/**
 * Why a judged metric of the Quality page has no value. Correctness,
 * faithfulness, relevance (and hallucination_rate, which counts faithfulness)
 * are scored only by an LLM judge: "no data" alone read as a broken board to a
 * user who had configured none. The heuristic judge's scores are shown in a
 * row of their own (a measurement, never the metric's value), so when that row
 * has a value the reason is that only the heuristic judge scored it — the
 * gate's wording for the same case (evaluators/gates/release-gate.ts).
 */
import { DATASET_SHARES } from "../../evaluators/aggregate/dataset-shares.js";
import { isJudgeMetric } from "../../evaluators/judge/judge.js";
import type { QualityAggregate } from "../../store/ports/quality-reader.js";

/** Where the page tells how to configure an LLM judge. */
const CONFIGURE_JUDGE = "configure an LLM judge (LOCAL-JUDGE.md: RAGSCOPE_JUDGE_BASE_URL and RAGSCOPE_JUDGE_MODEL; `ragscope serve` judges traffic only with RAGSCOPE_JUDGE_ENABLED=true)";

/** The judged metric a board aggregate is computed from, or null when none is (e.g. Recall@5: exact, against the gold evidence). */
export function judgedMetricOf(aggregateName: string): string | null {
  if (isJudgeMetric(aggregateName)) return aggregateName;
  const share = Object.values(DATASET_SHARES).find((candidate) => candidate.name === aggregateName);
  return share !== undefined && isJudgeMetric(share.metric) ? share.metric : null;
}

/**
 * Why `aggregate` has no value, or null when it has one or is no judged metric (its "no data" means no request in
 * the range carried it). `board` is every aggregate the board shows, the heuristic judge's rows among them.
 */
export function judgedMetricNoValueReason(aggregate: QualityAggregate, board: readonly QualityAggregate[]): string | null {
  if (aggregate.value !== null) return null;
  const judged = judgedMetricOf(aggregate.name);
  if (judged === null) return null;
  const heuristic = board.find((candidate) => candidate.name === `${judged}_heuristic_judge`);
  const measured = aggregate.name === judged ? "it" : judged;
  if (heuristic !== undefined && heuristic.value !== null) {
    return `Needs an LLM judge: only the heuristic judge scored ${measured} (its row "${heuristic.label}"), and a heuristic never decides — ${CONFIGURE_JUDGE}.`;
  }
  // Correctness compares with a reference answer: a judge scores it only for cases that have one.
  const reference = judged === "answer_correctness" ? " (and give the cases a reference answer: correctness is judged against it)" : "";
  return `Needs an LLM judge: no LLM judge scored ${measured} in this range — ${CONFIGURE_JUDGE}${reference}.`;
}
