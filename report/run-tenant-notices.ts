/**
 * The operator's report (no --tenant) over a run whose results carry several
 * tenants: any tenant's spans may name any run id, so the run's pass rates,
 * means and flipped cases count another tenant's requests with its own. The
 * report is a measurement, so it is still written, but it says so, with the
 * counts, in the terminal and at the top of the report (experiments/run-tenants.ts).
 *
 * The runs looked at are those the report shows by id: the ones named by
 * --run, --baseline and --candidate, and the pair the Runs board chose when
 * none was named (its `baseline` and `candidate` variables).
 */
import type { DashboardResult } from "./collect-report.js";
import { mixedTenantsNotice } from "../experiments/run-tenants.js";
import type { RunReader } from "../store/ports/run-reader.js";

export interface ShownRuns {
  run: readonly string[];
  baseline?: string;
  candidate?: string;
}

/** Run ids the report shows: named ones first, then the Runs board's chosen pair; each once, never ''. */
export function runsShown(named: ShownRuns, dashboards: readonly DashboardResult[]): string[] {
  // A board that showed nothing (one run only: nothing to compare) showed no run either.
  const chosen = dashboards.filter((result) => result.skipped === null).flatMap((result) =>
    ["baseline", "candidate"].flatMap((name) => {
      const value = result.variables[name]?.value;
      return typeof value === "string" ? [value] : [];
    }),
  );
  return [...new Set([...named.run, ...(named.baseline ? [named.baseline] : []), ...(named.candidate ? [named.candidate] : []), ...chosen])].filter((runId) => runId !== "");
}

/** A notice for each shown run whose results carry more than one tenant value, in the order the runs are given. */
export async function runTenantNotices(reader: Pick<RunReader, "countRunTenants">, runIds: readonly string[]): Promise<string[]> {
  const notices: string[] = [];
  for (const runId of runIds) {
    const notice = mixedTenantsNotice(runId, await reader.countRunTenants(runId));
    if (notice !== null) notices.push(notice);
  }
  return notices;
}
