/**
 * The embedded collector reads its in-process bus through the same driver as
 * Kafka, so it pauses on the same rules: at `memory.maxBufferedSpans` open
 * spans reading stops, the bus fills, and the receiver answers 503 — before
 * the assembler's own bound would release traces early. (Its earlier read
 * loop paused only while the sink fell behind: it kept taking spans until the
 * assembler released traces to stay under its bound.)
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { loadSettings } from "../../../collector/wiring/config/load-settings.js";
import { startEmbeddedCollector } from "../../../collector/wiring/run/embedded-collector.js";
import { postTraces } from "../../support/recorded-spans.js";
import { otlpBody, recordTraces, spansPerTrace } from "../kafka/support/synthetic-traces.js";
import { recordBodies } from "../../bench/embedded-serve.bench.js";
import { startCollectorSubprocess } from "../../support/collector-subprocess.js";
import { sendUntilAccepted } from "../../support/send-until-accepted.js";
import { waitUntil } from "../../support/kafka-helpers.js";
import { queryRows } from "../../support/temporary-store.js";

test("open spans at the bound pause reading: the receiver answers 503 and no trace is released early", async () => {
  const dataPath = await mkdtemp(path.join(os.tmpdir(), "ragscope-embedded-backpressure-"));
  const maxBufferedSpans = 2 * spansPerTrace;
  const maxQueuedMessages = 3;
  const settings = loadSettings({
    fixed: {
      "receiver.port": 0,
      "clickhouse.dataPath": dataPath,
      // Traces stay open for the whole test: only the bounds can move them.
      "assembler.quietPeriodMs": 600_000,
      "assembler.maxTraceWaitMs": 600_000,
      // Room for what one poll of a full queue adds past the pause.
      "assembler.maxOpenSpans": maxBufferedSpans + (maxQueuedMessages + 1) * spansPerTrace,
      "memory.maxBufferedSpans": maxBufferedSpans,
      "queue.maxQueuedMessages": maxQueuedMessages,
    },
  });
  assert.ok(settings.ok, settings.ok ? "" : settings.error.join("\n"));
  const collector = await startEmbeddedCollector(settings.value);
  try {
    const traces = await recordTraces(12);
    const statuses: number[] = [];
    for (const trace of traces) statuses.push(await postTraces(collector.receiverUrl, otlpBody(trace.spans, "protobuf")));
    assert.ok(statuses.includes(503), `the receiver refused once the bus was full: ${statuses.join(" ")}`);
    assert.equal(collector.bus.pausedFor, "buffered_spans");
    assert.ok(collector.driver.counters.pauses >= 1);
    const assembler = collector.worker.assembler;
    assert.ok(assembler.openSpans >= maxBufferedSpans, `reading stopped at the bound, not before: ${assembler.openSpans}`);
    assert.equal(assembler.counters.memoryBoundReleases, 0, "no trace released early by the assembler's bound");
    assert.equal(assembler.counters.partialTraces, 0);
    // Everything accepted is kept: open in the assembler or queued in the bus.
    const accepted = statuses.filter((status) => status === 200).length;
    assert.equal(assembler.openTraces + collector.bus.depth, accepted);
  } finally {
    await collector.close();
    await rm(dataPath, { recursive: true, force: true });
  }
});

test("serve in a small heap (V8 limited to 128 MiB, as in a small container) takes a load as fast as its senders can send: every trace is written, none partial", { timeout: 600_000 }, async () => {
  // Without heap-derived bounds the queue (then 256 MiB), the open traces (256 MiB) and a write (64 MiB) were sized
  // for a large heap: serve filled this one and stalled in garbage collection after ~100 traces
  // (600 traces of 8 spans, 50 a request, from 4 senders).
  const traces = 600;
  const { bodies } = await recordBodies(traces, 50);
  const collector = await startCollectorSubprocess({ RAGSCOPE_QUIET_PERIOD_MS: "200", RAGSCOPE_CLICKHOUSE_URL: "", RAGSCOPE_CONFIG: "" }, { nodeArguments: ["--max-old-space-size=128"] });
  try {
    await sendUntilAccepted(collector.receiverUrl, bodies, { senders: 4, retryDelayMs: 50, refused: (status) => assert.equal(status, 503, "refused for memory, to be retried") });
    await waitUntil(async () => (await collector.counter("ragscope_traces_written_total")) >= traces, { description: "every trace written", timeoutMs: 480_000, intervalMs: 250 });
    assert.equal(await collector.counter("ragscope_traces_written_total"), traces);
    assert.equal(await collector.counter("ragscope_traces_partial_total"), 0, "no trace released early for memory");
    // Each stored trace's freshness is on /metrics, and none is shorter than the quiet period it waited.
    assert.equal(await collector.counter("ragscope_trace_freshness_seconds_count"), traces);
    assert.ok((await collector.counter("ragscope_trace_freshness_seconds_sum")) >= traces * 0.2, "at least the 200 ms quiet period each");
    // What of serve's memory is JavaScript, on /metrics: the heap it holds stays within the bound V8 was given
    // (128 MiB of old generation, and a young generation of at most 3 × 16 MiB), the rest of the resident set is not the heap.
    const heapUsed = await collector.counter("ragscope_process_heap_used_bytes");
    const heapTotal = await collector.counter("ragscope_process_heap_total_bytes");
    const resident = await collector.counter("ragscope_process_resident_memory_bytes");
    assert.ok(heapUsed > 0 && heapUsed <= heapTotal, `heap in use ${heapUsed}, held ${heapTotal}`);
    assert.ok(heapTotal <= (128 + 48) * 1024 * 1024, `heap held ${heapTotal} bytes`);
    assert.ok(resident > heapTotal, `resident ${resident}, heap held ${heapTotal}`);
    assert.ok((await collector.counter("ragscope_process_external_bytes")) > 0);
    // The rest of it too: the embedded engine's working memory (read every 5 s, from the engine) and the pages
    // mapped from files, most of them the engine's library (~570 MB of code, a few hundred MB touched).
    const engineMemory = await collector.counter("ragscope_engine_memory_bytes");
    const fileBacked = await collector.counter("ragscope_process_resident_file_bytes");
    assert.ok(engineMemory > 0 && engineMemory < resident, `engine memory ${engineMemory}, resident ${resident}`);
    assert.ok(fileBacked > 64 * 1024 * 1024 && fileBacked < resident, `file-backed ${fileBacked}, resident ${resident}`);
    // The health snapshots carry the memory levels into the store, for the Collector health dashboard (the last one at stop).
    assert.equal(await collector.stop(), 0);
    const store = await collector.openStore();
    try {
      const levels = await queryRows<{ metric: string; snapshots: string; highest: number }>(
        store,
        "SELECT metric, count() AS snapshots, max(value) AS highest FROM {{database}}.collector_health FINAL WHERE kind = 'gauge' AND (metric LIKE '%memory_bytes' OR metric = 'heap_used_bytes') GROUP BY metric ORDER BY metric",
      );
      assert.deepEqual(levels.map((level) => level.metric), ["engine_memory_bytes", "heap_used_bytes", "resident_memory_bytes"]);
      for (const level of levels) assert.ok(Number(level.snapshots) >= 1 && level.highest > 0, `${level.metric}: ${JSON.stringify(level)}`);
    } finally {
      await store.close();
    }
  } finally {
    await collector.stop();
    await collector.remove();
  }
});
