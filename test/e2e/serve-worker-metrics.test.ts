/**
 * `ragscope serve` (a subprocess) shows on /metrics what its evaluation worker counts, as an evaluator reading Kafka
 * does: a request its client sent again (a retry after a timeout) has its spans counted in
 * ragscope_spans_duplicate_total and kept once, and ragscope_traces_quarantined_total and ragscope_open_spans are
 * there from the start. serve used to register neither the duplicate nor the quarantine counter.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { readSample } from "../../collector/wiring/observe/metrics-registry.js";
import { startCollectorSubprocess, type CollectorSubprocess } from "../support/collector-subprocess.js";
import { postTraces, syntheticRequestBody, syntheticSpan, text } from "../support/synthetic-otlp-requests.js";

let folder: string;
let collector: CollectorSubprocess;

before(async () => {
  folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-serve-worker-metrics-"));
  // A quiet period long enough that the request sent again reaches the trace while it is still open.
  collector = await startCollectorSubprocess({ RAGSCOPE_QUIET_PERIOD_MS: "1500" }, { dataDir: path.join(folder, "store") });
});
after(async () => {
  await collector.stop();
  await rm(folder, { recursive: true, force: true });
});

test("a request sent twice: its spans counted as duplicates and kept once; the quarantine counter and open-span gauge are served", async () => {
  const before = await collector.metrics();
  assert.equal(readSample(before, "ragscope_traces_quarantined_total"), 0, "the quarantine counter is served from the start");
  assert.equal(readSample(before, "ragscope_spans_duplicate_total"), 0, "the duplicate counter is served from the start");
  assert.notEqual(readSample(before, "ragscope_open_spans"), null);
  const body = syntheticRequestBody([syntheticSpan(1, 0, [text("ragscope.run_id", "run-1")]), syntheticSpan(1, 1, [])]);
  for (const attempt of ["first", "again"]) {
    const answer = await postTraces(collector.receiverUrl, body);
    assert.equal(answer.status, 200, `${attempt}: ${answer.body}`);
  }
  for (let attempt = 0; attempt < 200 && (await collector.counter("ragscope_traces_written_total")) < 1; attempt += 1) await new Promise((resolve) => setTimeout(resolve, 100));
  const after = await collector.metrics();
  assert.equal(readSample(after, "ragscope_traces_written_total"), 1, "one trace");
  assert.equal(readSample(after, "ragscope_spans_received_total"), 4, "both requests' spans were received");
  assert.equal(readSample(after, "ragscope_spans_duplicate_total"), 2, "the second request's two spans are duplicates");
  assert.equal(readSample(after, "ragscope_traces_quarantined_total"), 0);
});
