/**
 * Why a run comparison is empty when its two runs share no case. The Runs board pairs cases by case_id and
 * case_version, as `eval --baseline` and `gate` do; the report's default pair is the two newest runs, which after
 * `ragscope demo` and a first `ragscope eval` of one's own dataset share none. The board then read "No data in the
 * time range" under every comparison panel, which sent a new user looking at the range instead of the runs.
 */
import type { DashboardResult } from "./collect-report.js";

/** The Pass rates panel's count of the cases in both runs (dashboards/source: the Runs board). */
const PAIRED_CASES_FIELD = "Paired cases";

/** The notice for a Runs board whose two runs share no case; null for any other board, or when they share one. */
export function unpairedRunsNotice(result: DashboardResult): string | null {
  const baseline = result.variables.baseline?.value;
  const candidate = result.variables.candidate?.value;
  if (typeof baseline !== "string" || typeof candidate !== "string" || baseline === "" || candidate === "") return null;
  const paired = [...result.panels.values()]
    .flatMap((panel) => panel.frames)
    .flatMap((frame) => frame.fields)
    .find((field) => field.name === PAIRED_CASES_FIELD)?.values[0];
  if (paired !== 0) return null;
  return (
    `runs ${baseline} (baseline) and ${candidate} (candidate) share no case — cases are paired by case_id and case_version — ` +
    `so the side-by-side metrics and the flipped cases below are empty; name two runs of one dataset with --baseline and --candidate`
  );
}
