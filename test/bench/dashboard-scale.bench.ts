/**
 * Every dashboard panel on a store of many metric values over 30 days, on the
 * embedded engine, for a 24-hour and a 30-day range (targets: < 1 s and < 3 s
 * a panel, issue 13).
 *
 * The data is written as the collector writes it: Case Results in request
 * order, through the real ClickHouse sink (store/clickhouse/clickhouse-sink.ts)
 * in batches of RAGSCOPE_BENCH_DASHBOARD_BATCH cases (default 2,000; one
 * insert — one part — per table and batch, merged by the engine in the
 * background as in production), the store's rollups refreshed after each
 * batch as the collector's timer does. The Case Results are the seeded
 * dashboard dataset's requests (test/integration/dashboards/dashboard-dataset.ts:
 * two services, two tenants, ~30 metric values each), cloned with their own
 * ids, times spread evenly over the 30 days, ten tenants and four services.
 *
 * Size: RAGSCOPE_BENCH_METRIC_VALUES metric values (default 100,000: on a
 * loaded 2-core machine 300,000 did not finish writing in 25 minutes, and the
 * panels on a partly written store once took the process to 23.7 GB before the
 * kernel stopped it — a panel whose memory is not bounded is still to be
 * found; the issue's target is 300000000, which takes
 * hours: generation time is printed, and the store can be kept with
 * RAGSCOPE_BENCH_DASHBOARD_DIR to run the panels again without writing it).
 * Each panel runs twice and the second time is printed (the first reads the
 * parts from disk into the page cache).
 *
 * Notes (first runs, 2026-12-01, on the 2-core machine at a load average of
 * 15–27 from other work): writing 300,000 metric values (10,000 cases, five
 * batches) did not finish within 25 minutes; running the panels on the
 * partly written store (RAGSCOPE_BENCH_DASHBOARD_DIR) was killed by the
 * kernel's OOM killer at 23.7 GB resident — one of the panels' queries on
 * the 30-day range needs far more memory than the data's size; which one is
 * not known yet (run with a filter on the panel title to find it).
 */
