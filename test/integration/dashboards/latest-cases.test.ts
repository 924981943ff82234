/**
 * The Failures board's cases tables (the latest 500 failing requests, the
 * latest 500 that need review) read the raw rows only from the minute their
 * latest 500 begin, found in request_rollups
 * (dashboards/source/failures-dashboard.ts latestMinute): on a range with
 * more than 500 of each, ending inside a minute that holds later requests,
 * they list exactly what the release before (test/data/release-0015/, every
 * request of the range read) listed.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import path from "node:path";
import { createDefaultRegistry } from "../../../evaluators/default-registry.js";
import { evaluateCaseResult, type CaseEvaluation } from "../../../evaluators/evaluate-case-result.js";
import { readDashboards, type ReportDashboard } from "../../../report/dashboard-files.js";
import { allOf, type Variables } from "../../../report/grafana-macros.js";
import { panelIntervalMs } from "../../../report/panel-interval.js";
import { executableSql, runQuery } from "../../../report/panel-data.js";
import { seedExample } from "../../support/case-results.js";
import { temporaryStore, type TemporaryStore } from "../../support/temporary-store.js";

const START = Date.parse("2026-07-08T08:00:00.000Z");
const SPACING_MS = 10_000;
const REQUESTS = 1_400;
/** The range ends 25 s into a minute whose later requests are outside it. */
const context = { fromMs: START, toMs: START + 200 * 60_000 + 25_000, intervalMs: panelIntervalMs(START, START + 200 * 60_000 + 25_000, 60) };
const TABLES = ["Failing cases", "Review queue"];

let store: TemporaryStore;
let current: ReportDashboard;
let previous: ReportDashboard;

/** Request `index`, every other one failed, the others needing review. */
function request(index: number): CaseEvaluation {
  const { caseResult, evalCase } = seedExample();
  const id = `cr_latest_${String(index).padStart(4, "0")}`;
  const evaluation = evaluateCaseResult(createDefaultRegistry(), { ...caseResult, case_result_id: id, trace_id: `trace_${id}`, started_at: new Date(START + index * SPACING_MS).toISOString() }, evalCase, "2026-07-08T12:00:00.000Z");
  evaluation.caseResult.quality_status = index % 2 === 0 ? "failed" : "review_required";
  return evaluation;
}

const variables: Variables = { service: allOf([""]), tenant: allOf([""]), dataset: allOf([""]), run: allOf(["run_test"]), trace_id: { value: "" } };

async function rows(board: ReportDashboard, title: string): Promise<unknown[][]> {
  const sql = board.rows.flatMap((row) => row.panels).find((panel) => panel.title === title)!.targets[0]!.rawSql;
  const frame = await runQuery(store.store.dashboards, "A", executableSql(sql, store.connection.database, variables, context));
  return Array.from({ length: frame.rows }, (_, index) => frame.fields.map((field) => field.values[index]));
}

before(async () => {
  store = await temporaryStore();
  const evaluations = Array.from({ length: REQUESTS }, (_, index) => request(index));
  for (let first = 0; first < evaluations.length; first += 200) {
    const written = await store.store.results.write(evaluations.slice(first, first + 200));
    assert.ok(written.ok, written.ok ? "" : written.error.message);
  }
  await store.store.rollups.refresh();
  assert.equal(store.store.rollups.counters.failures, 0, store.store.rollups.counters.lastError);
  current = (await readDashboards(undefined, ["failures.json"]))[0]!;
  previous = (await readDashboards(path.join(fileURLToPath(new URL("../../data/release-0015/", import.meta.url)), "dashboards"), ["failures.json"]))[0]!;
});

after(async () => {
  await store.cleanup();
});

describe("the Failures board's cases tables", () => {
  for (const title of TABLES) {
    test(`${title}: the latest 500 of more than 500, as when every request of the range was read`, async () => {
      const listed = await rows(current, title);
      assert.equal(listed.length, 500);
      assert.deepEqual(listed, await rows(previous, title));
      // The newest listed is the range's last request of its kind, not one after the range's end.
      const newest = Number(listed[0]![0]);
      assert.ok(newest <= context.toMs && newest > context.toMs - 2 * SPACING_MS, `newest ${new Date(newest).toISOString()}`);
    });
  }
});
