/**
 * Two layouts of a case's metric values on the embedded engine, measured on the same values (issue 13's "a row per
 * metric that applied, or a case's values as one row with Map columns — measure both"):
 * - rows: `metric_values` as the migrations make it and the sink writes it (a row per metric with a value: its
 *   evaluator, version, outcome and evaluation time beside it), the sink's own body (tab-separated-batch.ts);
 * - map: one row per case, the values in a `Map(LowCardinality(String), Float64)` beside the same request columns,
 *   in a ReplacingMergeTree partitioned and sorted as `metric_values` is, without the metric (it is in the map).
 * For each: the engine's CPU to insert the writes (merges stopped, so an insert's CPU is its own), to merge them
 * (OPTIMIZE FINAL), the disk the merged table takes, and a rollup refresh's read — per minute × metric × tenant ×
 * service: count, mean and a t-digest median over the newest version (FINAL), as metric-rollups.ts reads — whose
 * answers are compared (the same groups, counts and means).
 *
 * Run directly (nothing else runs in the process, so its CPU is the engine's and the client's):
 *     node --import tsx test/bench/metric-values-layout.ts [TRACES_PER_WRITE] [WRITES] [FOLDER]
 * (defaults 200 traces, 30 writes, os.tmpdir()). The Case Results are engine-write-cost.ts's chunk templates (the
 * RAG fixture's ten chunks, five packed), ids of their own.
 *
 * Notes at the end of the file.
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { openClickHouse, type ClickHouseConnection } from "../../store/clickhouse/clickhouse-connection.js";
import { runMigrations } from "../../store/clickhouse/run-migrations.js";
import { batchBodies, metricValueColumns } from "../../store/clickhouse/tab-separated-batch.js";
import { tabSeparatedField } from "../../store/clickhouse/tab-separated.js";
import { sinkInsertSettings } from "../../store/clickhouse/clickhouse-sink.js";
import { hasValue } from "../../store/clickhouse/result-rows.js";
import type { CaseEvaluation } from "../../evaluators/evaluate-case-result.js";
import { queryRows } from "../support/temporary-store.js";
import { median } from "./benchmark.js";
import { chunkTemplates } from "./engine-write-cost.js";
import { variant } from "./ui.bench.js";

const MAP_TABLE = `CREATE TABLE {{database}}.metric_values_by_case
(
    case_result_id String CODEC(ZSTD(1)),
    run_id LowCardinality(String),
    case_id String CODEC(ZSTD(1)),
    dataset_id LowCardinality(String),
    trace_id String CODEC(ZSTD(1)),
    service_name LowCardinality(String),
    tenant_id LowCardinality(String),
    route LowCardinality(String),
    ts DateTime64(3, 'UTC') CODEC(ZSTD(1)),
    version UInt64 CODEC(ZSTD(1)),
    values Map(LowCardinality(String), Float64)
)
ENGINE = ReplacingMergeTree(version)
PARTITION BY toYYYYMM(ts)
ORDER BY (tenant_id, service_name, toDate(ts), case_result_id)`;

/** One row per case: the request's columns and every metric with a value, as a TabSeparated Map (`{'name':value,…}`). */
function mapBody(batch: readonly CaseEvaluation[], version: number): Buffer {
  const lines: string[] = [];
  for (const { caseResult, evaluationResults } of batch) {
    const observation = caseResult.rag_observation;
    const entries: string[] = [];
    for (const result of evaluationResults) for (const [metric, value] of Object.entries(result.metric_values)) if (hasValue(value)) entries.push(`'${metric}':${value}`);
    const fields = [caseResult.case_result_id, caseResult.run_id, caseResult.case_id, "", caseResult.trace_id, observation.service_name ?? "", observation.tenant_id ?? "", observation.route ?? "", caseResult.started_at, version].map(tabSeparatedField);
    lines.push(`${fields.join("\t")}\t{${entries.join(",")}}\n`);
  }
  return Buffer.from(lines.join(""));
}

const cpuMs = () => {
  const used = process.cpuUsage();
  return (used.user + used.system) / 1000;
};

async function timed(work: () => Promise<unknown>): Promise<number> {
  const before = cpuMs();
  await work();
  return cpuMs() - before;
}

const ROLLUP_BY_ROWS = `SELECT toStartOfMinute(ts) AS minute, metric, tenant_id, service_name, count() AS value_count, round(avg(value), 9) AS mean, quantileTDigest(0.5)(value) AS median
  FROM {{database}}.metric_values FINAL WHERE value IS NOT NULL GROUP BY minute, metric, tenant_id, service_name ORDER BY minute, metric, tenant_id, service_name`;
