/**
 * `ragscope report`'s default range ends at the last stored request; the
 * Collector health board runs on to the latest health snapshot, so pipeline
 * problems after the last trace show: three dead letters produced after it
 * read "Dead letters 0" until --to now was given. A range given with
 * --from/--to is kept for every board.
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { runReport } from "../../../collector/wiring/cli/report-command.js";
import { buildCaseResult } from "../../support/case-results.js";
import { temporaryStore, type TemporaryStore } from "../../support/temporary-store.js";

const minute = 60_000;

describe("the report's collector health board and its time range", () => {
  let store: TemporaryStore;
  // Recent times: collector_health keeps 30 days.
  const lastRequestMs = Math.floor(Date.now() / minute) * minute - 120 * minute;
  const deadLettersMs = lastRequestMs + 20 * minute;
  const now = lastRequestMs + 60 * minute;

  before(async () => {
    store = await temporaryStore();
    const caseResult = buildCaseResult({ output: "an answer" });
    const written = await store.store.results.write([
      { caseResult: { ...caseResult, started_at: new Date(lastRequestMs - 5 * minute).toISOString(), completed_at: new Date(lastRequestMs - 5 * minute + 3_000).toISOString() }, evaluationResults: [] },
      { caseResult: { ...caseResult, case_result_id: "cr_last", trace_id: "1af7651916cd43dd8448eb211c80319c", started_at: new Date(lastRequestMs).toISOString(), completed_at: new Date(lastRequestMs + 3_000).toISOString() }, evaluationResults: [] },
    ]);
    assert.ok(written.ok, written.ok ? "" : written.error.message);
    const snapshot = (ms: number, metric: string, value: number) => ({ ts: new Date(ms).toISOString(), instance: "evaluator-1", role: "evaluator", metric, kind: "delta" as const, value });
    // An evaluator writes each of its counters in every snapshot, 0 included (a count not written reads "no data").
    const health = await store.store.health.write([snapshot(lastRequestMs, "spans_received", 16), snapshot(lastRequestMs, "dead_letters", 0), snapshot(deadLettersMs, "dead_letters", 3), snapshot(deadLettersMs, "spans_received", 0)]);
    assert.ok(health.ok);
  });
  after(async () => {
    await store?.cleanup();
  });

  async function report(times: { from?: string; to?: string } = {}) {
    const lines: string[] = [];
    const out = path.join(store.dataPath, `report-${Object.keys(times).length}.html`);
    const outcome = await runReport(
      { out, service: [], tenant: [], dataset: [], run: [], ...times },
      { environment: { RAGSCOPE_DATA_DIR: store.dataPath, RAGSCOPE_CLICKHOUSE_DATABASE: store.connection.database } },
      { log: (line) => lines.push(line), error: (line) => lines.push(line) },
      now,
    );
    assert.ok(outcome, lines.join("\n"));
    const health = lines.slice(lines.findIndex((line) => line.includes("Collector health")));
    return { health, html: await readFile(out, "utf8") };
  }

  test("by default the health board runs past the last stored request to the latest snapshot, and says so", async () => {
    const { health, html } = await report();
    assert.match(health.find((line) => line.includes("Over the range:") && line.includes("Dead letters"))!, /Dead letters 3\b/, health.join("\n"));
    const to = new Date(deadLettersMs + minute).toISOString().replace("T", " ").slice(0, 16);
    assert.match(health[1]!, new RegExp(`time range .* – ${to} UTC, to the latest health snapshot, after the last stored request`), health.join("\n"));
    assert.match(html, /<p class="note" data-range="own">Time range of this board: .* UTC, to the latest health snapshot/);
    // The other boards keep the requests' range.
    assert.equal((html.match(/data-range="own"/g) ?? []).length, 1);
  });

  test("a range given with --to is the health board's too", async () => {
    const { health, html } = await report({ from: new Date(lastRequestMs - 10 * minute).toISOString(), to: new Date(lastRequestMs + 10 * minute).toISOString() });
    assert.match(health.find((line) => line.includes("Over the range:") && line.includes("Dead letters"))!, /Dead letters 0\b/, health.join("\n"));
    assert.doesNotMatch(html, /data-range="own"/);
  });
});