import { mkdtemp, readdir, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { CaseEvaluation } from "../../evaluators/evaluate-case-result.js";
import { clonedRequest, metricValuesOf } from "../support/cloned-requests.js";
import { readDashboards } from "../../report/dashboard-files.js";
import { allOf, type Variables } from "../../report/grafana-macros.js";
import { panelIntervalMs } from "../../report/panel-interval.js";
import { executableSql, runQuery } from "../../report/panel-data.js";
import { openClickHouseStore } from "../../store/clickhouse/clickhouse-store.js";
import { buildDashboardDataset } from "../integration/dashboards/dashboard-dataset.js";
import { queryRows } from "../support/temporary-store.js";
import type { BenchmarkFigure, BenchmarkResult } from "./benchmark.js";

const METRIC_VALUES = Number(process.env.RAGSCOPE_BENCH_METRIC_VALUES ?? 100_000);
const BATCH = Number(process.env.RAGSCOPE_BENCH_DASHBOARD_BATCH ?? 2_000);
const KEEP = process.env.RAGSCOPE_BENCH_DASHBOARD_DIR;
const DAY = 86_400_000;
const DAYS = 30;
const SERVICES = ["shop", "bank", "travel", "health"];
const TENANTS = Array.from({ length: 10 }, (_, index) => `tenant_${index}`);
/** The day after the data ends, at midnight: the ranges end here. */
const END = Math.floor(Date.now() / DAY) * DAY;
const START = END - DAYS * DAY;

async function folderBytes(folder: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(folder, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += (await stat(path.join(entry.parentPath, entry.name))).size;
  }
  return total;
}

export async function benchmark(): Promise<BenchmarkResult> {
  const dataDir = KEEP ?? (await mkdtemp(path.join(os.tmpdir(), "ragscope-bench-dashboards-")));
  const store = await openClickHouseStore({ url: null, username: "default", password: "", database: "ragscope", dataPath: dataDir });
  const figures: BenchmarkFigure[] = [];
  try {
    const [existing] = await queryRows<{ rows: string }>(store.connection, "SELECT count() AS rows FROM {{database}}.metric_values");
    if (Number(existing!.rows) === 0) {
      const templates = buildDashboardDataset().evaluations.filter((evaluation) => evaluation.caseResult.run_id === "");
      const perCase = templates.reduce((total, template) => total + metricValuesOf(template), 0) / templates.length;
      const cases = Math.ceil(METRIC_VALUES / perCase);
      const spacingMs = (DAYS * DAY) / cases;
      const started = performance.now();
      const cpuBefore = process.cpuUsage();
      let written = 0;
      for (let first = 0; first < cases; first += BATCH) {
        const batch: CaseEvaluation[] = [];
        for (let index = first; index < Math.min(cases, first + BATCH); index += 1) batch.push(clonedRequest(templates[index % templates.length]!, index, { startMs: START, spacingMs, services: SERVICES, tenants: TENANTS }));
        const result = await store.results.write(batch);
        if (!result.ok) throw new Error(result.error.message);
        await store.rollups.refresh();
        written += batch.length;
        if (written % (BATCH * 50) === 0) console.error(`dashboard-scale: ${written.toLocaleString("en-US")} of ${cases.toLocaleString("en-US")} cases written`);
      }
      const seconds = (performance.now() - started) / 1000;
      const cpu = process.cpuUsage(cpuBefore);
      const cpuSeconds = (cpu.user + cpu.system) / 1e6;
      figures.push({ name: "generation: cases written through the sink", value: cases });
      figures.push({ name: "generation time (sink writes + rollup refreshes)", value: Math.round(seconds), unit: "s" });
      figures.push({ name: "generation rate", value: Math.round(cases / seconds), unit: "cases/s" });
      figures.push({ name: "generation rate", value: Math.round((cases * perCase) / seconds), unit: "metric values/s" });
      // CPU of the whole process (the embedded engine's threads included): what the write path costs whatever else the machine runs.
      figures.push({ name: "generation CPU time (process, engine included)", value: Math.round(cpuSeconds), unit: "s" });
      figures.push({ name: "generation rate per CPU second", value: Math.round((cases * perCase) / cpuSeconds), unit: "metric values/CPU s" });
    }
    const [counts] = await queryRows<{ values: string; parts: string; rollups: string }>(
      store.connection,
      "SELECT (SELECT count() FROM {{database}}.metric_values) AS values, (SELECT count() FROM system.parts WHERE database = '{{database}}' AND table = 'metric_values' AND active) AS parts, (SELECT count() FROM {{database}}.metric_rollups) AS rollups",
    );
    figures.push({ name: "metric values stored", value: Number(counts!.values) });
    figures.push({ name: "active parts of metric_values", value: Number(counts!.parts) });
    figures.push({ name: "rollup rows", value: Number(counts!.rollups) });
    figures.push({ name: "store on disk", value: Math.round((await folderBytes(dataDir)) / 1024 / 1024), unit: "MiB" });

    const variables: Variables = { service: allOf(SERVICES), tenant: allOf(TENANTS), dataset: allOf([""]), run: allOf([""]), baseline: { value: "" }, candidate: { value: "" }, trace_id: { value: "trace_cr_00000001" } };
    const slowest = { day: 0, month: 0 };
    for (const dashboard of await readDashboards()) {
      for (const panel of dashboard.rows.flatMap((row) => row.panels)) {
        const times: string[] = [];
        for (const [range, fromMs, target] of [["24 h", END - DAY, 1_000], ["30 d", START, 3_000]] as const) {
          const context = { fromMs, toMs: END, intervalMs: panelIntervalMs(fromMs, END, 60) };
          let elapsed = 0;
          for (let repeat = 0; repeat < 2; repeat += 1) {
            const begun = performance.now();
            for (const query of panel.targets) await runQuery(store.dashboards, query.refId, executableSql(query.rawSql, store.connection.database, variables, context));
            elapsed = performance.now() - begun;
          }
          if (range === "24 h") slowest.day = Math.max(slowest.day, elapsed);
          else slowest.month = Math.max(slowest.month, elapsed);
          times.push(`${range} ${Math.round(elapsed)} ms${elapsed < target ? "" : ` (target < ${target / 1000} s)`}`);
        }
        figures.push({ name: `${dashboard.uid} / ${panel.title}`, value: times.join(", ") });
      }
    }
    figures.push({ name: "slowest panel, 24 h range (target < 1 s)", value: Math.round(slowest.day), unit: "ms" });
    figures.push({ name: "slowest panel, 30 d range (target < 3 s)", value: Math.round(slowest.month), unit: "ms" });
    figures.push({ name: "peak RSS of the process (engine included)", value: Math.round(process.resourceUsage().maxRSS / 1024), unit: "MiB" });
  } finally {
    await store.close();
    if (KEEP === undefined) await rm(dataDir, { recursive: true, force: true });
  }
  return { title: `Dashboards at scale: every panel on ${METRIC_VALUES.toLocaleString("en-US")} metric values over ${DAYS} days, embedded engine`, figures };
}
