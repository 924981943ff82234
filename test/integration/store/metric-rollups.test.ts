/**
 * The dashboards' rollups (migrations 0009 and 0014, store/clickhouse/metric-rollups.ts)
 * follow what `metric_values FINAL` and `case_results FINAL` hold: the sinks note the minutes they
 * wrote, a refresh recomputes them, a replay does not count twice, a value a
 * re-evaluation hid leaves the rollup, and closing the store refreshes what
 * is pending. Refreshes are called explicitly here (the timer only decides
 * when the collector calls the same method).
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { openClickHouse } from "../../../store/clickhouse/clickhouse-connection.js";
import { clickHouseStoreOn } from "../../../store/clickhouse/clickhouse-store.js";
import { refreshParameters, refreshSelect, requestRefreshSelect } from "../../../store/clickhouse/metric-rollups.js";
import { REQUEST_ROLLUP_COUNTS } from "../../../dashboards/source/aggregate-metrics.js";
import type { CaseEvaluation } from "../../../evaluators/evaluate-case-result.js";
import { seedEvaluation } from "../../support/case-results.js";
import { queryRows, temporaryStore, type TemporaryStore } from "../../support/temporary-store.js";

let store: TemporaryStore;

before(async () => {
  store = await temporaryStore();
});

after(async () => {
  await store.cleanup();
});

/**
 * Per metric in one minute (metric_rollups) or one hour (metric_rollups_hourly, migration 0018): the rollup's
 * count and sum, and the same from the raw rows.
 */
async function compareIn(unit: "minute" | "hour", at: string): Promise<{ rolledUp: Record<string, [number, number]>; raw: Record<string, [number, number]> }> {
  const [table, start] = unit === "minute" ? ["metric_rollups", "toStartOfMinute"] : ["metric_rollups_hourly", "toStartOfHour"];
  const rolledUp = await queryRows<{ metric: string; count: string; total: number }>(
    store.connection,
    `SELECT metric, sum(value_count) AS count, sum(value_sum) AS total FROM {{database}}.${table} FINAL WHERE ${unit} = toDateTime({at:String}, 'UTC') GROUP BY metric HAVING count > 0 ORDER BY metric`,
    { at },
  );
  const raw = await queryRows<{ metric: string; count: string; total: number }>(
    store.connection,
    `SELECT metric, count(value) AS count, sum(value) AS total FROM {{database}}.metric_values FINAL WHERE ${start}(ts) = toDateTime({at:String}, 'UTC') AND value IS NOT NULL GROUP BY metric ORDER BY metric`,
    { at },
  );
  const shape = (rows: { metric: string; count: string; total: number }[]) => Object.fromEntries(rows.map((row) => [row.metric, [Number(row.count), Number(row.total)] as [number, number]]));
  return { rolledUp: shape(rolledUp), raw: shape(raw) };
}

const compare = (minute: string) => compareIn("minute", minute);
const compareHour = (hour: string) => compareIn("hour", hour);

/** In one minute: every count of request_rollups (migration 0014), and the same counted over case_results FINAL. */
async function compareRequests(minute: string): Promise<{ rolledUp: Record<string, number>; raw: Record<string, number> }> {
  const names = Object.keys(REQUEST_ROLLUP_COUNTS);
  const [rolledUp] = await queryRows<Record<string, string>>(
    store.connection,
    `SELECT ${names.map((name) => `sum(${name}) AS ${name}`).join(", ")}, sum(rating_sum) AS rating_sum, uniqExactMerge(user_states) AS users FROM {{database}}.request_rollups FINAL WHERE minute = toDateTime({minute:String}, 'UTC')`,
    { minute },
  );
  const [raw] = await queryRows<Record<string, string>>(
    store.connection,
    `SELECT ${Object.entries(REQUEST_ROLLUP_COUNTS).map(([name, condition]) => `countIf(${condition.replaceAll("FROM human_labels FINAL", "FROM {{database}}.human_labels FINAL")}) AS ${name}`).join(", ")}, sumIf(last_rating, ${REQUEST_ROLLUP_COUNTS.rating_count}) AS rating_sum, uniqExactIf(user_id, partial_trace = 0) AS users ` +
      "FROM {{database}}.case_results FINAL WHERE toStartOfMinute(started_at) = toDateTime({minute:String}, 'UTC')",
    { minute },
  );
  const numbers = (row: Record<string, string> | undefined) => Object.fromEntries(Object.entries(row ?? {}).map(([name, value]) => [name, Number(value)]));
  return { rolledUp: numbers(rolledUp), raw: numbers(raw) };
}

