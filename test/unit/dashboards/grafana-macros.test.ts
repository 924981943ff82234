/**
 * The report and the query tests expand the ClickHouse plugin's macros and
 * Grafana's variables exactly as interop.md §7 gives them.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { allOf, applyConditionalAll, expandMacros, interpolateVariables, percentEncode, renderPanelSql } from "../../../report/grafana-macros.js";
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
  const condition = "$__conditionalAll(has(splitByChar(',', replaceRegexpAll(decodeURLComponent('${service:percentencode}'), '[{}]', '')), service_name), ${service})";

  test("All, or an empty value, turns the condition into 1=1", () => {
    assert.equal(applyConditionalAll(condition, { service: allOf(["a", "b"]) }), "1=1");
    assert.equal(applyConditionalAll(condition, { service: { value: "" } }), "1=1");
  });

  test("a selection keeps the condition, its values percent-encoded as Grafana's format registry writes them", () => {
    const selected = { service: { value: ["support-bot", "o'brien"] } };
    assert.equal(renderPanelSql(condition, selected, context), "has(splitByChar(',', replaceRegexpAll(decodeURLComponent('%7Bsupport-bot%2Co%27brien%7D'), '[{}]', '')), service_name)");
  });

  test("several macros in one query are each decided by their own variable", () => {
    const sql = `${condition} AND $__conditionalAll(tenant_id = decodeURLComponent('\${tenant:percentencode}'), $tenant)`;
    assert.equal(renderPanelSql(sql, { service: allOf(["a"]), tenant: { value: "acme" } }, context), "1=1 AND tenant_id = decodeURLComponent('acme')");
  });

  test("percentencode: encodeURIComponent plus !'()*, a multi-value as {a,b}; quotes and backslashes never survive", () => {
    assert.equal(interpolateVariables("${run:percentencode} ${baseline:percentencode}", { run: { value: ["r1", "r2"] }, baseline: { value: "r0" } }), "%7Br1%2Cr2%7D r0");
    assert.equal(percentEncode("\\' OR 1=1 -- (x)*!"), "%5C%27%20OR%201%3D1%20--%20%28x%29%2A%21");
  });

  test("All without a custom value stands for every option", () => {
    assert.equal(interpolateVariables("${run:percentencode}", { run: allOf(["r1", "r2"]) }), "%7Br1%2Cr2%7D");
  });

  test("a variable without a value is an error", () => {
    assert.throws(() => renderPanelSql("x = decodeURLComponent('${candidate:percentencode}')", {}, context), /\$candidate, which has no value/);
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
