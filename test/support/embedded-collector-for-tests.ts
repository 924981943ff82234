/**
 * The embedded collector (receiver on a free port, in-process evaluation, the
 * ClickHouse engine in a temporary folder) for a test file, with a short quiet
 * period; `stop` closes it and removes the folder.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { loadSettings } from "../../collector/wiring/config/load-settings.js";
import { startEmbeddedCollector, type EmbeddedCollector } from "../../collector/wiring/run/embedded-collector.js";
import type { MetricsRegistry } from "../../collector/wiring/observe/metrics-registry.js";

export interface CollectorForTests {
  collector: EmbeddedCollector;
  stop(): Promise<void>;
}

/** `registry`: where the collector registers its metrics, for a test to read what /metrics would serve (`render`). */
export async function startCollectorForTests(options: { fixed?: Record<string, unknown>; environment?: Record<string, string>; registry?: MetricsRegistry } = {}): Promise<CollectorForTests> {
  const dataPath = await mkdtemp(path.join(os.tmpdir(), "ragscope-collector-"));
  const settings = loadSettings({
    environment: options.environment ?? {},
    fixed: { "receiver.port": 0, "assembler.quietPeriodMs": 100, "clickhouse.dataPath": dataPath, ...options.fixed },
  });
  assert.ok(settings.ok, settings.ok ? "" : settings.error.join("\n"));
  const collector = await startEmbeddedCollector(settings.value, options.registry === undefined ? {} : { registry: options.registry });
  return {
    collector,
    async stop() {
      await collector.close();
      await rm(dataPath, { recursive: true, force: true });
    },
  };
}
