/**
 * Freshness: from a trace's last span sent to the trace evaluated and
 * queryable in the store, under a steady load (target: P99 ≤ the quiet
 * period + 1 s at half the maximum load, issue 13).
 *
 * `ragscope serve` (embedded store, default settings: a 2 s quiet period) is
 * sent eight-span traces over OTLP/HTTP protobuf at a fixed rate: half the
 * maximum, measured first in the same run (embedded-serve's path with node's
 * defaults, 2,000 traces, a fresh serve), or RAGSCOPE_BENCH_FRESHNESS_SPANS
 * (spans/s) when set, for
 * RAGSCOPE_BENCH_FRESHNESS_SECONDS (default 30), one request every 100 ms
 * holding whole traces (so a request's time is the time of its traces' last
 * spans). serve counts a trace in `ragscope_traces_written_total` once the
 * sink's write of it resolved — from then on every query sees it. That
 * counter is read every 10 ms; a request's freshness is the time until the
 * counter reached the number of traces sent up to and including it (the
 * collector writes traces about in the order their quiet periods end, so
 * this is each request's time to be written, to within the order of a
 * batch).
 *
 * Dashboards' range panels read the rollups (migration 0009), which follow
 * the raw rows by at most the rollup refresh interval (5 s by default) plus
 * the refresh's own time; that lag is not measured here.
 *
 * Notes (issue 13, 2026-12-01; 2 cores shared with other engineers'
 * benchmarks). "Half the maximum load" was taken from embedded-serve's rate
 * on the machine at the time (230 spans/s at load 16), so
 * RAGSCOPE_BENCH_FRESHNESS_SPANS=120 (two traces a request: 160 spans/s
 * offered), 30 s, 300 requests, all written:
 *   main's evaluators:  P50 2,712 ms, P99 3,590 ms, max 3,693 ms; serve CPU
 *                       5,325 µs per span, 85 % of a core; load 8.6
 *   this branch:        P50 3,355 / 2,924 ms, P99 5,520 / 3,800 ms (two runs,
 *                       load 10.4 / 10.1); serve CPU 3,342 / 4,369 µs per span,
 *                       53 / 70 % of a core
 * - Not met (target P99 ≤ 3,000 ms). At this load serve is not short of its
 *   own CPU (it used 53–85 % of a core) but of the machine's: with a load
 *   average of 8–10 on 2 cores a runnable thread waits most of the time, so
 *   the P99 here follows the load average more than the code (the branch's
 *   lower CPU per span did not give a lower P99 at a higher load). P50 sits
 *   0.7–1.3 s above the 2 s quiet period: the assembler's check, evaluation
 *   and the batched write. The CPU per span is higher than in
 *   embedded-serve because fixed work is spread over few spans: this
 *   benchmark reads /metrics every 10 ms (a render each time), and the
 *   rollup refresh runs every 5 s. A quiet machine is needed to say whether
 *   the target holds; the composition of the 0.7–1.3 s was not broken down
 *   within the deadline.
 * - Quiet machine (load average 1–2), main after the in-process bus began
 *   carrying decoded span records (embedded-serve: ~1,095 spans/s, so half
 *   is RAGSCOPE_BENCH_FRESHNESS_SPANS=540, 561 offered), two runs back to
 *   back: P50 2,494 / 2,687 ms, P99 2,871 / 3,124 ms, max 2,987 / 3,237 ms,
 *   300 of 300 written, no 503. At the edge of the target: one run met it,
 *   one missed by 124 ms. serve used 157 % of a core (2,790 µs per span,
 *   about twice embedded-serve's: at this rate a write holds a few traces,
 *   and the rollup refresh and the 10 ms /metrics reads are spread over
 *   fewer spans), so at "half the maximum" the 2 cores are nearly full.
 * - After migrations 0016 and 0017 (session, root-cause and abstention
 *   rollups, stale-key deletes), quiet machine (load 0.2–1.9), same rate
 *   (561 spans/s offered), two runs: P50 2,658 / 2,778 ms, P99 3,701 /
 *   3,534 ms, 300 of 300 written, no 503, serve 154–156 % of a core (2,748 /
 *   2,777 µs a span). Not met. Not the refresh: one run with the rollup
 *   refresh held off (RAGSCOPE_ROLLUP_REFRESH_MS=600000) gave P50 2,799,
 *   P99 3,311 ms; nor the young generation (--max-semi-space-size=64:
 *   P50 3,238, P99 4,322 ms, the same CPU): at this rate serve and the
 *   sender fill both cores, so a trace's write waits for a core and for the
 *   write before it, and the tail follows that. The figure to move is
 *   serve's CPU per span at low rates (twice embedded-serve's, where writes
 *   are large).
 * - Where the time after the quiet period went (same rate, quiet machine,
 *   each request's freshness printed in order): a sawtooth, five to eight
 *   requests written together, so writes were back to back, one every
 *   ~390 ms, ~25 traces each (83 writes in 32 s; the engine's inserts of one
 *   write, timed: case_results 96 ms, metric_values 83, evaluation_results
 *   70, trace_spans 63). The evaluating loop also holds its round while it
 *   waits for the write in flight, so spans that arrive meanwhile sit in
 *   the queue, and their trace's quiet period begins only when the write
 *   ends: freshness is the quiet period + up to one write before the span
 *   is read + up to one write in flight + its own write.
 *   Tried: the loop reading on while a write is in flight (less than a
 *   batch evaluated behind a running write no longer holding the round; the
 *   worker waking the loop when the write resolves). Four pairs run
 *   alternately, the previous code then the change (load average 2–4):
 *   P50 2,801 / 2,708, 3,067 / 2,742, 2,635 / 2,464, 2,750 / 2,622 ms
 *   (lower in every pair); P99 3,440 / 3,682, 4,576 / 3,849, 3,681 /
 *   3,291, 3,482 / 3,674 ms (mean 3,795 → 3,624, within the runs' spread).
 *   Not kept: the P99 did not move, and with reading going on during writes
 *   more data is held at once (queue, open traces and a batch behind the
 *   write); in one of four clean-clone runs serve in a 128 MiB heap
 *   (embedded-backpressure.test.ts) stopped answering under that load.
 * - Not met, and what limits it: serve uses ~160 % of a core at half the
 *   maximum, so the tail is the wait for a core. Per span by thread: event
 *   loop ~690 µs, V8's helper and the decode threads ~830, the engine's
 *   inserts ~650 and its merges ~640. The engine's share is fixed cost per
 *   part: a one-row insert into a plain MergeTree table costs 17–18 ms of
 *   CPU here (strace: 77 % of it in system calls, ~16 file creations at
 *   ~0.9 ms each — this machine's disk), 5 ms with the data on tmpfs; a
 *   write creates six parts (four tables and the two trace-list views) and
 *   merges rewrite them. With serve's data on tmpfs in one pair: P50
 *   2,548 → 2,346 ms, P99 3,603 → 3,234 ms: nearer, still over.
 * - 2026-12-02, quiet machine (load 0.5–2 before a run; the run itself
 *   brings it to 2.5–3.5). embedded-serve reached 1,421 spans/s (node's
 *   defaults), so half is RAGSCOPE_BENCH_FRESHNESS_SPANS=710. Single runs of
 *   main: at 540, P50 2,171, P99 2,614 ms (met); at 710, P99 3,122 and
 *   3,328 ms (missed by 122 and 328 ms).
 * - Changed: a trace's quiet period counts from when its last span was
 *   received (the in-process bus stamps each message as it queues it), and
 *   the loop releases by the time through which it has read everything
 *   (source-driver.ts readThrough), so a span that waited in the queue behind
 *   a write no longer starts its quiet period late; while reading is paused
 *   the clock decides, as before (test/integration/collector/
 *   quiet-period-from-arrival.test.ts). Alternating runs of the previous
 *   build and this one, P50 / P99 ms:
 *     710 spans/s  previous 2,802 / 3,370, 2,647 / 3,793, 3,011 / 4,153
 *                  this     2,981 / 4,360, 3,120 / 4,149, 2,720 / 3,730
 *     540 spans/s  previous 2,959 / 4,701, 2,775 / 3,323, 2,304 / 2,870
 *                  this     3,103 / 4,150, 2,778 / 3,522, 2,676 / 3,711
 *   No difference the runs can show: one build's runs spread by more than
 *   1 s at P99. The change is kept for what it is (a quiet period that
 *   does not depend on how busy the loop was), not for a figure.
 * - What the spread follows is the writes (now printed): the run with the
 *   best P99 (2,870 ms) wrote 209 times, 10 traces a write, 122 ms each;
 *   the worst (4,701 ms) 80 times, 26 traces, 353 ms. A write costs ~13 ms
 *   a trace of wall time at these sizes, so at 70–90 traces/s the single
 *   write in flight is busy most of the time and a trace's wait for it
 *   varies with how the batches fell. The target needs cheaper writes of
 *   small batches (the engine's part creation and the four inserts' bodies),
 *   not an earlier release.
 * - serve now reports each stored trace's freshness itself
 *   (ragscope_trace_freshness_seconds, from its last span received to its
 *   result durable); this benchmark prints the share within the quiet
 *   period + 1 s from it, read once at the end. A run at 710 spans/s right
 *   after: P50 2,271, P99 2,779 ms from outside, 100 % of 2,700 traces
 *   within 3 s by serve's histogram; 249 writes of 10.8 traces, 112 ms each.
 *   So the same build meets the target in one run (small, fast writes) and
 *   misses it by up to 1.7 s in another (large, slow ones).
 * - Why the writes decide it: at half the maximum, serve still uses ~1.6
 *   cores (2,200 µs a span against ~1,200 at the maximum), because each
 *   write's fixed cost is spread over ~10 traces instead of hundreds: a
 *   write makes six parts (four tables, the two trace-list views) at
 *   ~17 ms of CPU each on this disk, ~8 writes a second. With the machine
 *   that full, a write of 25 traces that takes 54 ms alone takes 280–350 ms,
 *   the next batch grows with it (batch = rate × write time), and the writer
 *   tips from ~10-trace writes into ~25-trace ones. The probe costs too:
 *   one /metrics read is ~1 ms of serve's CPU (300 reads measured), so the
 *   10 ms probe takes ~0.1 core of serve's event loop.
 * - The rate is now half the maximum measured at the start of the same run
 *   (RAGSCOPE_BENCH_FRESHNESS_SPANS still sets one). Two runs back to back,
 *   quiet machine: maximum 1,786 / 1,766 spans/s (2,000 traces), 893 / 883
 *   asked; P50 2,340 / 2,487 ms, P99 2,893 / 3,051 ms, max 3,010 / 3,261;
 *   within 3 s by serve's histogram 100 % / 99.3 % of 3,300 traces; 238 /
 *   171 writes of 13.9 / 19.3 traces, 117 / 175 ms each. At the edge of the
 *   target: met in one run, missed by 51 ms in the other.
 * - With the session summaries (migration 0021: the refresh writes each
 *   refreshed session's summary, one statement per refresh range and three
 *   per 1,000 sessions), two runs back to back, quiet machine (load 0.4):
 *   maximum 2,590 / 2,193 spans/s, 1,295 / 1,096 asked; P50 2,162 / 2,398
 *   ms, P99 2,788 / 2,775 ms, max 2,964 ms (first run); within 3 s by
 *   serve's histogram 100 % / 100 % of 4,800 / 4,200 traces; writes of 17.8
 *   / 20.7 traces, 89 / 146 ms each. Met in both, ~220 ms under the target;
 *   the maxima are higher than above on a quieter machine, not from a
 *   change of the path.
 *
 * - 2026-12-02, with insert bodies as bytes (embedded-serve.bench.ts):
 *   maximum 2,421 spans/s, at half of it (1,211 asked, 1,203 offered) P50
 *   2,204, P99 2,787 ms, max 2,891 ms (target ≤ 3,000: met); 100 % of 4,500
 *   traces within by serve's own histogram. 260 writes of 17.3 traces at
 *   95 ms each: at this rate the writes are small, and their fixed cost
 *   (six parts a write, their files) is most of serve's 1,281 µs a span.
 *
 * - Since 2026-12-05 the traces (embedded-serve.bench.ts recordBodies, also
 *   for the maximum measured first) carry chunk texts of their own per trace;
 *   every figure above was taken with the same ten chunk texts in every trace,
 *   which the evaluator's text memos made cheaper than real traffic (about
 *   half the event loop's CPU a span, embedded-serve.bench.ts). So the
 *   maximum, and the half of it this benchmark offers, are lower from then
 *   on; compare runs of the same kind only.
 * - 2026-12-05, chunk texts of each trace's own, after serve stopped refusing
 *   decoded requests (in-process-bus.ts waits for room), quiet machine (load
 *   0–2), two runs back to back: maximum 2,499 / 2,448 spans/s, 1,249 /
 *   1,224 asked; P50 2,191 / 2,267 ms, P99 2,573 / 2,708 ms, max 2,606 /
 *   2,809 ms (target ≤ 3,000: met in both); 100 % of 4,800 / 4,500 traces
 *   within by serve's histogram; no 503; 284 writes of 16.9 traces at 83 ms
 *   (first run).
 */
