import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { minuteRanges } from "../../../store/clickhouse/metric-rollups.js";

const MINUTE = 60_000;

describe("rollup refresh: dirty minutes grouped into statements", () => {
  test("minutes within an hour of each other share a statement, farther ones get their own", () => {
    const minutes = [10, 11, 12, 70, 200, 201].map((minute) => minute * MINUTE);
    assert.deepEqual(
      minuteRanges(minutes).map((range) => range.minutes.map((minute) => minute / MINUTE)),
      [[10, 11, 12, 70], [200, 201]],
    );
  });

  test("minutes scattered over days take at most 16 statements, every minute in one of them", () => {
    const minutes = Array.from({ length: 500 }, (_, index) => index * 61 * MINUTE);
    const ranges = minuteRanges(minutes);
    assert.equal(ranges.length, 16);
    assert.deepEqual(ranges.flatMap((range) => range.minutes), minutes);
  });
});
