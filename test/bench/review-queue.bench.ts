/**
 * The review queue's load with many imported labels: `--labels N` (default
 * 2,000) review_required traces are written through the real ClickHouse sink
 * (embedded chDB), each with a judge verdict, two more Evaluation Results and
 * eight raw spans of ~1 KiB each (what a trace read carries), then one
 * reviewer imports one label per trace as a JSONL file through the UI's
 * import (POST /api/labels.jsonl), and the queue is loaded over HTTP:
 * GET /review (the page, with judge and reviewer agreement) and /api/review.
 * Figures: the import's time, and each load's median wall time and CPU of
 * this process per load (the server and the engine run in it). `--rounds R`
 * (default 3) loads each R times.
 *
 * `npm run bench -- review-queue --labels 2000`
 *
 * Notes (2026-12-04, this machine: 2 cores shared with other engineers' tests
 * and a CI run, so wall times are noisy; CPU per load is the steadier figure):
 * - Before the bulk read, the queue read each labelled case's trace
 *   (readTrace: the Case Result, its Evaluation Results, its Eval Case and its
 *   raw spans, three to four queries a case) to pair the judge's verdicts with
 *   the labels, and the import read each passed case's trace the same way.
 *   After: TraceReader.readEvaluationResults, two queries per 1,000 labelled
 *   cases (store/clickhouse/clickhouse-evaluation-results-reader.ts).
 *   --labels 2000, the previous ui-app.ts then this one (load average
 *   11–16): GET /review 43,395 ms (CPU 35,819 ms/load) → 305 ms (CPU 224);
 *   GET /api/review 51,089 ms (CPU 33,762) → 302 ms (CPU 225); the import
 *   23.4 s → 2.4 s.
 */
import os from "node:os";
import path from "node:path";
import { mkdtemp, rm } from "node:fs/promises";
import type { EvaluationResult } from "../../contracts/evaluation-result.js";
import type { StoredRawSpan } from "../../contracts/raw-spans.js";
import type { CaseEvaluation } from "../../evaluators/evaluate-case-result.js";
import { openClickHouseStore } from "../../store/clickhouse/clickhouse-store.js";
import { startUiServer } from "../../ui/ui-server.js";
import { buildCaseResult, judgeVerdict } from "../support/case-results.js";
import { median, wholeNumber, type BenchmarkOptions, type BenchmarkResult } from "./benchmark.js";

const DEFAULT_LABELS = 2000;
const DEFAULT_ROUNDS = 3;
const BATCH = 500;
const TOKEN = "bench-review-token-0123456789abcdef";
const idOf = (index: number) => `cr_review_bench_${String(index).padStart(6, "0")}`;

/** Eight spans of about 1 KiB each, as the collector stores a trace's raw spans. */
function rawSpans(index: number): CaseEvaluation["rawSpans"] {
  const encoder = new TextEncoder();
  const spans = Array.from({ length: 8 }, (_, position): StoredRawSpan => ({
    trace_id: `trace_${idOf(index)}`,
    span_id: `span_${position}`,
    parent_span_id: position === 0 ? "" : "span_0",
    name: `stage ${position}`,
    kind: 1,
    start_time_unix_nano: String(1_783_500_000_000_000_000n + BigInt(index) * 1_000_000_000n + BigInt(position)),
    end_time_unix_nano: String(1_783_500_000_000_000_000n + BigInt(index) * 1_000_000_000n + BigInt(position) + 1000n),
    status: { code: 1, message: "" },
    attributes: { "input.value": `text of stage ${position} `.repeat(50) },
    events: [],
    resource: { "service.name": "bench" },
    scope: { name: "bench", version: "1" },
  }));
  return { spans: spans.map((span) => encoder.encode(JSON.stringify(span))), spanCount: 8, storedSpanCount: 8, truncatedValues: 0 };
}

function measured(caseResultId: string, evaluatorId: string, metric: string): EvaluationResult {
  return { ...judgeVerdict(caseResultId, metric, true), evaluation_result_id: `er_${caseResultId}_${metric}`, evaluator_id: evaluatorId, evaluator_version: "1", outcome: "measured", confidence: { value: 1, semantics: "deterministic_rule" } };
}

