/**
 * `ragscope report`: the dashboards without Grafana. Runs the panels of the
 * generated Grafana dashboards (dashboards/*.json) on the configured store —
 * the embedded engine by default, or RAGSCOPE_CLICKHOUSE_URL — writes them as
 * one static HTML file with charts, and prints the headline numbers.
 *
 * `--tenant` restricts the store itself, not only the dashboards' tenant
 * filter: every panel, variable and the time range are read through the
 * store's ports for those tenants (store/ports/tenant-scope.ts), so a report
 * for tenant A holds none of another tenant's runs, traces, counts or metric
 * values — the report can be handed to A.
 *
 * Without --tenant, a run the report shows whose results carry several
 * tenants (any tenant's spans may name any run id) is reported all the same —
 * it is a measurement — with a warning in the terminal and a notice at the top
 * of the report naming the tenants and counts (report/run-tenant-notices.ts).
 *
 * Exit 2 (a null outcome) when there is nothing to report on: a data folder
 * that does not exist (not created: existing-store.ts), a store without
 * ragscope data, or a --run / --baseline / --candidate with no stored
 * results; a --service, --dataset or --tenant value that matches no stored
 * request is a warning (report/unmatched-filters.ts).
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { parseIsoTime } from "../../../core/iso-time.js";
import { failure, success, type Result } from "../../../core/result.js";
import { describeUnwritableFile, writableFile } from "../../../core/file-access-problems.js";
import { collectDashboard, type DashboardResult } from "../../../report/collect-report.js";
import { unpairedRunsNotice } from "../../../report/unpaired-runs-notice.js";
import { readDashboards, type ReportDashboard } from "../../../report/dashboard-files.js";
import { formatValue } from "../../../report/format-value.js";
import { statValues } from "../../../report/rate-basis-fields.js";
import { formatRange, renderHtmlReport } from "../../../report/html-report.js";
import { withholdBlindGold } from "../../../report/withhold-blind-gold.js";
import { openClickHouseStore } from "../../../store/clickhouse/clickhouse-store.js";
import type { DashboardQuerySurface } from "../../../store/ports/dashboard-query-surface.js";
import type { RunReader } from "../../../store/ports/run-reader.js";
import { readBehaviourBoard } from "../../../evaluators/behaviour/behaviour-board.js";
import { describeScope } from "../../../store/ports/tenant-scope.js";
import { describeRunsWithoutResults, runsWithoutResults, unmatchedFilterWarnings } from "../../../report/unmatched-filters.js";
import { runsShown, runTenantNotices } from "../../../report/run-tenant-notices.js";
import { reportInvalidSettings, settingsForCommand, type SettingsRequest } from "./command-settings.js";
import { storeWithoutData } from "./existing-store.js";
import { kafkaLettersElsewhere } from "./dead-letters-command.js";

type Output = { log: (line: string) => void; error: (line: string) => void };

export interface ReportOptions {
  dataDir?: string;
  out: string;
  from?: string;
  to?: string;
  service: string[];
  tenant: string[];
  dataset: string[];
  run: string[];
  baseline?: string;
  candidate?: string;
  traceId?: string;
  traceUrl?: string;
}

export interface ReportOutcome {
  file: string;
  dashboards: DashboardResult[];
  panelErrors: number;
}


/** Blind cases whose gold strings the report looks for (each case's gold is a few strings; bounded memory). */
const MAXIMUM_BLIND_CASES = 20_000;

const DURATION_MS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * `now`, `now-6h`, or an ISO 8601 date or date-time (core/iso-time.ts: no zone is UTC, a date that does not exist
 * is refused rather than rolled over into the next month). The error names what does not exist, or is null when the
 * text is none of the forms (the caller lists them).
 */
export function parseTime(text: string, now: number): Result<number, string | null> {
  if (text === "now") return success(now);
  const relative = /^now-(\d+)([smhd])$/.exec(text);
  if (relative) return success(now - Number(relative[1]) * DURATION_MS[relative[2]!]!);
  const parsed = parseIsoTime(text);
  if (parsed.ok) return parsed;
  return failure(parsed.error.kind === "unreadable" ? null : parsed.error.why);
}

/** The stored requests' time span, to the minute; the last day when nothing is stored. */
async function dataRange(reader: RunReader, now: number): Promise<{ fromMs: number; toMs: number }> {
  const span = await reader.storedSpan();
  if (span === null) return { fromMs: now - DURATION_MS.d!, toMs: now };
  const minute = DURATION_MS.m!;
  return { fromMs: Math.floor(span.firstMs / minute) * minute, toMs: Math.ceil((span.lastMs + 1) / minute) * minute };
}

/** A board whose every query reads the collector's own snapshots (collector_health), none of the requests. */
function readsOnlyCollectorHealth(dashboard: ReportDashboard): boolean {
  const targets = dashboard.rows.flatMap((row) => row.panels.flatMap((panel) => panel.targets));
  return targets.length > 0 && targets.every((target) => /\bcollector_health\b/.test(target.rawSql));
}

