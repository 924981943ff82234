/**
 * The ClickHouse adapter: every port of store/ports on one connection (a
 * ClickHouse server, or the embedded chDB engine), after the migrations ran.
 * Only this folder holds SQL and talks to `@clickhouse/client`.
 */
import { ClickHouseDeadLetterStore } from "./clickhouse-dead-letter-store.js";
import type { Store } from "../ports/store.js";
import type { ExperimentReader } from "../ports/experiment-reader.js";
import { ClickHouseExperimentReader } from "./clickhouse-experiment-reader.js";
import type { DashboardQuerySurface } from "../ports/dashboard-query-surface.js";
import type { ScopedReaders, TenantScope } from "../ports/tenant-scope.js";
import { ClickHouseAlertSink } from "./clickhouse-alert-sink.js";
import { ClickHouseCaseStore } from "./clickhouse-case-store.js";
import { openClickHouse, type ClickHouseConfig, type ClickHouseConnection } from "./clickhouse-connection.js";
import { ClickHouseDashboardQueries } from "./clickhouse-dashboard-queries.js";
import { ClickHouseHealthSink } from "./clickhouse-health-sink.js";
import { ClickHouseHumanLabelStore } from "./clickhouse-human-label-store.js";
import { ClickHouseJudgeResultSink } from "./clickhouse-judge-result-sink.js";
import { ClickHouseQualityReader } from "./clickhouse-quality-reader.js";
import { ClickHouseQuarantine } from "./clickhouse-quarantine.js";
import { ClickHouseRunLineageSink } from "./clickhouse-run-lineage-sink.js";
import { ClickHouseRunReader } from "./clickhouse-run-reader.js";
import { ClickHouseSink, type ClickHouseSinkOptions } from "./clickhouse-sink.js";
import { ClickHouseTraceReader } from "./clickhouse-trace-reader.js";
import { ClickHouseMetricRollups } from "./metric-rollups.js";
import { engineTrackedMemory } from "./engine-memory.js";
import { readStoreParts, type StoreParts } from "./store-parts.js";
import { DEFAULT_QUERY_MEMORY_MB } from "./query-memory-bound.js";
import { runMigrations } from "./run-migrations.js";
import type { StoreOpeningProgressListener } from "./store-opening-progress.js";
import { repairNotedRollups } from "./rollup-repairs.js";
import { RowVersionClock } from "../row-version-clock.js";

export interface ClickHouseStore extends Store {
  results: ClickHouseSink;
  quarantine: ClickHouseQuarantine;
  cases: ClickHouseCaseStore;
  judgeResults: ClickHouseJudgeResultSink;
  dashboards: DashboardQuerySurface;
  /** The dashboards' rollups, refreshed after the sinks' writes; refresh() to read them at once. */
  rollups: ClickHouseMetricRollups;
  /** Online experiments' Case Results and metric values (`ragscope experiment report`). */
  experiments: ExperimentReader;
  quality: ClickHouseQualityReader;
  /** The read ports (and the dashboards' surface) restricted to a tenant scope: what a reader limited to those tenants is handed. */
  scoped(scope: TenantScope): ScopedReaders & { dashboards: DashboardQuerySurface; quality: ClickHouseQualityReader };
  /** The connection itself, for tools that read the tables directly (tests, benchmarks). */
  connection: ClickHouseConnection;
  /** Bytes the embedded engine holds in use now (its inserts, merges, queries); null for a ClickHouse server, whose memory is not this process's. */
  engineMemoryBytes(): Promise<number | null>;
  /** Each table's active parts (and its fullest partition's), rows and bytes on disk, with the engine's part limits (store-parts.ts). */
  storeParts(): Promise<StoreParts>;
}

export interface ClickHouseStoreOptions {
  /** Clock for row versions and recorded times, injectable for tests. */
  now?: () => number;
  sink?: ClickHouseSinkOptions;
  /** False: the schema is someone else's to migrate (a receiver writing only health snapshots). Default true. */
  migrate?: boolean;
  /** Least time between two refreshes of the dashboards' rollups (metric-rollups.ts). Default: the config's, else DEFAULT_ROLLUP_REFRESH_MS. */
  rollupRefreshMs?: number;
  /** Memory bound of each dashboard query, MiB; 0 = none (query-memory-bound.ts). Default: the config's, else DEFAULT_QUERY_MEMORY_MB. */
  queryMemoryMb?: number;
  /** Told where the opening stands while it takes time (the migrations, the rollups' catch-up): a service's /readyz says it. */
  onProgress?: StoreOpeningProgressListener;
}

