/**
 * The report and the query tests expand the ClickHouse plugin's macros and
 * Grafana's variables exactly as interop.md §7 gives them.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { allOf, applyConditionalAll, expandMacros, interpolateVariables, renderPanelSql } from "../../../report/grafana-macros.js";
import { panelIntervalMs } from "../../../report/panel-interval.js";
import { qualifyTables, tableReferences } from "../../../report/qualify-tables.js";

// 2026-07-08T09:30:15.250Z to 2026-07-08T10:30:15.750Z, interval 20 s.
const context = { fromMs: 1_783_503_015_250, toMs: 1_783_506_615_750, intervalMs: 20_000 };
const fromS = 1_783_503_015;
const toS = 1_783_506_615;

describe("backend macros (interop.md §7 table)", () => {
  const cases: [string, string][] = [
    ["$__timeFilter(ts)", `ts >= toDateTime(${fromS}) AND ts <= toDateTime(${toS})`],
    ["$__timeFilter_ms(ts)", `ts >= fromUnixTimestamp64Milli(${context.fromMs}) AND ts <= fromUnixTimestamp64Milli(${context.toMs})`],
    ["$__dateFilter(day)", "day >= toDate('2026-07-08') AND day <= toDate('2026-07-08')"],
    ["$__dateTimeFilter(day, ts)", `(day >= toDate('2026-07-08') AND day <= toDate('2026-07-08')) AND (ts >= toDateTime(${fromS}) AND ts <= toDateTime(${toS}))`],
    ["$__dt(day, ts)", `(day >= toDate('2026-07-08') AND day <= toDate('2026-07-08')) AND (ts >= toDateTime(${fromS}) AND ts <= toDateTime(${toS}))`],
    ["$__fromTime", `toDateTime(${fromS})`],
    ["$__toTime", `toDateTime(${toS})`],
    ["$__fromTime_ms", `fromUnixTimestamp64Milli(${context.fromMs})`],
    ["$__toTime_ms", `fromUnixTimestamp64Milli(${context.toMs})`],
    ["$__timeFrom(ts)", `ts >= toDateTime(${fromS})`],
    ["$__timeTo(ts)", `ts <= toDateTime(${toS})`],
    ["$__interval_s", "20"],
    ["$__timeInterval(ts)", "toStartOfInterval(toDateTime(ts), INTERVAL 20 second)"],
    ["$__timeInterval_ms(ts)", "toStartOfInterval(toDateTime64(ts, 3), INTERVAL 20000 millisecond)"],
    ["$__timeGroup(ts, 5m)", "toStartOfInterval(toDateTime(ts), INTERVAL 300 second)"],
  ];
  for (const [macro, expansion] of cases) {
    test(macro, () => assert.equal(expandMacros(macro, context), expansion));
  }

  test("seconds are truncated, and a sub-second interval counts as one second", () => {
    assert.equal(expandMacros("$__interval_s $__timeInterval(ts)", { ...context, intervalMs: 300 }), "1 toStartOfInterval(toDateTime(ts), INTERVAL 1 second)");
  });

  test("nested parentheses stay inside one argument", () => {
    assert.equal(expandMacros("$__timeFilter(toDateTime(ts, 'UTC'))", context), `toDateTime(ts, 'UTC') >= toDateTime(${fromS}) AND toDateTime(ts, 'UTC') <= toDateTime(${toS})`);
  });

  test("an unknown macro is an error, not silently passed to the server", () => {
    assert.throws(() => expandMacros("SELECT $__table", context), /unsupported macro \$__table/);
  });
});

describe("frontend: $__conditionalAll and variables", () => {
  const condition = "$__conditionalAll(service_name IN (${service:sqlstring}), ${service})";

  test("All, or an empty value, turns the condition into 1=1", () => {
    assert.equal(applyConditionalAll(condition, { service: allOf(["a", "b"]) }), "1=1");
    assert.equal(applyConditionalAll(condition, { service: { value: "" } }), "1=1");
  });

  test("a selection keeps the condition, and sqlstring quotes each value", () => {
    const selected = { service: { value: ["support-bot", "o'brien"] } };
    assert.equal(renderPanelSql(condition, selected, context), "service_name IN ('support-bot','o''brien')");
  });

  test("several macros in one query are each decided by their own variable", () => {
    const sql = `${condition} AND $__conditionalAll(tenant_id IN ($tenant), $tenant)`;
    assert.equal(renderPanelSql(sql, { service: allOf(["a"]), tenant: { value: ["acme", "globex"] } }, context), "1=1 AND tenant_id IN ('acme','globex')");
  });

  test("the plugin's format: multi-values quoted and joined, a single value as it is", () => {
    assert.equal(interpolateVariables("IN ($run) AND x = '${baseline}'", { run: { value: ["r1", "r2"] }, baseline: { value: "r0" } }), "IN ('r1','r2') AND x = 'r0'");
  });

  test("All without a custom value stands for every option", () => {
    assert.equal(interpolateVariables("IN (${run:sqlstring})", { run: allOf(["r1", "r2"]) }), "IN ('r1','r2')");
  });

  test("a variable without a value is an error", () => {
    assert.throws(() => renderPanelSql("x = ${candidate:sqlstring}", {}, context), /\$candidate, which has no value/);
  });
});

describe("panel interval and table names", () => {
  test("the interval is the range over the points, rounded up to a readable step", () => {
    assert.equal(panelIntervalMs(0, 3_600_000, 60), 60_000);
    assert.equal(panelIntervalMs(0, 7_200_000, 60), 120_000);
    assert.equal(panelIntervalMs(0, 10_000, 60), 1_000);
  });

  test("every table after FROM or JOIN gets the database, columns and strings do not", () => {
    const sql = "SELECT runs FROM metric_values FINAL AS m JOIN (SELECT 1 FROM runs FINAL) AS r ON 1 WHERE note = 'from case_results'";
    assert.equal(qualifyTables(sql, "rag"), "SELECT runs FROM rag.metric_values FINAL AS m JOIN (SELECT 1 FROM rag.runs FINAL) AS r ON 1 WHERE note = 'from case_results'");
    assert.deepEqual(tableReferences("FROM case_results FINAL JOIN runs ON"), [{ table: "case_results", final: true }, { table: "runs", final: false }]);
  });
});