/** The latest health snapshot at or after `fromMs`, rounded up to the minute; 0 when none (or none the reader may see). */
async function latestHealthSnapshotMs(surface: DashboardQuerySurface, fromMs: number): Promise<number> {
  const result = await surface.query(`SELECT toUnixTimestamp64Milli(max(ts)) AS latest, count() AS snapshots FROM ${surface.database}.collector_health FINAL WHERE ts >= fromUnixTimestamp64Milli(toInt64(${Math.floor(fromMs)}))`);
  const [latest, snapshots] = (result.data[0] ?? []) as [unknown, unknown];
  if (Number(snapshots ?? 0) === 0) return 0;
  const minute = DURATION_MS.m!;
  return Math.ceil((Number(latest) + 1) / minute) * minute;
}

export function summaryLines(dashboards: readonly DashboardResult[]): string[] {
  const lines: string[] = [];
  for (const result of dashboards) {
    lines.push(result.dashboard.title);
    if (result.range) lines.push(`  time range ${formatRange(result.range.fromMs, result.range.toMs)}, ${result.range.why}`);
    if (result.skipped !== null) {
      lines.push(`  not shown: ${result.skipped}`);
      continue;
    }
    const unpaired = unpairedRunsNotice(result);
    if (unpaired !== null) lines.push(`  nothing to compare: ${unpaired}`);
    for (const panel of result.panels.values()) {
      if (panel.error !== null) {
        lines.push(`  ${panel.panel.title}: ${panel.error}`);
        continue;
      }
      if (panel.panel.kind === "stat") {
        // A rate over a subset carries its basis (report/rate-basis-fields.ts): "Task success 0.0% (of 4 judged; 14 not judged)".
        const values = statValues(panel.frames.flatMap((frame) => frame.fields)).map(({ field, basis }) => {
          const value = field.values[0];
          return `${field.name} ${formatValue(typeof value === "number" ? value : null, panel.panel.columns.get(field.name)?.unit ?? panel.panel.unit, panel.panel.columns.get(field.name)?.decimals ?? panel.panel.decimals)}${basis === null ? "" : ` (${basis})`}`;
        });
        lines.push(`  ${panel.panel.title}: ${values.join(" · ")}`);
      } else if (panel.panel.kind === "table") {
        lines.push(`  ${panel.panel.title}: ${panel.frames[0]?.rows ?? 0} rows`);
      }
    }
  }
  return lines;
}

