/**
 * The report's filter values that match nothing stored. A run id, a service
 * or a dataset nothing was stored under reads as "no data" in every panel,
 * which looks like a quiet day rather than a typo. A run named by --run,
 * --baseline or --candidate that has no stored results is an error (the
 * report of it would be empty; `gate --run` refuses it the same way); a
 * --service, --dataset or --tenant value that matches no stored request is
 * said as a warning, since a service without traffic yet is a fair thing to
 * report on; so is a --trace-id no stored request has (the stages section was
 * left out without a word). Checked over everything stored (of the report's tenants), not
 * only the time range.
 */
import type { RunReader } from "../store/ports/run-reader.js";
import type { TraceReader } from "../store/ports/trace-reader.js";

/** Runs listed as the ones that are stored, in the error about one that is not. */
const RUNS_NAMED = 5;

export interface ReportFilterValues {
  run: readonly string[];
  baseline?: string;
  candidate?: string;
  service: readonly string[];
  dataset: readonly string[];
  tenant: readonly string[];
  /** The trace whose stages the report shows (--trace-id). */
  traceId?: string;
}

/** The runs named (--run, --baseline, --candidate) that have no stored results, each with its flag; empty when all have. */
export async function runsWithoutResults(reader: Pick<RunReader, "countCaseResults">, values: ReportFilterValues): Promise<{ flag: string; runId: string }[]> {
  const named = [...values.run.map((runId) => ({ flag: "--run", runId })), ...(values.baseline ? [{ flag: "--baseline", runId: values.baseline }] : []), ...(values.candidate ? [{ flag: "--candidate", runId: values.candidate }] : [])];
  const missing: { flag: string; runId: string }[] = [];
  for (const item of named) if ((await reader.countCaseResults(item.runId)) === 0) missing.push(item);
  return missing;
}

/** One line naming the runs without results, the store, and the runs that are stored. */
export async function describeRunsWithoutResults(missing: readonly { flag: string; runId: string }[], traces: Pick<TraceReader, "listRuns">, where: string): Promise<string> {
  const named = missing.map((item) => `${item.flag} ${JSON.stringify(item.runId)}`).join(", ");
  return `ragscope report: ${named}: no stored results of ${missing.length === 1 ? "that run" : "those runs"} in ${where}; check the run id (ragscope eval prints it) or --data-dir (${await describeStoredRuns(traces)})`;
}

/** The newest runs that have stored results, for an error about a run id that has none (`report`, `gate`). */
export async function describeStoredRuns(traces: Pick<TraceReader, "listRuns">): Promise<string> {
  const stored = (await traces.listRuns(RUNS_NAMED + 1)).filter((run) => run.cases > 0).map((run) => run.runId);
  return stored.length === 0 ? "no run has stored results there" : `runs stored there, newest first: ${stored.slice(0, RUNS_NAMED).join(", ")}${stored.length > RUNS_NAMED ? ", …" : ""}`;
}

/** A warning line for each --service, --dataset and --tenant value no stored request has. */
export async function unmatchedFilterWarnings(traces: Pick<TraceReader, "listTraces">, values: ReportFilterValues, where: string): Promise<string[]> {
  const warnings: string[] = [];
  const matchesNothing = async (filter: { service?: string; datasetId?: string; tenant?: string; traceId?: string }) => (await traces.listTraces(filter, { after: null, limit: 1 })).traces.length === 0;
  for (const service of values.service) {
    if (await matchesNothing({ service })) warnings.push(`ragscope report: warning: --service ${JSON.stringify(service)} matches no stored request in ${where}, so its panels read "no data"; a service name must match exactly`);
  }
  for (const dataset of values.dataset) {
    if (await matchesNothing({ datasetId: dataset })) warnings.push(`ragscope report: warning: --dataset ${JSON.stringify(dataset)} matches no stored request in ${where}, so its panels read "no data"; check the dataset id (the dataset file's header, or its name)`);
  }
  for (const tenant of values.tenant) {
    if (await matchesNothing({ tenant })) warnings.push(`ragscope report: warning: --tenant ${JSON.stringify(tenant)} matches no stored request in ${where}, so the report holds nothing of it; a tenant id must match exactly`);
  }
  // Stored in lower case (collector/00-otlp/hex-id.ts); applications log either case.
  if (values.traceId !== undefined && (await matchesNothing({ traceId: values.traceId.toLowerCase() }))) {
    warnings.push(`ragscope report: warning: --trace-id ${JSON.stringify(values.traceId)} matches no stored request in ${where}, so the report shows no trace's stages; check the id in your application's log (32 hexadecimal characters)`);
  }
  return warnings;
}
