/**
 * What the embedded engine spends on one sink write, table by table: a store
 * made by the real migrations, batches of evaluated Case Results (the UI
 * benchmark's templates, ids of their own) turned into the sink's four
 * TabSeparated bodies (tab-separated-batch.ts), each inserted as the sink
 * inserts it (same statement settings, same order), and then the rollup
 * refresh the write asks for (metric-rollups.ts). For each insert: the
 * process's CPU (every thread: the engine runs in this process), wall time,
 * and the parts it created in every table (new names in system.parts, the
 * materialized views' targets and the rollups included; merges' parts too). Then again without the
 * materialized views (dropped), to tell a view's share from its table's.
 *
 * The templates carry no raw spans, so trace_spans is not written here
 * (serve writes ~40 KB a trace there: embedded-serve.bench.ts).
 *
 * Run directly (nothing else runs in the process, so its CPU is the engine's
 * and the client's):
 *     node --import tsx test/bench/engine-write-cost.ts [TRACES_PER_WRITE] [WRITES] [FOLDER]
 * (defaults 200 traces, 12 writes, os.tmpdir()); prints a table per variant.
 * RAGSCOPE_BENCH_WRITE_COST_TRAFFIC=chunks writes Case Results carrying ten
 * 500-character chunks (chunkTemplates);
 * RAGSCOPE_BENCH_WRITE_COST_VARIANTS=views,no-views,no-computed picks variants
 * (no-computed: the columns computed from payloads dropped too);
 * RAGSCOPE_BENCH_WRITE_COST_SET="max_threads=1" sets engine settings for the
 * session first (to try one on every statement before changing the code).
 *
 * Notes (2026-12-05, issue 13, quiet machine): the four bodies as RowBinary
 * instead of TabSeparated. chDB's raw insert takes text formats only (its
 * whitelist: TabSeparated, JSONEachRow, CSV and their variants), so this was
 * tried once through its native insert call directly, outside its API: the
 * same rows (200 chunk-template traces with eight raw spans each, read back
 * from the engine as RowBinary), merges stopped, ten writes alternating which
 * format went first, medians of the engine's CPU a write, ms: metric_values
 * 11.9 → 10.3, evaluation_results 41.1 → 30.2, trace_spans 22.2 → 17.9,
 * case_results 36.2 → 32.4; 111 → 91 in all (−18 %), before any cost of
 * writing RowBinary on the event loop. About 0.1 ms a trace, ~2 % of serve's
 * CPU a span; not worth an insert path outside chDB's API. Over HTTP a
 * ClickHouse server takes RowBinary as it is.
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { openClickHouse, type ClickHouseConnection } from "../../store/clickhouse/clickhouse-connection.js";
import { runMigrations } from "../../store/clickhouse/run-migrations.js";
import { clickHouseStoreOn } from "../../store/clickhouse/clickhouse-store.js";
import { batchBodies, caseResultColumns, evaluationResultColumns, metricValueColumns, traceSpanColumns } from "../../store/clickhouse/tab-separated-batch.js";
import { sinkInsertSettings, writtenRequests } from "../../store/clickhouse/clickhouse-sink.js";
import type { CaseEvaluation } from "../../evaluators/evaluate-case-result.js";
import { queryRows } from "../support/temporary-store.js";
import { median } from "./benchmark.js";
import { templates, variant } from "./ui.bench.js";
import { createDefaultRegistry } from "../../evaluators/default-registry.js";
import { evaluateCaseResult } from "../../evaluators/evaluate-case-result.js";
import { buildCaseResult } from "../support/case-results.js";
import { chunks as fixtureChunks } from "./rag-request-fixture.js";

/**
 * RAGSCOPE_BENCH_WRITE_COST_TRAFFIC=chunks: Case Results retrieving the RAG fixture's ten 500-character chunks (as
 * embedded-serve.bench.ts's traces do), five of them packed as the context; the Case Result's payload carries them
 * (~10 KB against ~1.5 KB for the UI benchmark's templates).
 */