export async function runReport(options: ReportOptions, request: SettingsRequest, output: Output, now = Date.now()): Promise<ReportOutcome | null> {
  const resolved = await settingsForCommand("report", request, { flags: { "clickhouse.dataPath": { value: options.dataDir, flag: "--data-dir" } } });
  if (!resolved.ok) {
    reportInvalidSettings("report", resolved.error, output);
    return null;
  }
  const read = { from: options.from === undefined ? null : parseTime(options.from, now), to: options.to === undefined ? null : parseTime(options.to, now) };
  // Named with the command, the flag and the value given, like every other refusal of a command line.
  for (const flag of ["from", "to"] as const) {
    const parsed = read[flag];
    if (parsed === null || parsed.ok) continue;
    output.error(
      parsed.error === null
        ? `ragscope report: --${flag} ${JSON.stringify(options[flag])} is not a time; --from and --to take "now", "now-6h" (s, m, h, d) or an ISO 8601 date or date-time such as 2026-07-08T09:00:00Z (no zone: UTC)`
        : `ragscope report: --${flag} ${JSON.stringify(options[flag])}: ${parsed.error}`,
    );
    return null;
  }
  const times = { from: read.from?.ok ? read.from.value : null, to: read.to?.ok ? read.to.value : null };
  // Before the panels run, not after: a folder or a path that cannot be written would lose the report they took.
  const writable = await writableFile(options.out, "report file (--out)", "report.html");
  if (!writable.ok) {
    output.error(`ragscope report: ${writable.error}`);
    return null;
  }
  const clickhouse = resolved.value.settings.clickhouse;
  const nothingStored = await storeWithoutData("report", clickhouse);
  if (nothingStored !== null) {
    output.error(nothingStored);
    return null;
  }
  // Migrated: a data folder from an older version gets the tables the panels read.
  const store = await openClickHouseStore(clickhouse);
  try {
    const readers = store.scoped(options.tenant.length > 0 ? options.tenant : "all");
    const where = options.tenant.length > 0 ? `${store.describe()} (${describeScope(options.tenant)})` : store.describe();
    const missingRuns = await runsWithoutResults(readers.reader, options);
    if (missingRuns.length > 0) {
      output.error(await describeRunsWithoutResults(missingRuns, readers.traces, where));
      return null;
    }
    for (const warning of await unmatchedFilterWarnings(readers.traces, options, where)) output.error(warning);
    const extent = await dataRange(readers.reader, now);
    const fromMs = times.from ?? extent.fromMs;
    const toMs = times.to ?? extent.toMs;
    if (fromMs >= toMs) {
      // Without --to the range ends at the last stored request: say so, since the user gave no --to to be after.
      const end = times.to === null ? `the last stored request (${new Date(toMs).toISOString()}), where the range ends without --to` : "--to";
      const start = times.from === null ? `the first stored request (${new Date(fromMs).toISOString()}), where it starts without --from,` : "--from";
      output.error(`ragscope report: the time range is empty: ${start} must be before ${end}`);
      return null;
    }
    const values: Record<string, string[]> = { service: options.service, tenant: options.tenant, dataset: options.dataset, run: options.run };
    if (options.baseline) values.baseline = [options.baseline];
    if (options.candidate) values.candidate = [options.candidate];
    if (options.traceId) values.trace_id = [options.traceId];
    // The collector health board runs to its latest snapshot when that is later: dead letters and drops after the last
    // stored request are what the board is for, and the default end (the last request) left them out.
    const healthToMs = times.to ?? Math.max(toMs, await latestHealthSnapshotMs(readers.dashboards, fromMs));
    const collected: DashboardResult[] = [];
    for (const dashboard of await readDashboards()) {
      const health = readsOnlyCollectorHealth(dashboard) && healthToMs > toMs;
      const result = await collectDashboard(readers.dashboards, dashboard, { fromMs, toMs: health ? healthToMs : toMs, values });
      collected.push(health ? { ...result, range: { fromMs, toMs: healthToMs, why: "to the latest health snapshot, after the last stored request" } } : result);
    }
    // Blind-split gold data is never shown (seed §二.2): cells quoting it are withheld, the scores stay.
    const blindCases = await store.cases.listSplit("blind", MAXIMUM_BLIND_CASES);
    const { dashboards, withheld } = withholdBlindGold(collected, blindCases);
    // The behaviour metrics' sessions and windows are TypeScript (evaluators/behaviour/); the board's filters are one service and one run at most.
    const behaviour =
      options.service.length > 1 || options.run.length > 1
        ? null
        : await readBehaviourBoard(readers.quality, { fromMs, toMs, bucketSeconds: Math.max(60, Math.ceil((toMs - fromMs) / 1000)), service: options.service[0], runId: options.run[0] }, now);
    if (behaviour === null) output.log("User behaviour: not shown — give at most one --service and one --run for the behaviour metrics");
    // The operator's report counts every tenant's results of a run id; a tenant's (--tenant) counts its own only.
    const notices = options.tenant.length > 0 ? [] : await runTenantNotices(readers.reader, runsShown(options, dashboards));
    for (const notice of notices) output.error(`ragscope report: warning: ${notice}`);
    const file = path.resolve(options.out);
    try {
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(
        file,
        renderHtmlReport({ title: "ragscope report", generatedAt: new Date(now).toISOString(), storedIn: options.tenant.length > 0 ? `${store.describe()}, ${describeScope(options.tenant)} only` : store.describe(), fromMs, toMs, dashboards, traceUrl: options.traceUrl ?? null, behaviour, runTenantNotices: notices }),
      );
    } catch (error) {
      // Checked at the start; what changed since (a disk that filled up) is said the same way.
      output.error(`ragscope report: ${describeUnwritableFile(options.out, error, "report file (--out)", "report.html")}`);
      return null;
    }
    for (const line of summaryLines(dashboards)) output.log(line);
    // Not tenant data (a letter's tenant may be what failed to read): the operator's report shows them, a tenant's does not.
    if (options.tenant.length === 0) {
      const deadLetters = await store.deadLetters.count();
      output.log(`Dead letters: ${deadLetters} acknowledged message${deadLetters === 1 ? "" : "s"} not evaluated, kept in the store${deadLetters > 0 ? " — `ragscope dead-letters` lists them with the reason" : ""}; ${kafkaLettersElsewhere}`);
    }
    const panelErrors = dashboards.reduce((total, result) => total + [...result.panels.values()].filter((panel) => panel.error !== null && !panel.error.startsWith("no value for")).length, 0);
    output.log("");
    if (withheld > 0) output.log(`${withheld} table cells withheld: they quote gold data of blind-split cases`);
    if (blindCases.length === MAXIMUM_BLIND_CASES) output.error(`more than ${MAXIMUM_BLIND_CASES} blind-split cases are stored: gold data of the others is not looked for; keep blind sets smaller or report them from a store of their own`);
    output.log(`Report written to ${file}`);
    if (panelErrors > 0) output.error(`${panelErrors} panels failed; see the report`);
    return { file, dashboards, panelErrors };
  } finally {
    await store.close();
  }
}