const ROLLUP_BY_MAP = `SELECT toStartOfMinute(ts) AS minute, metric, tenant_id, service_name, count() AS value_count, round(avg(value), 9) AS mean, quantileTDigest(0.5)(value) AS median
  FROM {{database}}.metric_values_by_case FINAL ARRAY JOIN mapKeys(values) AS metric, mapValues(values) AS value GROUP BY minute, metric, tenant_id, service_name ORDER BY minute, metric, tenant_id, service_name`;

async function diskBytes(connection: ClickHouseConnection, table: string): Promise<number> {
  const [row] = await queryRows<{ bytes: string }>(connection, "SELECT sum(bytes_on_disk) AS bytes FROM system.parts WHERE database = {database:String} AND table = {table:String} AND active", { database: connection.database, table });
  return Number(row!.bytes);
}

async function main(): Promise<void> {
  const tracesPerWrite = Number(process.argv[2] ?? 200);
  const writes = Number(process.argv[3] ?? 30);
  const dataPath = await mkdtemp(path.join(process.argv[4] ?? os.tmpdir(), "ragscope-metric-layout-"));
  const connection = await openClickHouse({ url: null, username: "default", password: "", database: "metric_layout", dataPath });
  try {
    await runMigrations(connection);
    await connection.client.command({ query: MAP_TABLE.replaceAll("{{database}}", connection.database) });
    // Only the two tables compared are written; the views on metric_values (trace_list_metrics) would add their own cost to one side.
    const views = await queryRows<{ name: string }>(connection, "SELECT name FROM system.tables WHERE database = {database:String} AND engine = 'MaterializedView'", { database: connection.database });
    for (const view of views) await connection.client.command({ query: `DROP VIEW ${connection.database}.${view.name}` });
    for (const table of ["metric_values", "metric_values_by_case"]) await connection.client.command({ query: `SYSTEM STOP MERGES ${connection.database}.${table}` });
    const templates = chunkTemplates();
    const insertCpu = { rows: [] as number[], map: [] as number[] };
    let rowsWritten = 0;
    let bodyBytes = { rows: 0, map: 0 };
    for (let write = 0; write < writes; write += 1) {
      const batch: CaseEvaluation[] = [];
      for (let index = 0; index < tracesPerWrite; index += 1) batch.push(variant(templates[index % templates.length]!, write * tracesPerWrite + index));
      const version = Date.now();
      const bodies = batchBodies(batch, () => "", version);
      // Every case is written once, so the version only has to be a number: FINAL has nothing to collapse.
      const map = mapBody(batch, version);
      rowsWritten += bodies.metricRows;
      bodyBytes = { rows: bodyBytes.rows + bodies.metricValues.length, map: bodyBytes.map + map.length };
      const insertRows = () => connection.insertTabSeparated({ database: connection.database, table: "metric_values", columns: metricValueColumns, body: bodies.metricValues, settings: sinkInsertSettings(`${bodies.token}:m`) });
      const insertMap = () => connection.insertTabSeparated({ database: connection.database, table: "metric_values_by_case", columns: ["case_result_id", "run_id", "case_id", "dataset_id", "trace_id", "service_name", "tenant_id", "route", "ts", "version", "values"], body: map, settings: sinkInsertSettings(`${bodies.token}:map`) });
      // Alternating which goes first, so that neither always follows the other's work.
      if (write % 2 === 0) {
        insertCpu.rows.push(await timed(insertRows));
        insertCpu.map.push(await timed(insertMap));
      } else {
        insertCpu.map.push(await timed(insertMap));
        insertCpu.rows.push(await timed(insertRows));
      }
    }
    const cases = tracesPerWrite * writes;
    const rest = (values: number[]) => values.slice(2);
    console.log(`${cases.toLocaleString("en-US")} cases in ${writes} writes of ${tracesPerWrite}; ${(rowsWritten / cases).toFixed(1)} metric rows a case; load ${os.loadavg()[0]!.toFixed(2)}`);
    const [distinctRows] = await queryRows<{ rows: string }>(connection, "SELECT count() AS rows FROM {{database}}.metric_values".replace("{{database}}", connection.database));
    const [mapRows] = await queryRows<{ rows: string; values: string }>(connection, `SELECT count() AS rows, sum(length(values)) AS values FROM ${connection.database}.metric_values_by_case`);
    if (Number(distinctRows!.rows) !== Number(mapRows!.values)) throw new Error(`the two layouts hold different values: ${distinctRows!.rows} rows, ${mapRows!.values} map entries`);
    for (const table of ["metric_values", "metric_values_by_case"]) await connection.client.command({ query: `SYSTEM START MERGES ${connection.database}.${table}` });
    const mergeCpu = {
      rows: await timed(() => connection.client.command({ query: `OPTIMIZE TABLE ${connection.database}.metric_values FINAL` })),
      map: await timed(() => connection.client.command({ query: `OPTIMIZE TABLE ${connection.database}.metric_values_by_case FINAL` })),
    };
    const disk = { rows: await diskBytes(connection, "metric_values"), map: await diskBytes(connection, "metric_values_by_case") };
    const readCpu = { rows: [] as number[], map: [] as number[] };
    let answers = { rows: "", map: "" };
    for (let round = 0; round < 7; round += 1) {
      for (const [layout, query] of [["rows", ROLLUP_BY_ROWS], ["map", ROLLUP_BY_MAP]] as const) {
        let rows: unknown[] = [];
        readCpu[layout].push(await timed(async () => (rows = await queryRows(connection, query.replace("{{database}}", connection.database)))));
        answers = { ...answers, [layout]: JSON.stringify(rows) };
      }
    }
    if (answers.rows !== answers.map) throw new Error("the two layouts' rollups differ");
    console.table([
      { layout: "a row per metric (metric_values)", "rows stored": Number(distinctRows!.rows), "insert body KB a write": Math.round(bodyBytes.rows / writes / 1024), "insert CPU ms a write (median)": Math.round(median(rest(insertCpu.rows)) * 10) / 10, "merge CPU ms (all)": Math.round(mergeCpu.rows), "disk KB merged": Math.round(disk.rows / 1024), "rollup read CPU ms (median)": Math.round(median(rest(readCpu.rows))) },
      { layout: "a row per case, Map column", "rows stored": Number(mapRows!.rows), "insert body KB a write": Math.round(bodyBytes.map / writes / 1024), "insert CPU ms a write (median)": Math.round(median(rest(insertCpu.map)) * 10) / 10, "merge CPU ms (all)": Math.round(mergeCpu.map), "disk KB merged": Math.round(disk.map / 1024), "rollup read CPU ms (median)": Math.round(median(rest(readCpu.map))) },
    ]);
    console.log("the two layouts' rollups are equal (groups, counts, means, t-digest medians)");
  } finally {
    await connection.close();
    await rm(dataPath, { recursive: true, force: true });
  }
}

