/**
 * `ragscope report`'s Collector health figures say "no data" for a count no
 * collector role wrote, never a made-up 0: a receiver without a ClickHouse URL
 * writes no health snapshot, and the report then read "Dropped spans 0" —
 * nothing lost — for spans nobody counted. A count that was written, 0
 * included, is shown as written. bin/ragscope.js as a subprocess, on a store
 * written through the store's own ports (results; health snapshots as the
 * evaluator and the receiver write them).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { openClickHouseStore } from "../../../store/clickhouse/clickhouse-store.js";
import type { HealthRow } from "../../../store/ports/health-sink.js";
import { plannedCaseResult, writeToFolder } from "../../support/stored-requests.js";

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const ragscope = path.join(projectRoot, "bin/ragscope.js");
/** An hour back on a whole minute: collector_health keeps 30 days (TTL), so snapshots must be recent to be stored at all. */
const startedAtMs = Math.floor((Date.now() - 3_600_000) / 60_000) * 60_000;

/** The report's "Over the range" line of the Collector health board. */
function overTheRange(dataDir: string, folder: string): string {
  const child = spawnSync(process.execPath, [ragscope, "report", "--data-dir", dataDir, "--out", path.join(folder, "report.html")], {
    encoding: "utf8",
    cwd: folder,
    env: { ...process.env, RAGSCOPE_CLICKHOUSE_URL: "", RAGSCOPE_DATA_DIR: "", RAGSCOPE_CONFIG: "" },
  });
  assert.equal(child.status, 0, child.stderr);
  const lines = child.stdout.split("\n");
  const board = lines.findIndex((line) => line === "ragscope — Collector health");
  assert.ok(board >= 0, child.stdout);
  const line = lines.slice(board).find((candidate) => candidate.startsWith("  Over the range: "));
  assert.ok(line, child.stdout);
  return line;
}

async function storeWith(dataDir: string, health: HealthRow[]): Promise<void> {
  await writeToFolder(dataDir, [{ caseResult: plannedCaseResult({ caseResultId: "cr_a", traceId: "1".padStart(32, "0"), runId: "run-1", caseId: "case_a", service: "checkout", tenant: "acme", startedAtMs }), evaluationResults: [] }]);
  if (health.length === 0) return;
  const store = await openClickHouseStore({ url: null, username: "default", password: "", database: "ragscope", dataPath: dataDir });
  try {
    const written = await store.health.write(health);
    assert.ok(written.ok);
  } finally {
    await store.close();
  }
}

describe("ragscope report: collector health counts nobody wrote", () => {
  let folder: string;
  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-report-health-"));
  });
  after(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  test("no health snapshot at all: every count reads no data, not 0", async () => {
    const dataDir = path.join(folder, "no-snapshots");
    await storeWith(dataDir, []);
    const line = overTheRange(dataDir, folder);
    for (const figure of ["Spans/s", "Traces/s", "Dead letters", "Dropped spans", "Refused requests", "Consumer lag", "Slowest sink write"]) assert.ok(line.includes(`${figure} no data`), `${figure}: ${line}`);
  });

  test("an evaluator's snapshots but no receiver's: its counts as written, the receiver's dropped spans and refused requests no data", async () => {
    const dataDir = path.join(folder, "evaluator-only");
    const base = { ts: new Date(startedAtMs + 30_000).toISOString(), instance: "evaluator-1", role: "evaluator", kind: "delta" as const };
    await storeWith(dataDir, [
      { ...base, metric: "traces_evaluated", value: 1 },
      { ...base, metric: "dead_letters", value: 0 },
    ]);
    const line = overTheRange(dataDir, folder);
    assert.match(line, /Dead letters 0(?! ?\w)/, line);
    assert.ok(line.includes("Dropped spans no data"), line);
    assert.ok(line.includes("Refused requests no data"), line);
  });

  test("a receiver that wrote its counts: a written 0 is 0", async () => {
    const dataDir = path.join(folder, "with-receiver");
    const base = { ts: new Date(startedAtMs + 30_000).toISOString(), instance: "receiver-1", role: "receiver", kind: "delta" as const };
    await storeWith(dataDir, [
      { ...base, metric: "spans_received", value: 4 },
      { ...base, metric: "spans_dropped", value: 0 },
      { ...base, metric: "requests_accepted", value: 2 },
      { ...base, metric: "requests_refused", value: 3 },
    ]);
    const line = overTheRange(dataDir, folder);
    assert.match(line, /Dropped spans 0 · /, line);
    assert.match(line, /Refused requests 3 · /, line);
  });
});