describe("dashboard rollups refreshed from metric_values FINAL", () => {
  test("a write notes its minute; the refresh rolls it up exactly", async () => {
    const first = seedEvaluation("cr_rollup_1", "2026-07-08T09:30:05.000Z");
    assert.ok((await store.store.results.write([first])).ok);
    assert.equal(store.store.rollups.pendingMinutes(), 1);
    await store.store.rollups.refresh();
    assert.equal(store.store.rollups.pendingMinutes(), 0);
    const { rolledUp, raw } = await compare("2026-07-08 09:30:00");
    assert.ok(Object.keys(raw).length > 0);
    assert.deepEqual(rolledUp, raw);
    const hour = await compareHour("2026-07-08 09:00:00");
    assert.deepEqual(hour.rolledUp, raw, "the hour holds its one minute");
    const requests = await compareRequests("2026-07-08 09:30:00");
    assert.equal(requests.raw.all_requests, 1);
    assert.deepEqual(requests.rolledUp, requests.raw);
  });

  test("a replayed write is not counted twice", async () => {
    const replay = seedEvaluation("cr_rollup_1", "2026-07-08T09:30:05.000Z");
    replay.evaluationResults.forEach((result) => (result.evaluated_at = "2026-07-08T09:45:00.000Z"));
    assert.ok((await store.store.results.write([replay])).ok);
    await store.store.rollups.refresh();
    const { rolledUp, raw } = await compare("2026-07-08 09:30:00");
    assert.deepEqual(rolledUp, raw);
    assert.equal(rolledUp.recall_at_k?.[0], 1, "one request's recall");
    assert.deepEqual((await compareHour("2026-07-08 09:00:00")).rolledUp, raw, "nor in its hour");
    const requests = await compareRequests("2026-07-08 09:30:00");
    assert.equal(requests.rolledUp.all_requests, 1, "one request, written twice");
    assert.deepEqual(requests.rolledUp, requests.raw);
  });

  test("a review changes the request's final verdict in the rollups with the next refresh, once two reviewers agree", async () => {
    const minute = "2026-07-08 09:30:00";
    const before = await compareRequests(minute);
    assert.equal(before.rolledUp.passed_verdicts, 0, "not passed before the review");
    assert.equal(before.rolledUp.failed_verdicts, 1);
    // The request reviewed: the one stored above (seedEvaluation keeps its example's trace id).
    const reviewed = seedEvaluation("cr_rollup_1", "2026-07-08T09:30:05.000Z").caseResult.trace_id;
    await store.store.humanLabels.save([{ label_id: "label_rollup_1", case_result_id: "cr_rollup_1", trace_id: reviewed, metric: "faithfulness", labeler_id: "reviewer-1", verdict: "pass", value: null, note: "supported after all", labeled_at: "2026-07-08T10:00:00.000Z" }]);
    assert.equal(store.store.rollups.pendingMinutes(), 1, "the review noted its request's minute");
    await store.store.rollups.refresh();
    // One reviewer of the REVIEWERS_PER_CASE = 2 decides nothing: the automatic failed stays.
    const pending = await compareRequests(minute);
    assert.equal(pending.raw.passed_verdicts, 0, "one reviewer's pass does not pass the request");
    assert.equal(pending.raw.failed_verdicts, 1);
    assert.deepEqual(pending.rolledUp, pending.raw);
    await store.store.humanLabels.save([{ label_id: "label_rollup_2", case_result_id: "cr_rollup_1", trace_id: reviewed, metric: "faithfulness", labeler_id: "reviewer-2", verdict: "pass", value: null, note: "", labeled_at: "2026-07-08T10:05:00.000Z" }]);
    await store.store.rollups.refresh();
    const after = await compareRequests(minute);
    assert.equal(after.raw.passed_verdicts, 1, "the two agreeing reviews passed the request");
    assert.equal(after.raw.failed_verdicts, 0);
    assert.deepEqual(after.rolledUp, after.raw);
  });

  test("a value a re-evaluation hid leaves the rollup", async () => {
    const first = seedEvaluation("cr_rollup_1", "2026-07-08T09:30:05.000Z");
    const again: CaseEvaluation = {
      ...first,
      replacesEarlier: true,
      evaluationResults: first.evaluationResults.map((result) =>
        "recall_at_k" in result.metric_values ? { ...result, outcome: "not_applicable", metric_values: Object.fromEntries(Object.keys(result.metric_values).map((metric) => [metric, null])) } : result,
      ),
    };
    assert.ok((await store.store.results.write([again])).ok);
    await store.store.rollups.refresh();
    const { rolledUp, raw } = await compare("2026-07-08 09:30:00");
    assert.deepEqual(rolledUp, raw);
    assert.equal(rolledUp.recall_at_k, undefined);
    const hour = await compareHour("2026-07-08 09:00:00");
    assert.deepEqual(hour.rolledUp, hour.raw);
    assert.equal(hour.rolledUp.recall_at_k, undefined, "the hidden metric's hour key is deleted with its minute key");
  });

  test("closing the store refreshes the minutes its last writes touched", async () => {
    const connection = await openClickHouse({ url: null, username: "default", password: "", database: store.connection.database, dataPath: store.dataPath });
    const other = clickHouseStoreOn(connection);
    assert.ok((await other.results.write([seedEvaluation("cr_rollup_2", "2026-07-08T11:02:00.000Z")])).ok);
    assert.equal(other.rollups.pendingMinutes(), 1);
    await other.close();
    const { rolledUp, raw } = await compare("2026-07-08 11:02:00");
    assert.ok(Object.keys(raw).length > 0);
    assert.deepEqual(rolledUp, raw);
  });

  test("a refresh reads the rows of the day it recomputes, not every month's: its cost follows what was written", async () => {
    // A month of other traffic, in several parts as the collector writes it.
    for (let part = 0; part < 4; part += 1) {
      const batch = Array.from({ length: 25 }, (_, index) => seedEvaluation(`cr_rollup_may_${part}_${index}`, new Date(Date.parse("2026-05-02T08:00:00.000Z") + (part * 25 + index) * 3_600_000).toISOString()));
      assert.ok((await store.store.results.write(batch)).ok);
    }
    await store.store.rollups.refresh();
    const june = "2026-06-15T12:00:30.000Z";
    assert.ok((await store.store.results.write([seedEvaluation("cr_rollup_june", june)])).ok);
    await store.store.rollups.refresh();
    const { rolledUp, raw } = await compare("2026-06-15 12:00:00");
    assert.ok(Object.keys(raw).length > 0);
    assert.deepEqual(rolledUp, raw);

    // What the refresh statement reads for that minute, as the engine plans it.
    const minute = Math.floor(Date.parse(june) / 60_000) * 60_000;
    const { tenant_id: tenant, service_name: service } = seedEvaluation("cr_rollup_june", june).caseResult.rag_observation;
    const estimate = await queryRows<{ rows: string }>(store.connection, `EXPLAIN ESTIMATE ${refreshSelect(store.connection.database)}`, refreshParameters([minute], [tenant ?? ""], [service ?? ""], 1));
    const read = estimate.reduce((total, row) => total + Number(row.rows), 0);
    const [rows] = await queryRows<{ june: string; other: string }>(store.connection, "SELECT countIf(toYYYYMM(ts) = 202606) AS june, countIf(toYYYYMM(ts) != 202606) AS other FROM {{database}}.metric_values");
    assert.ok(Number(rows!.other) > 10 * Number(rows!.june), `the other months hold most rows (${rows!.other} against ${rows!.june})`);
    assert.ok(read > 0 && read <= Number(rows!.june), `the refresh of one June minute reads ${read} rows; June holds ${rows!.june}, the other months ${rows!.other}`);
    // The same for the request rollups' statement over case_results.
    const requestEstimate = await queryRows<{ table: string; rows: string }>(store.connection, `EXPLAIN ESTIMATE ${requestRefreshSelect(store.connection.database)}`, refreshParameters([minute], [tenant ?? ""], [service ?? ""], 1));
    // case_results is read three times, each for that minute: the requests, and the ids whose reviews each of the
    // final verdict's two agreements reads (human_labels itself apart).
    const requestsRead = requestEstimate.filter((row) => row.table === "case_results").reduce((total, row) => total + Number(row.rows), 0) / 3;
    const [requests] = await queryRows<{ june: string; other: string }>(store.connection, "SELECT countIf(toYYYYMM(started_at) = 202606) AS june, countIf(toYYYYMM(started_at) != 202606) AS other FROM {{database}}.case_results");
    assert.ok(Number(requests!.other) > 10 * Number(requests!.june));
    assert.ok(requestsRead > 0 && requestsRead <= Number(requests!.june), `the request refresh of one June minute reads ${requestsRead} rows; June holds ${requests!.june}, the other months ${requests!.other}`);
    assert.deepEqual((await compareRequests("2026-06-15 12:00:00")).rolledUp, (await compareRequests("2026-06-15 12:00:00")).raw);
  });
});