await main();

/*
 * Notes (2026-12-05, issue 13, a quiet machine, load average ~1.3; two runs of the defaults, 6,000 cases with 8
 * metric values each — embedded-serve.bench.ts's traces have 19):
 *
 *   layout                     rows    insert body   insert CPU   merge CPU   disk merged   rollup read CPU
 *                                      KB a write    ms a write   ms (all)    KB            ms
 *   a row per metric          48,000   348           17.7 / 18.1  135 / 133   354           45 / 45
 *   a row per case, Map        6,000    59            9.1 / 9.9    10 / 11     51            44 / 47
 *
 * - The Map row costs the engine ~half the insert CPU and a tenth of the merge CPU, and a seventh of the disk: the
 *   per-value columns it does not carry (the evaluation result's id, the evaluator and its version, the outcome, the
 *   evaluation time) are most of what a metric row stores. The rollup's read costs the same (ARRAY JOIN of the map
 *   against reading the rows), and gives the same answers.
 * - Against the whole write path it is small: ~(8.6 ms + 4 ms of merge) / 200 traces ≈ 60 µs a trace, ~8 µs a span
 *   of serve's ~550 (1–2 %), and ~300 bytes of disk a trace of the several KB its raw spans and Case Result take.
 * - Not adopted, because one row per case cannot keep what the rows keep:
 *   - an evaluator's values are replaced on their own: the LLM judge writes its metrics after the rules' (sampled,
 *     later, clickhouse-judge-result-sink.ts), a re-evaluation writes one evaluator again, and a NULL row hides an
 *     earlier value of one metric (result-rows.ts). ReplacingMergeTree keeps one row per sorting key: keyed by the
 *     case, the judge's row would replace the rules' row. Keyed by case and evaluator it is a row per Evaluation
 *     Result, 23 a trace, more than the 8–19 metric rows a trace writes since metrics that did not apply have no row;
 *   - the trace list's metric filter, the runs board and the gate read a value's outcome and evaluator beside it.
 *   So the store keeps a row per metric with a value and lists the metrics that did not apply on their Evaluation
 *   Result (the first option).
 */