import os from "node:os";
import { startCollectorSubprocess } from "../support/collector-subprocess.js";
import { maximumServeRate, recordBodies } from "./embedded-serve.bench.js";
import { processCpuSeconds } from "./process-cpu.js";
import type { BenchmarkResult } from "./benchmark.js";

/** A fixed rate, spans/s; unset: half the maximum measured at the start of the run. */
const FIXED_SPANS_PER_SECOND = process.env.RAGSCOPE_BENCH_FRESHNESS_SPANS === undefined ? null : Number(process.env.RAGSCOPE_BENCH_FRESHNESS_SPANS);
const MAXIMUM_PROBE_TRACES = 2_000;
const SECONDS = Number(process.env.RAGSCOPE_BENCH_FRESHNESS_SECONDS ?? 30);
const QUIET_PERIOD_MS = 2_000;
const SEND_EVERY_MS = 100;
const SPANS_PER_TRACE = 8;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

export async function benchmark(): Promise<BenchmarkResult> {
  const maximum = FIXED_SPANS_PER_SECOND === null ? await maximumServeRate(MAXIMUM_PROBE_TRACES) : null;
  const SPANS_PER_SECOND = FIXED_SPANS_PER_SECOND ?? Math.round(maximum!.spansPerSecond / 2);
  const tracesPerRequest = Math.max(1, Math.round((SPANS_PER_SECOND / SPANS_PER_TRACE) * (SEND_EVERY_MS / 1000)));
  const requests = Math.round((SECONDS * 1000) / SEND_EVERY_MS);
  const { bodies } = await recordBodies(requests * tracesPerRequest, tracesPerRequest);
  const collector = await startCollectorSubprocess({ RAGSCOPE_QUIET_PERIOD_MS: String(QUIET_PERIOD_MS), RAGSCOPE_CLICKHOUSE_URL: "", RAGSCOPE_CONFIG: "" });
  try {
    const sentAt: number[] = [];
    const writtenAt: number[] = [];
    let refused = 0;
    let stop = false;
    // The counter watcher: when the written count passes each request's cumulative trace count.
    const watcher = (async () => {
      while (!stop) {
        let written: number;
        try {
          written = await collector.counter("ragscope_traces_written_total");
        } catch {
          // A busy serve may reset a connection; the next read counts the same traces.
          await new Promise((resolve) => setTimeout(resolve, 10));
          continue;
        }
        const now = performance.now();
        for (let request = writtenAt.length; request < sentAt.length && written >= (request + 1) * tracesPerRequest; request += 1) writtenAt.push(now);
        if (writtenAt.length === requests) return;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    })();
    const cpuAtStart = await processCpuSeconds(collector.pid);
    const start = performance.now();
    for (let request = 0; request < requests; request += 1) {
      const due = start + request * SEND_EVERY_MS;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      sentAt.push(performance.now());
      for (;;) {
        const response = await fetch(`${collector.receiverUrl}/v1/traces`, { method: "POST", headers: { "content-type": "application/x-protobuf" }, body: bodies[request]! });
        await response.arrayBuffer();
        if (response.status === 200) break;
        refused += 1;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
    const sendingSeconds = (performance.now() - start) / 1000;
    const deadline = performance.now() + 120_000;
    while (writtenAt.length < requests && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    stop = true;
    await watcher;
    const cpuSeconds = (await processCpuSeconds(collector.pid)) - cpuAtStart;
    // How the writes batched: at a steady rate a write's size is what arrived while the write before it ran.
    const writes = await collector.counter("ragscope_sink_write_duration_seconds_count");
    const writeSeconds = await collector.counter("ragscope_sink_write_duration_seconds_sum");
    // The collector's own figure (from each trace's last span received to its result stored), read once: no probe.
    const stored = await collector.counter("ragscope_trace_freshness_seconds_count");
    const withinTarget = await collector.counter(`ragscope_trace_freshness_seconds_bucket{le="${(QUIET_PERIOD_MS + 1_000) / 1000}"}`);
    const spansSent = requests * tracesPerRequest * SPANS_PER_TRACE;
    const freshness = writtenAt.map((time, index) => time - sentAt[index]!).sort((left, right) => left - right);
    const target = QUIET_PERIOD_MS + 1_000;
    return {
      title: `Freshness: last span → evaluated and queryable, ${SPANS_PER_SECOND} spans/s of 8-span traces for ${SECONDS} s, embedded serve`,
      figures: [
        ...(maximum === null
          ? [{ name: "rate set (RAGSCOPE_BENCH_FRESHNESS_SPANS)", value: SPANS_PER_SECOND, unit: "spans/s" }]
          : [
              { name: `maximum of serve measured first (${MAXIMUM_PROBE_TRACES.toLocaleString("en-US")} traces, node's defaults)`, value: Math.round(maximum.spansPerSecond), unit: "spans/s" },
              { name: "rate asked: half of it", value: SPANS_PER_SECOND, unit: "spans/s" },
            ]),
        { name: "offered load", value: Math.round((requests * tracesPerRequest * SPANS_PER_TRACE) / sendingSeconds), unit: "spans/s" },
        { name: "requests measured (written within 120 s)", value: `${freshness.length} of ${requests}` },
        { name: "requests answered 503 (retried)", value: refused },
        { name: "quiet period", value: QUIET_PERIOD_MS, unit: "ms" },
        { name: "freshness P50", value: Math.round(percentile(freshness, 50)), unit: "ms" },
        { name: "freshness P99", value: Math.round(percentile(freshness, 99)), unit: `ms (target ≤ ${target} ms = quiet period + 1 s)` },
        { name: "freshness max", value: Math.round(freshness[freshness.length - 1] ?? Number.NaN), unit: "ms" },
        { name: "traces stored within quiet period + 1 s, by serve's ragscope_trace_freshness_seconds", value: stored > 0 ? `${Math.round((withinTarget / stored) * 1000) / 10} % of ${stored}` : "none" },
        { name: "sink writes", value: writes },
        { name: "traces per write (mean)", value: writes > 0 ? Math.round((requests * tracesPerRequest) / writes * 10) / 10 : "none" },
        { name: "write duration (mean)", value: writes > 0 ? Math.round((writeSeconds / writes) * 1000) : "none", unit: "ms" },
        // Wall-clock figures depend on what else the machine runs: serve's CPU per span says how close to saturation the load was.
        { name: "serve CPU per span (user + system, all threads)", value: Math.round((cpuSeconds / spansSent) * 1e7) / 10, unit: "µs" },
        { name: "serve CPU used / wall time", value: `${Math.round((cpuSeconds / sendingSeconds) * 100)} % of one core` },
        { name: "load average (1 min) at the end", value: Math.round(os.loadavg()[0]! * 100) / 100 },
      ],
    };
  } finally {
    await collector.stop();
    await collector.remove();
  }
}