export function chunkTemplates(): CaseEvaluation[] {
  const registry = createDefaultRegistry();
  const retrieved = fixtureChunks.map((chunk, index) => ({ chunk_id: `chunk_${index}`, text: String(chunk.text), score: 0.9 - index * 0.05 }));
  const context = retrieved.slice(0, 5).map((chunk) => chunk.text).join("\n\n");
  return ["The refund takes five days.", "Points are kept after a partial refund."].map((output) =>
    evaluateCaseResult(registry, { ...buildCaseResult({ output, retrieved, contextChunkIds: retrieved.slice(0, 5).map((chunk) => chunk.chunk_id), context, citations: ["chunk_0"] }), case_id: "" }, null, "2026-06-01T00:00:00.000Z"),
  );
}

/** The materialized views of the migrated store, read from it (name, source table, target). */
async function materializedViews(connection: ClickHouseConnection): Promise<{ name: string; source: string }[]> {
  const rows = await queryRows<{ name: string; source: string }>(
    connection,
    "SELECT name, arrayStringConcat(arrayMap(t -> splitByChar('.', t)[2], dependencies_table), ',') AS source FROM system.tables WHERE database = {database:String} AND engine = 'MaterializedView'",
    { database: connection.database },
  );
  return rows;
}

/** Every part of the database, as "table/part": a step's new parts are the names it added (inserts write level-0 parts; an INSERT … SELECT into a Replacing or Aggregating table, collapsed as it is written, level 1). */
async function partNames(connection: ClickHouseConnection): Promise<Set<string>> {
  const rows = await queryRows<{ part: string }>(connection, "SELECT concat(table, '/', name) AS part FROM system.parts WHERE database = {database:String}", { database: connection.database });
  return new Set(rows.map((row) => row.part));
}

interface Step {
  step: string;
  cpuMs: number[];
  wallMs: number[];
  bytes: number[];
  parts: Map<string, number>[];
}

/** A statement's target for the breakdown: `INSERT INTO db.table` → "insert table", `DELETE FROM db.table`, `SELECT`. */
function statementKind(query: string): string {
  const words = /^\s*(INSERT INTO|DELETE FROM|ALTER TABLE|SELECT)\s+(?:[A-Za-z_0-9]+\.)?([A-Za-z_0-9]+)?/i.exec(query);
  return words ? `${words[1]!.toLowerCase()} ${words[1]!.toUpperCase() === "SELECT" ? "" : words[2]}`.trim() : query.slice(0, 30);
}

/**
 * Times every statement the client sends (the refresh sends them one at a time, so this process's CPU between a
 * statement's start and end is that statement's): CPU ms per statement kind, added into `into`.
 */
function timeStatements(connection: ClickHouseConnection, into: Map<string, number[]>): void {
  const client = connection.client as unknown as Record<"command" | "query", (parameters: { query: string }) => Promise<unknown>>;
  for (const method of ["command", "query"] as const) {
    const original = client[method].bind(client);
    client[method] = async (parameters) => {
      const cpu = process.cpuUsage();
      try {
        const result = await original(parameters);
        if (method === "query") await (result as { json(): Promise<unknown> }).json().then((rows) => Object.assign(result as object, { json: async () => rows }));
        return result;
      } finally {
        const used = process.cpuUsage(cpu);
        const kind = statementKind(parameters.query);
        into.set(kind, [...(into.get(kind) ?? []), (used.user + used.system) / 1000]);
      }
    };
  }
}

