/**
 * The rollups' refresh interval is a user setting (clickhouse.rollupRefreshMs,
 * RAGSCOPE_ROLLUP_REFRESH_MS, default 5 s), like the dashboard queries' memory
 * bound (clickhouse.queryMemoryMb, RAGSCOPE_QUERY_MEMORY_MB): parsed and
 * checked with the other settings, and a store opened from the settings — as
 * every command opens it — refreshes the rollups no sooner than the interval
 * after the previous refresh. The clock and timers are node:test's mock ones.
 */
import { afterEach, describe, mock, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { resolveSettings } from "../../../collector/wiring/config/load-settings.js";
import { openClickHouseStore } from "../../../store/clickhouse/clickhouse-store.js";
import { seedEvaluation } from "../../support/case-results.js";

afterEach(() => mock.timers.reset());

describe("the rollup refresh interval and the query memory bound as settings", () => {
  test("defaults, the environment and the config file set them; out-of-range values are refused with the variable's name", () => {
    const defaults = resolveSettings({ environment: {} });
    assert.ok(defaults.ok);
    assert.equal(defaults.value.settings.clickhouse.rollupRefreshMs, 5_000);
    assert.equal(defaults.value.settings.clickhouse.queryMemoryMb, 2_048);

    const fromEnvironment = resolveSettings({ environment: { RAGSCOPE_ROLLUP_REFRESH_MS: "60000", RAGSCOPE_QUERY_MEMORY_MB: "0" } });
    assert.ok(fromEnvironment.ok);
    assert.equal(fromEnvironment.value.settings.clickhouse.rollupRefreshMs, 60_000);
    assert.equal(fromEnvironment.value.settings.clickhouse.queryMemoryMb, 0);
    assert.deepEqual(fromEnvironment.value.origins.get("clickhouse.rollupRefreshMs"), { kind: "environment", variable: "RAGSCOPE_ROLLUP_REFRESH_MS" });

    const fromFile = resolveSettings({ file: { path: "/etc/ragscope.yaml", document: { clickhouse: { rollupRefreshMs: 1_000, queryMemoryMb: 512 } } } });
    assert.ok(fromFile.ok);
    assert.equal(fromFile.value.settings.clickhouse.rollupRefreshMs, 1_000);
    assert.equal(fromFile.value.settings.clickhouse.queryMemoryMb, 512);

    const refused = resolveSettings({ environment: { RAGSCOPE_ROLLUP_REFRESH_MS: "10", RAGSCOPE_QUERY_MEMORY_MB: "-1" } });
    assert.ok(!refused.ok);
    assert.equal(refused.error.length, 2, refused.error.join("\n"));
    assert.match(refused.error.find((problem) => problem.includes("RAGSCOPE_ROLLUP_REFRESH_MS")) ?? "", /at least 100/);
    assert.match(refused.error.find((problem) => problem.includes("RAGSCOPE_QUERY_MEMORY_MB")) ?? "", /at least 0/);
  });

  test("a store opened from the settings refreshes the rollups no sooner than the interval after the last refresh", async () => {
    const dataPath = await mkdtemp(path.join(os.tmpdir(), "ragscope-rollup-interval-"));
    const resolved = resolveSettings({ environment: { RAGSCOPE_ROLLUP_REFRESH_MS: "60000", RAGSCOPE_DATA_DIR: dataPath } });
    assert.ok(resolved.ok);
    const store = await openClickHouseStore(resolved.value.settings.clickhouse);
    try {
      assert.equal(store.rollups.refreshIntervalMs, 60_000);
      mock.timers.enable({ apis: ["setTimeout", "Date"], now: Date.parse("2026-07-08T10:00:00.000Z") });
      assert.ok((await store.results.write([seedEvaluation("cr_interval_1", "2026-07-08T09:30:05.000Z")])).ok);
      // The first refresh after a write runs at once (no earlier refresh to wait for).
      mock.timers.tick(0);
      assert.equal(store.rollups.pendingMinutes(), 0, "the first refresh started");
      await store.rollups.refresh();
      assert.equal(store.rollups.counters.refreshes, 1);

      assert.ok((await store.results.write([seedEvaluation("cr_interval_2", "2026-07-08T09:31:05.000Z")])).ok);
      assert.equal(store.rollups.pendingMinutes(), 1);
      mock.timers.tick(59_999);
      assert.equal(store.rollups.pendingMinutes(), 1, "no refresh before the interval has passed");
      mock.timers.tick(1);
      assert.equal(store.rollups.pendingMinutes(), 0, "the refresh started when the interval had passed");
      await store.rollups.refresh();
      assert.equal(store.rollups.counters.refreshes, 2);
      assert.equal(store.rollups.counters.failures, 0, store.rollups.counters.lastError);
    } finally {
      mock.timers.reset();
      await store.close();
      await rm(dataPath, { recursive: true, force: true });
    }
  });
});
