/**
 * Upgrading a store of the release before migration 0035, whose raw spans were kept one row per Case Result id: the
 * same case sent from two services on one day (two requests, two rows of case_results) had one row of raw spans, the
 * second request's replacing the first's once the engine merged them. After `ragscope migrate` (bin/ragscope.js as a
 * subprocess) the table is sorted by request, as case_results is:
 * - the two requests' raw-span rows, written in two writes and not merged yet before the upgrade, are both kept and
 *   each request's trace detail reads its own spans (a merge after the upgrade keeps both);
 * - the retention an operator set on the old table (90 days) is the new table's;
 * - the old table is kept as trace_spans_before_0035 with every row it held, for the operator to drop.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import type { CaseResult } from "../../../contracts/case-result.js";
import { openClickHouse, type ClickHouseConfig } from "../../../store/clickhouse/clickhouse-connection.js";
import { ClickHouseSink } from "../../../store/clickhouse/clickhouse-sink.js";
import { ClickHouseTraceReader } from "../../../store/clickhouse/clickhouse-trace-reader.js";
import { runMigrations } from "../../../store/clickhouse/run-migrations.js";
import { migrateEmbedded, migrationsThrough } from "../../support/previous-release.js";
import { plannedCaseResult } from "../../support/stored-requests.js";
import { queryRows } from "../../support/temporary-store.js";

const PREVIOUS_RELEASE_LAST_MIGRATION = 34;
const STARTED_AT = Date.UTC(2026, 6, 8, 9, 30);
const WRITTEN_AT = Date.UTC(2026, 6, 8, 10, 0);
const CASE_RESULT_ID = "cr_sent_from_two_services";

const embedded = (dataPath: string): ClickHouseConfig => ({ url: null, username: "default", password: "", database: "ragscope", dataPath });

const REQUESTS = [
  { traceId: "a1000000000000000000000000000001", service: "support-bot", offsetMs: 0 },
  { traceId: "a1000000000000000000000000000002", service: "support-bot-canary", offsetMs: 60_000 },
] as const;

function requestOf(sent: (typeof REQUESTS)[number]): { caseResult: CaseResult; evaluationResults: []; rawSpans: { spans: Uint8Array[]; spanCount: number; storedSpanCount: number; truncatedValues: number } } {
  const caseResult = plannedCaseResult({ caseResultId: CASE_RESULT_ID, traceId: sent.traceId, startedAtMs: STARTED_AT + sent.offsetMs, service: sent.service });
  const spans = ["rag.request", "rag.retrieve"].map((name, index) => Buffer.from(JSON.stringify({ trace_id: sent.traceId, span_id: `${index + 1}`.padStart(16, "0"), name })));
  return { caseResult, evaluationResults: [], rawSpans: { spans, spanCount: 2, storedSpanCount: 2, truncatedValues: 0 } };
}

describe("upgrading a store whose raw spans were kept one row per Case Result id", () => {
  let folder: string;
  let dataDir: string;
  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-raw-spans-upgrade-"));
    dataDir = path.join(folder, "store");
    const previous = await migrationsThrough(PREVIOUS_RELEASE_LAST_MIGRATION, path.join(folder, "previous-migrations"));
    const connection = await openClickHouse(embedded(dataDir));
    try {
      await runMigrations(connection, previous);
      await connection.client.command({ query: "ALTER TABLE ragscope.trace_spans MODIFY TTL toDateTime(inserted_at) + INTERVAL 90 DAY" });
      const sink = new ClickHouseSink(connection, { datasetOf: () => "", now: () => WRITTEN_AT });
      // One write each: two parts, so the earlier release's table still holds both rows until a merge.
      for (const sent of REQUESTS) {
        const written = await sink.write([requestOf(sent)]);
        assert.ok(written.ok, written.ok ? "" : written.error.message);
      }
      const [rows] = await queryRows<{ rows: string }>(connection, "SELECT count() AS rows FROM ragscope.trace_spans");
      assert.equal(Number(rows!.rows), 2);
      const [kept] = await queryRows<{ rows: string }>(connection, "SELECT count() AS rows FROM ragscope.trace_spans FINAL");
      assert.equal(Number(kept!.rows), 1, "the earlier release's table reads the two requests as one row");
    } finally {
      await connection.close();
    }
  });
  after(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  test("ragscope migrate keeps both requests' raw spans, the operator's retention and the old table", async () => {
    const migrated = migrateEmbedded(dataDir, folder);
    assert.equal(migrated.status, 0, migrated.stdout + migrated.stderr);
    assert.match(migrated.stdout, /applied 0035_raw_spans_per_request/);

    const read = await openClickHouse(embedded(dataDir));
    try {
      // Merged as the engine would in time: each request keeps its row.
      await read.client.command({ query: "OPTIMIZE TABLE ragscope.trace_spans FINAL" });
      const reader = new ClickHouseTraceReader(read);
      for (const sent of REQUESTS) {
        const detail = await reader.readTrace(CASE_RESULT_ID, { traceId: sent.traceId });
        assert.ok(detail !== null, sent.traceId);
        assert.equal(detail.caseResult.rag_observation.service_name, sent.service);
        assert.deepEqual(
          detail.rawSpans?.spans.map((span) => [span.trace_id, span.name]),
          [
            [sent.traceId, "rag.request"],
            [sent.traceId, "rag.retrieve"],
          ],
          `request ${sent.traceId} reads its own raw spans`,
        );
      }
      const [engine] = await queryRows<{ engine_full: string }>(read, "SELECT engine_full FROM system.tables WHERE database = 'ragscope' AND name = 'trace_spans'");
      assert.match(engine!.engine_full, /ORDER BY \(tenant_id, service_name, toDate\(started_at\), case_result_id\)/);
      assert.match(engine!.engine_full, /TTL toDateTime\(inserted_at\) \+ toIntervalDay\(90\)/, `the operator's retention carried over: ${engine!.engine_full}\n${migrated.stdout}${migrated.stderr}`);
      const [before] = await queryRows<{ rows: string }>(read, "SELECT count() AS rows FROM ragscope.trace_spans_before_0035");
      assert.equal(Number(before!.rows), 2, "the old table is kept with every row it held");
    } finally {
      await read.close();
    }
  });
});