/** The ports on an open connection; closing the store closes the connection. */
export function clickHouseStoreOn(connection: ClickHouseConnection, options: ClickHouseStoreOptions = {}): ClickHouseStore {
  const now = options.now;
  const rollups = new ClickHouseMetricRollups(connection, { refreshIntervalMs: options.rollupRefreshMs });
  // One writer's versions for every sink of this store: a later write of this process always wins (row-version-clock.ts).
  const versions = new RowVersionClock(now);
  const queryMemoryBytes = (options.queryMemoryMb ?? DEFAULT_QUERY_MEMORY_MB) * 1024 * 1024;
  return {
    connection,
    rollups,
    results: new ClickHouseSink(connection, { now, rollups, versions, ...options.sink }),
    quarantine: new ClickHouseQuarantine(connection, now, versions),
    cases: new ClickHouseCaseStore(connection),
    judgeResults: new ClickHouseJudgeResultSink(connection, { now, rollups, versions }),
    deadLetters: new ClickHouseDeadLetterStore(connection),
    humanLabels: new ClickHouseHumanLabelStore(connection, "all", rollups),
    health: new ClickHouseHealthSink(connection),
    alerts: new ClickHouseAlertSink(connection, versions),
    runs: new ClickHouseRunLineageSink(connection, versions),
    reader: new ClickHouseRunReader(connection),
    traces: new ClickHouseTraceReader(connection),
    quality: new ClickHouseQualityReader(connection),
    dashboards: new ClickHouseDashboardQueries(connection, "all", queryMemoryBytes),
    experiments: new ClickHouseExperimentReader(connection),
    scoped: (scope) => ({
      scope,
      reader: new ClickHouseRunReader(connection, scope),
      traces: new ClickHouseTraceReader(connection, scope),
      humanLabels: new ClickHouseHumanLabelStore(connection, scope, rollups),
      dashboards: new ClickHouseDashboardQueries(connection, scope, queryMemoryBytes),
      quality: new ClickHouseQualityReader(connection, scope),
      experiments: new ClickHouseExperimentReader(connection, scope),
    }),
    describe: () => connection.describe(),
    engineMemoryBytes: () => engineTrackedMemory(connection),
    storeParts: () => readStoreParts(connection),
    async ping() {
      const answer = await connection.client.ping();
      return answer.success ? null : `${connection.describe()} does not answer: ${answer.error.message}`;
    },
    async close() {
      // What the last writes touched reaches the rollups before the connection goes.
      await rollups.close();
      await connection.close();
    },
  };
}

/** Opens the configured ClickHouse and applies the migrations; on a failed migration the connection is released. */
export async function openClickHouseStore(config: ClickHouseConfig, options: ClickHouseStoreOptions = {}): Promise<ClickHouseStore> {
  const { onProgress, ...storeOptions } = options;
  onProgress?.({ kind: "connecting" });
  const connection = await openClickHouse(config);
  try {
    if (options.migrate !== false) {
      // What an upgrade left as the operator had it (a retention of their own) is said once, when it happens.
      for (const note of (await runMigrations(connection, undefined, { onProgress })).notes) console.error(`ragscope: ${connection.describe()}: ${note}`);
    }
  } catch (error) {
    await connection.close();
    throw error;
  }
  // The config's store settings (settings-schema: clickhouse.*) unless the caller names its own.
  const store = clickHouseStoreOn(connection, { rollupRefreshMs: config.rollupRefreshMs, queryMemoryMb: config.queryMemoryMb, ...definedOnly(storeOptions) });
  if (options.migrate !== false) {
    // Rollup minutes an upgrade asked to recompute (rollup-repairs.ts); a failure leaves them for the next start.
    onProgress?.({ kind: "repairing-rollups" });
    const repaired = await repairNotedRollups(connection, store.rollups);
    if (!repaired.ok) console.error(`ragscope: ${connection.describe()}: ${repaired.error}`);
  }
  // A store opened to write first refreshes the rollups a process that died before its refresh left behind (metric-rollups.ts).
  if (options.migrate !== false) {
    onProgress?.({ kind: "catching-up-rollups" });
    await store.rollups.catchUp();
  }
  return store;
}

function definedOnly<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as Partial<T>;
}