async function run(connection: ClickHouseConnection, label: string, tracesPerWrite: number, writes: number, firstIndex: number, refresh = true): Promise<void> {
  const store = clickHouseStoreOn(connection, { rollupRefreshMs: 3_600_000 });
  const statements = new Map<string, number[]>();
  const base = process.env.RAGSCOPE_BENCH_WRITE_COST_TRAFFIC === "chunks" ? chunkTemplates() : templates();
  const steps = new Map<string, Step>();
  const record = (step: string, cpuMs: number, wallMs: number, bytes: number, parts: Map<string, number>) => {
    let entry = steps.get(step);
    if (!entry) steps.set(step, (entry = { step, cpuMs: [], wallMs: [], bytes: [], parts: [] }));
    entry.cpuMs.push(cpuMs);
    entry.wallMs.push(wallMs);
    entry.bytes.push(bytes);
    entry.parts.push(parts);
  };
  const timed = async (step: string, bytes: number, work: () => Promise<void>) => {
    const partsBefore = await partNames(connection);
    const cpu = process.cpuUsage();
    const started = performance.now();
    await work();
    const wallMs = performance.now() - started;
    const used = process.cpuUsage(cpu);
    const created = new Map<string, number>();
    for (const part of await partNames(connection)) {
      if (partsBefore.has(part)) continue;
      const table = part.slice(0, part.indexOf("/"));
      created.set(table, (created.get(table) ?? 0) + 1);
    }
    record(step, (used.user + used.system) / 1000, wallMs, bytes, created);
  };
  for (let write = 0; write < writes; write += 1) {
    const batch: CaseEvaluation[] = [];
    // Requests of the last few seconds, as a collector writes them (the templates' own dates are months old, which
    // the rollups' retention would drop).
    const now = Date.now();
    for (let index = 0; index < tracesPerWrite; index += 1) {
      const evaluation = variant(base[index % base.length]!, firstIndex + write * tracesPerWrite + index);
      const started = new Date(now - (tracesPerWrite - index) * 10).toISOString();
      batch.push({ ...evaluation, caseResult: { ...evaluation.caseResult, started_at: started, completed_at: started } });
    }
    const bodies = batchBodies(batch, () => "", Date.now());
    const inserts = [
      { table: "metric_values", columns: metricValueColumns, body: bodies.metricValues, token: `${bodies.token}:m` },
      { table: "evaluation_results", columns: evaluationResultColumns, body: bodies.evaluationResults, token: `${bodies.token}:e` },
      { table: "trace_spans", columns: traceSpanColumns, body: bodies.traceSpans, token: `${bodies.token}:s` },
      { table: "case_results", columns: caseResultColumns, body: bodies.caseResults, token: `${bodies.token}:c` },
    ];
    for (const insert of inserts) {
      await timed(insert.table, insert.body.length, () =>
        connection.insertTabSeparated({ database: connection.database, table: insert.table, columns: insert.columns, body: insert.body, settings: sinkInsertSettings(insert.token) }),
      );
    }
    if (!refresh) continue;
    store.rollups.note(writtenRequests(batch));
    if (write === 2) timeStatements(connection, statements);
    await timed("rollup refresh", 0, () => store.rollups.refresh());
  }
  await store.rollups.close();
  // The first two writes warm the engine up (its code paged in, caches filled): medians of the rest.
  const rows = [...steps.values()].map((entry) => {
    const rest = <Value>(values: Value[]) => values.slice(Math.min(2, values.length - 1));
    const parts = new Map<string, number>();
    for (const created of rest(entry.parts)) for (const [table, count] of created) parts.set(table, (parts.get(table) ?? 0) + count);
    const writesCounted = rest(entry.cpuMs).length;
    return {
      step: entry.step,
      "CPU ms (median)": Math.round(median(rest(entry.cpuMs)) * 10) / 10,
      "CPU ms (min–max)": `${Math.min(...rest(entry.cpuMs)).toFixed(1)}–${Math.max(...rest(entry.cpuMs)).toFixed(1)}`,
      "wall ms": Math.round(median(rest(entry.wallMs)) * 10) / 10,
      "KB": Math.round(median(rest(entry.bytes)) / 1024),
      "parts a write": [...parts].map(([table, count]) => `${table} ${Math.round((count / writesCounted) * 10) / 10}`).join(", "),
    };
  });
  console.log(`\n${label}: ${tracesPerWrite} traces a write, ${writes} writes (medians of the last ${writes - 2}), load ${os.loadavg()[0]!.toFixed(2)}`);
  console.table(rows);
  // A refresh recomputes whole minutes from the raw rows: its cost follows the rows already in the minutes it touches.
  if (refresh) console.log(`rollup refresh CPU ms by write, in order (requests in the current minute grow by ${tracesPerWrite} a write): ${steps.get("rollup refresh")!.cpuMs.map((value) => Math.round(value)).join(", ")}`);
  // The refresh's statements (from the third write on; the part counting's own queries are "select" too, excluded).
  const refreshRows = [...statements].filter(([kind]) => kind !== "select").map(([kind, cpuMs]) => ({ statement: kind, "per refresh": cpuMs.length / (writes - 2), "CPU ms a refresh (sum of medians)": Math.round(median(cpuMs) * (cpuMs.length / (writes - 2)) * 10) / 10 }));
  console.table(refreshRows.sort((left, right) => right["CPU ms a refresh (sum of medians)"] - left["CPU ms a refresh (sum of medians)"]));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const tracesPerWrite = Number(process.argv[2] ?? 200);
  const writes = Number(process.argv[3] ?? 12);
  const folder = process.argv[4] ?? os.tmpdir();
  const dataPath = await mkdtemp(path.join(folder, "ragscope-write-cost-"));
  const variants = (process.env.RAGSCOPE_BENCH_WRITE_COST_VARIANTS ?? "views,no-views").split(",");
  try {
    for (const [index, name] of variants.entries()) {
      const connection = await openClickHouse({ url: null, username: "default", password: "", database: `write_cost_${index}`, dataPath });
      await runMigrations(connection);
      // RAGSCOPE_BENCH_WRITE_COST_SET="name=value,…": session settings for trying an engine setting on every statement.
      for (const setting of (process.env.RAGSCOPE_BENCH_WRITE_COST_SET ?? "").split(",").filter(Boolean)) {
        const [name, value] = setting.split("=");
        if (!/^[a-z_]+$/.test(name ?? "") || !/^[A-Za-z0-9_.]+$/.test(value ?? "")) throw new Error(`RAGSCOPE_BENCH_WRITE_COST_SET: "${setting}" is not name=value`);
        await connection.client.command({ query: `SET ${name} = ${value}` });
      }
      const views = await materializedViews(connection);
      if (index === 0) console.log(`materialized views: ${views.map((view) => `${view.name} (on ${view.source})`).join("; ")}`);
      if (name !== "views") for (const view of views) await connection.client.command({ query: `DROP VIEW ${connection.database}.${view.name}` });
      // "no-computed": also without the columns the engine computes from the payload on insert (MATERIALIZED) and their
      // skip indexes; the rollups read them, so no refresh: the inserts' cost of those columns, nothing else.
      if (name === "no-computed") {
        const indexes = await queryRows<{ table: string; name: string }>(connection, "SELECT table, name FROM system.data_skipping_indices WHERE database = {database:String} AND expr IN (SELECT name FROM system.columns WHERE database = {database:String} AND default_kind = 'MATERIALIZED')", { database: connection.database });
        for (const index of indexes) await connection.client.command({ query: `ALTER TABLE ${connection.database}.${index.table} DROP INDEX ${index.name}` });
        const computed = await queryRows<{ table: string; name: string }>(connection, "SELECT table, name FROM system.columns WHERE database = {database:String} AND default_kind = 'MATERIALIZED'", { database: connection.database });
        for (const column of computed) await connection.client.command({ query: `ALTER TABLE ${connection.database}.${column.table} DROP COLUMN ${column.name}` });
      }
      const labels: Record<string, string> = { views: "as migrated", "no-views": "without the materialized views", "no-computed": "without the materialized views and computed columns (no refresh)" };
      await run(connection, labels[name] ?? name, tracesPerWrite, writes, index * 1_000_000, name !== "no-computed");
      await connection.client.command({ query: `DROP DATABASE ${connection.database}` });
      await connection.close();
    }
  } finally {
    await rm(dataPath, { recursive: true, force: true });
  }
}