async function loadTimes(url: string, rounds: number): Promise<{ wallMs: number; cpuMs: number }> {
  const walls: number[] = [];
  const cpus: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    const cpu = process.cpuUsage();
    const started = performance.now();
    const answer = await fetch(url, { headers: { authorization: `Bearer ${TOKEN}` } });
    if (!answer.ok) throw new Error(`${url}: ${answer.status} ${await answer.text()}`);
    await answer.arrayBuffer();
    walls.push(performance.now() - started);
    const used = process.cpuUsage(cpu);
    cpus.push((used.user + used.system) / 1000);
  }
  return { wallMs: Math.round(median(walls)), cpuMs: Math.round(median(cpus)) };
}

export async function benchmark(options: BenchmarkOptions = {}): Promise<BenchmarkResult> {
  const labels = wholeNumber(options, "labels", DEFAULT_LABELS, 1);
  const rounds = wholeNumber(options, "rounds", DEFAULT_ROUNDS, 1);
  const folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-bench-review-"));
  // Rollups refreshed by hand after the writes (a day between timer refreshes), so no refresh runs during a load.
  const store = await openClickHouseStore({ url: null, username: "default", password: "", database: "ragscope", dataPath: path.join(folder, "chdb") }, { rollupRefreshMs: 86_400_000 });
  try {
    const writing = performance.now();
    for (let first = 0; first < labels; first += BATCH) {
      const batch: CaseEvaluation[] = [];
      for (let index = first; index < Math.min(labels, first + BATCH); index += 1) {
        const id = idOf(index);
        batch.push({
          caseResult: { ...buildCaseResult({ output: `answer ${index}` }), case_result_id: id, trace_id: `trace_${id}`, quality_status: "review_required", started_at: new Date(Date.parse("2026-12-03T09:00:00Z") + index * 1000).toISOString() },
          evaluationResults: [judgeVerdict(id, "faithfulness", index % 3 !== 0), measured(id, "retrieval.recall", "recall_at_5"), measured(id, "answer.length", "answer_length")],
          rawSpans: rawSpans(index),
        });
      }
      const written = await store.results.write(batch);
      if (!written.ok) throw new Error(written.error.message);
    }
    await store.rollups.refresh();
    const writeSeconds = (performance.now() - writing) / 1000;
    const ui = await startUiServer({ host: "127.0.0.1", port: 0, store, access: { tokens: new Map([[TOKEN, "bench-reviewer"]]) } });
    try {
      // One label per trace, by one reviewer: a fail on every second trace, a pass (every metric the case offers) on the others.
      const lines = Array.from({ length: labels }, (_, index) => JSON.stringify({ case_result_id: idOf(index), metric: "faithfulness", verdict: index % 2 === 0 ? "fail" : "pass", labeled_at: "2026-12-03T10:00:00Z" }));
      const importing = performance.now();
      const imported = await fetch(`${ui.url}/api/labels.jsonl`, { method: "POST", headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/x-ndjson" }, body: `${lines.join("\n")}\n` });
      if (!imported.ok) throw new Error(`import: ${imported.status} ${await imported.text()}`);
      const importSeconds = (performance.now() - importing) / 1000;
      await store.rollups.refresh();
      const page = await loadTimes(`${ui.url}/review`, rounds);
      const api = await loadTimes(`${ui.url}/api/review`, rounds);
      return {
        title: `Review queue with ${labels.toLocaleString("en-US")} imported labels (embedded chDB, UI over HTTP)`,
        figures: [
          { name: "labels (one reviewer, one per trace)", value: labels },
          { name: "write the traces through the sink", value: Math.round(writeSeconds * 10) / 10, unit: "s" },
          { name: "import the labels (POST /api/labels.jsonl)", value: Math.round(importSeconds * 10) / 10, unit: "s" },
          { name: "load average (1 minute) as the loads begin", value: os.loadavg()[0]!.toFixed(1) },
          { name: `GET /review, median of ${rounds}`, value: page.wallMs, unit: `ms (CPU ${page.cpuMs.toLocaleString("en-US")} ms/load)` },
          { name: `GET /api/review, median of ${rounds}`, value: api.wallMs, unit: `ms (CPU ${api.cpuMs.toLocaleString("en-US")} ms/load)` },
        ],
      };
    } finally {
      await ui.close();
    }
  } finally {
    await store.close();
    await rm(folder, { recursive: true, force: true });
  }
}
