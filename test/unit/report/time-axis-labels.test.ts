/**
 * The report's time axis names each tick once: over a run of a few minutes
 * the ticks are seconds apart, and labels cut to the minute repeated
 * ("15:27 15:27 15:27 15:28"), so no point could be placed in time.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { timeSeriesChart } from "../../../report/svg-charts.js";

const tickLabels = (svg: string) => [...svg.matchAll(/<text class="tick" [^>]*text-anchor="middle">([^<]*)<\/text>/g)].map((match) => match[1]!);

describe("report time axis", () => {
  const chart = (fromMs: number, toMs: number) =>
    timeSeriesChart([{ name: "Recall@5", points: [[fromMs, 1], [toMs, 1]] }], { unit: "percentunit", fromMs, toMs, bars: false, stacked: false, label: "Retrieval over time", width: 1200 });

  test("a two-minute run: every tick label differs, to the second", () => {
    const start = Date.parse("2026-12-04T15:27:10Z");
    const labels = tickLabels(chart(start, start + 120_000));
    assert.ok(labels.length >= 3, labels.join(" "));
    assert.equal(new Set(labels).size, labels.length, labels.join(" "));
    assert.ok(labels.includes("15:28:00"), labels.join(" "));
  });

  test("half a day: ticks are hours and minutes, each once", () => {
    const start = Date.parse("2026-12-04T06:00:00Z");
    const labels = tickLabels(chart(start, start + 12 * 3_600_000));
    assert.equal(new Set(labels).size, labels.length, labels.join(" "));
    assert.ok(labels.includes("12:00"), labels.join(" "));
  });
});
