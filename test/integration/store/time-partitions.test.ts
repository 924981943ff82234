/**
 * The time layout of migration 0007 as the collector meets it: a Case Result
 * evaluated again much later (a replay, a re-evaluation, a judge verdict a
 * month after the request) lands in the partition of the REQUEST's month,
 * not of the insert's, so ReplacingMergeTree still collapses the copies —
 * FINAL returns the newer one, and a merge leaves one row.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { ClickHouseSink } from "../../../store/clickhouse/clickhouse-sink.js";
import { queryRows, temporaryStore, type TemporaryStore } from "../../support/temporary-store.js";
import { buildDashboardDataset } from "../dashboards/dashboard-dataset.js";

const DAY = 86_400_000;
let store: TemporaryStore;

before(async () => {
  store = await temporaryStore();
});

after(async () => {
  await store.cleanup();
});

describe("tables partitioned by the request's month", () => {
  test("a case evaluated again a month later collapses with its first evaluation", async () => {
    const [evaluation] = buildDashboardDataset().evaluations;
    const startedAt = Date.parse(evaluation!.caseResult.started_at);
    const requestMonth = new Date(startedAt).toISOString().slice(0, 7).replace("-", "");
    let clock = startedAt + 1_000;
    const sink = new ClickHouseSink(store.connection, { now: () => clock });
    assert.deepEqual(await sink.write([evaluation!]), { ok: true, value: undefined });
    clock = startedAt + 35 * DAY;
    // The second evaluation differs (a later verdict), so it is a new row version, not a replayed insert.
    const again = { ...evaluation!, caseResult: { ...evaluation!.caseResult, quality_status: "failed" as const } };
    assert.deepEqual(await sink.write([again]), { ok: true, value: undefined });

    for (const table of ["case_results", "evaluation_results", "metric_values"]) {
      const partitions = await queryRows<{ partition: string; rows: string }>(store.connection, `SELECT _partition_id AS partition, count() AS rows FROM {{database}}.${table} GROUP BY partition`);
      assert.deepEqual(partitions.map((row) => row.partition), [requestMonth], `${table}: every copy is in the request's month`);
    }
    const read = await queryRows<{ quality_status: string; rows: number }>(store.connection, "SELECT quality_status, count() OVER () AS rows FROM {{database}}.case_results FINAL");
    assert.deepEqual(read, [{ quality_status: "failed", rows: 1 }]);

    await store.connection.client.command({ query: `OPTIMIZE TABLE ${store.connection.database}.case_results FINAL` });
    const [merged] = await queryRows<{ rows: string }>(store.connection, "SELECT count() AS rows FROM {{database}}.case_results");
    assert.equal(Number(merged!.rows), 1, "a merge keeps one row");
    // A row per metric with a value (metrics without one are listed on their Evaluation Result, migration 0008).
    const metricRows = evaluation!.evaluationResults.reduce((total, item) => total + Object.values(item.metric_values).filter((value) => value !== null).length, 0);
    const [metrics] = await queryRows<{ rows: string }>(store.connection, "SELECT count() AS rows FROM {{database}}.metric_values FINAL");
    assert.equal(Number(metrics!.rows), metricRows);
  });

  test("each growing table has a retention TTL", async () => {
    const tables = await queryRows<{ name: string; create_table_query: string }>(store.connection, "SELECT name, create_table_query FROM system.tables WHERE database = '{{database}}' AND name IN ('case_results', 'evaluation_results', 'metric_values') ORDER BY name");
    assert.equal(tables.length, 3);
    for (const table of tables) assert.match(table.create_table_query, /TTL toDateTime\(inserted_at\) \+ toIntervalDay\(400\)/, table.name);
  });
});
