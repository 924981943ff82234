/**
 * Why a judged metric (faithfulness, answer correctness, …) has no value a decision may read, and what to configure:
 * the heuristic judge alone scored it (a measurement, never a decision), or no judge scored it. One wording for the
 * gate file's rules (gates/release-gate.ts) and the seed's hard gates (quality-score.ts): the same run printed a hint
 * beside one and a bare "no case has a value" beside the other.
 */
/**
 * Configuring an LLM judge is not all a run against a running collector needs: `ragscope serve` judges only when
 * enabled, an in-process `eval` always (README "Online evaluation"); without it the same dataset read "no case has a
 * value for faithfulness" from `eval --endpoint`, not saying why the collector judged nothing.
 */
export const JUDGING_ON_A_COLLECTOR = "`ragscope serve`, where `eval --endpoint` sends its cases, judges only with RAGSCOPE_JUDGE_ENABLED=true (an in-process `eval` always judges)";

/** What to configure for a judged metric to have a value a decision may read. */
export const CONFIGURE_A_JUDGE = `configure an LLM judge (LOCAL-JUDGE.md); ${JUDGING_ON_A_COLLECTOR}`;

/** Who scored a judged metric that has no value a decision may read: the heuristic judge alone, or nothing. */
export function whoScoredIt(heuristicOnly: boolean): string {
  return heuristicOnly ? "only the heuristic judge scored it, and a heuristic never decides a gate" : "no judge scored it";
}

export function judgedMetricMissingReason(reason: string, heuristicOnly: boolean): string {
  return `${reason}: ${whoScoredIt(heuristicOnly)} — ${CONFIGURE_A_JUDGE}`;
}
