/**
 * No dashboard panel can take the machine down: every panel query runs under
 * a per-query memory bound (store/clickhouse/query-memory-bound.ts,
 * clickhouse.queryMemoryMb), and every panel fits a small one on a store of
 * online traffic — including the runs board opened with an empty run (what
 * `var-baseline=` in an address sends), where the flipped-cases join once
 * paired every online result of an evaluator with every other one. A query
 * past the bound fails alone, with an error naming the setting, and the
 * engine answers the next query.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readDashboards } from "../../../report/dashboard-files.js";
import { allOf, type Variables } from "../../../report/grafana-macros.js";
import { panelIntervalMs } from "../../../report/panel-interval.js";
import { executableSql, runQuery } from "../../../report/panel-data.js";
import { QueryMemoryLimitError } from "../../../store/clickhouse/query-memory-bound.js";
import type { CaseEvaluation } from "../../../evaluators/evaluate-case-result.js";
import { clonedRequest } from "../../support/cloned-requests.js";
import { temporaryStore, type TemporaryStore } from "../../support/temporary-store.js";
import { buildDashboardDataset } from "./dashboard-dataset.js";

/** Small enough that a panel whose memory grows with the square of the rows fails on this store. */
const BOUND_MB = 64;
const REQUESTS = 1_500;
const HOUR = 3_600_000;
const END = Math.floor(Date.now() / HOUR) * HOUR;
const START = END - 24 * HOUR;
const SERVICES = ["shop", "bank"];
const TENANTS = ["tenant_a", "tenant_b", "tenant_c"];

let store: TemporaryStore;

before(async () => {
  store = await temporaryStore({ store: { queryMemoryMb: BOUND_MB } });
  const templates = buildDashboardDataset().evaluations.filter((evaluation) => evaluation.caseResult.run_id === "");
  const requests: CaseEvaluation[] = [];
  for (let index = 0; index < REQUESTS; index += 1) requests.push(clonedRequest(templates[index % templates.length]!, index, { startMs: START, spacingMs: (END - START) / REQUESTS, services: SERVICES, tenants: TENANTS }));
  for (let first = 0; first < requests.length; first += 500) {
    const written = await store.store.results.write(requests.slice(first, first + 500));
    assert.ok(written.ok, written.ok ? "" : written.error.message);
  }
  await store.store.rollups.refresh();
});

after(async () => {
  await store.cleanup();
});

describe(`dashboard panels under a ${BOUND_MB} MiB bound per query`, () => {
  test(`every panel of every board runs on ${REQUESTS.toLocaleString("en-US")} online requests, the runs board with empty runs too`, async () => {
    const variables: Variables = { service: allOf(SERVICES), tenant: allOf(TENANTS), dataset: allOf([""]), run: allOf([""]), baseline: { value: "" }, candidate: { value: "" }, trace_id: { value: "trace_cr_00000001" } };
    const context = { fromMs: START, toMs: END, intervalMs: panelIntervalMs(START, END, 60) };
    const failures: string[] = [];
    let queries = 0;
    for (const dashboard of await readDashboards()) {
      for (const panel of dashboard.rows.flatMap((row) => row.panels)) {
        for (const target of panel.targets) {
          queries += 1;
          try {
            const frame = await runQuery(store.store.dashboards, target.refId, executableSql(target.rawSql, store.connection.database, variables, context));
            // Online results have no case: nothing to match between runs.
            if (panel.title === "Cases that flipped") assert.equal(frame.rows, 0);
          } catch (error) {
            failures.push(`${dashboard.uid} / ${panel.title} [${target.refId}]: ${error instanceof Error ? error.message.slice(0, 300) : String(error)}`);
          }
        }
      }
    }
    assert.ok(queries >= 40, `ran ${queries} panel queries`);
    assert.deepEqual(failures, []);
  });

  test("a query past the bound fails alone, naming the setting; the engine answers the next query", async () => {
    await assert.rejects(
      store.store.dashboards.query("SELECT length(groupArray(number)) AS values FROM numbers(50000000)"),
      (error: unknown) => {
        assert.ok(error instanceof QueryMemoryLimitError, String(error));
        assert.match(error.message, new RegExp(`memory bound of ${BOUND_MB} MiB`));
        assert.match(error.message, /clickhouse\.queryMemoryMb \(RAGSCOPE_QUERY_MEMORY_MB/);
        return true;
      },
    );
    const after = await store.store.dashboards.query("SELECT count() AS requests FROM " + store.connection.database + ".case_results FINAL");
    assert.deepEqual(after.data, [[REQUESTS]]);
  });

  test("the bound is the query's own: writes and other readers of the engine are not limited by it", async () => {
    const [row] = (await (await store.connection.client.query({ query: "SELECT length(groupArray(number)) AS values FROM numbers(20000000)", format: "JSONEachRow" })).json()) as { values: number }[];
    assert.equal(Number(row!.values), 20_000_000);
  });
});
