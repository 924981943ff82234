/**
 * Which cases of two runs the Runs board compares: those both runs ran at the same case_version, paired by case_id
 * AND case_version as `ragscope eval --baseline` and `gate --baseline` pair them (evaluators/aggregate/paired-cases.ts).
 * A changed case gets a new case_version (a stored case is never rewritten), so pairing by case_id alone compared a
 * case with an earlier, different case of the same id: a run over the next dataset version showed a "flipped" case
 * that eval had left out, and pass rates over cases the other run never ran.
 *
 * With only one run chosen there is nothing to pair it with: its cases are shown whole, as the board showed them
 * before (the other side stays empty).
 *
 * No Grafana SDK here: the conditions are SQL text over the runs' SQL expressions.
 */

/** The two runs of the board as SQL expressions, and the condition on run_id selecting both. */
export interface RunPair {
  baseline: string;
  candidate: string;
  /** A condition on a table's run_id: the rows of either run. */
  both: string;
}

/** `SELECT case_id, case_version`: the cases both runs ran at the same version. */
export function pairedCaseKeys(pair: RunPair): string {
  return (
    `SELECT case_id, case_version FROM case_results FINAL WHERE ${pair.both} GROUP BY case_id, case_version ` +
    `HAVING countIf(run_id = ${pair.baseline}) > 0 AND countIf(run_id = ${pair.candidate}) > 0`
  );
}

/**
 * A condition on a table with `case_result_id` (case_results, evaluation_results, metric_values): the row belongs to
 * a compared case — a paired one, or any case of the one run chosen. evaluation_results carries no case_version, so
 * the condition goes through the case results' ids (an id names one run, case and case version, contracts/ids.ts).
 */
export function inComparedCase(pair: RunPair): string {
  return (
    `(${pair.baseline} = '' OR ${pair.candidate} = '' OR case_result_id IN ` +
    `(SELECT case_result_id FROM case_results FINAL WHERE ${pair.both} AND (case_id, case_version) IN (${pairedCaseKeys(pair)})))`
  );
}

/** The column names of the cases left out of the comparison, by why (Pass rates panel). */
export const LEFT_OUT_IN_ONE_RUN = "Left out: in one run only";
export const LEFT_OUT_VERSIONS_DIFFER = "Left out: versions differ";

/**
 * One row per case id and version of the two runs (`rows`: a condition on case_results selecting their current
 * rows), with how many results and passes each run has of it, whether it is paired, whether it is compared, and
 * whether both runs ran its case id at all (`id_in_both`: then a case left out was left out because its versions
 * differ). `passed`: the SQL condition of a passed result.
 */
export function caseKeysOfPair(pair: RunPair, rows: string, passed: string): string {
  return [
    "(SELECT case_id, case_version, baseline_results, candidate_results, baseline_passed, candidate_passed, paired,",
    `   paired OR ${pair.baseline} = '' OR ${pair.candidate} = '' AS compared,`,
    "   max(baseline_results > 0) OVER (PARTITION BY case_id) AND max(candidate_results > 0) OVER (PARTITION BY case_id) AS id_in_both",
    ` FROM (SELECT case_id, case_version, countIf(run_id = ${pair.baseline}) AS baseline_results, countIf(run_id = ${pair.candidate}) AS candidate_results,`,
    `   countIf(run_id = ${pair.baseline} AND ${passed}) AS baseline_passed, countIf(run_id = ${pair.candidate} AND ${passed}) AS candidate_passed,`,
    "   baseline_results > 0 AND candidate_results > 0 AS paired",
    `   FROM case_results FINAL WHERE ${rows} GROUP BY case_id, case_version))`,
  ].join("\n");
}
