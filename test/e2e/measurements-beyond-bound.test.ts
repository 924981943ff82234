/**
 * A cost or token count beyond 2^53 − 1 (about 9.0e15) is no measurement (a unit or encoding mistake): the collector
 * reads it as not available, with a note on the Case Result, and the dashboards' means stand on the believable values.
 * Read as carried, two costs of 1e308 added up beyond the largest number a value can hold in the engine's mean and the
 * metric rollups' sums, and `ragscope report` (as the web UI and Grafana, which read the same aggregates) showed
 * "Cost per request no data (4 values)" for the whole range.
 *
 * As an operator meets it: OTLP/JSON over HTTP to a running `ragscope serve` (a subprocess of the built CLI), then
 * `ragscope report` over its data folder and the stored Case Results. Four requests, one LLM call each: costs of 1e308
 * and 2^53 (out of range) and of 4e15 and 2e15 (within it, the mean 3e15); input tokens of 1e308 on the first call,
 * 9007199254740991 (the bound itself, read as sent) on the others.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import path from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { readSample } from "../../collector/wiring/observe/metrics-registry.js";
import { caseResult as caseResultSchema } from "../../contracts/case-result.js";
import { startCollectorSubprocess, type CollectorSubprocess } from "../support/collector-subprocess.js";
import { oneRequestOtlp } from "../support/one-request-otlp.js";
import { postTraces } from "../support/recorded-spans.js";
import { queryRows } from "../support/temporary-store.js";

const ragscope = fileURLToPath(new URL("../../bin/ragscope.js", import.meta.url));
const BOUND = "9007199254740991";
const REQUESTS = [
  { traceId: "b0000000000000000000000000000001", cost: "1e308", inputTokens: "1e308" },
  { traceId: "b0000000000000000000000000000002", cost: "9007199254740992", inputTokens: BOUND },
  { traceId: "b0000000000000000000000000000003", cost: "4e15", inputTokens: BOUND },
  { traceId: "b0000000000000000000000000000004", cost: "2e15", inputTokens: BOUND },
];

let collector: CollectorSubprocess;
before(async () => (collector = await startCollectorSubprocess({ RAGSCOPE_JUDGE_ENABLED: "false" })));
after(async () => {
  if (collector.alive()) await collector.stop();
  await collector.remove();
});

test("costs and token counts beyond 2^53 − 1 are not available, with a note, and the report's mean cost stands on the others", async () => {
  for (const request of REQUESTS) {
    const body = oneRequestOtlp({
      traceId: request.traceId,
      serviceName: "support-bot",
      spans: [
        { name: "rag.request", attributes: { "openinference.span.kind": "CHAIN", "ragscope.stage": "request", "ragscope.query": "How fast is a refund?", "ragscope.answer": "Within 7 days." } },
        { name: "rag.generate", attributes: { "openinference.span.kind": "LLM", "ragscope.stage": "generate", "output.value": "Within 7 days.", "llm.cost.total": request.cost, "llm.token_count.prompt": request.inputTokens } },
      ],
    });
    assert.equal(await postTraces(collector.receiverUrl, new TextEncoder().encode(body), "application/json"), 200);
  }
  const written = async () => readSample(await collector.metrics(), "ragscope_traces_written_total") ?? 0;
  for (let attempt = 0; attempt < 300 && (await written()) < REQUESTS.length; attempt += 1) await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(await written(), REQUESTS.length, collector.output());
  assert.equal(await collector.stop(), 0, collector.output());

  const report = spawnSync(process.execPath, [ragscope, "report", "--data-dir", collector.dataDir, "--out", path.join(collector.dataDir, "report.html")], { encoding: "utf8", env: { ...process.env, RAGSCOPE_CLICKHOUSE_URL: "" } });
  assert.equal(report.status, 0, report.stderr);
  const traffic = report.stdout.split("\n").find((line) => line.includes("Cost per request")) ?? "";
  // 3e15 in the report's thousands-of-millions form.
  assert.match(traffic, /· Cost per request 3000000 B \(of 2 values\) ·/, `the mean of 4e15 and 2e15, not "no data": ${traffic}`);

  const store = await collector.openStore();
  try {
    const rows = await queryRows<{ payload: string }>(store, "SELECT payload FROM {{database}}.case_results FINAL ORDER BY trace_id");
    const results = rows.map((row) => caseResultSchema.parse(JSON.parse(row.payload)));
    assert.deepEqual(
      results.map((result) => [result.trace_id, result.rag_observation.generation.cost, result.rag_observation.generation.input_tokens]),
      [
        [REQUESTS[0]!.traceId, null, null],
        [REQUESTS[1]!.traceId, null, Number(BOUND)],
        [REQUESTS[2]!.traceId, 4e15, Number(BOUND)],
        [REQUESTS[3]!.traceId, 2e15, Number(BOUND)],
      ],
    );
    // A note on each value, and one on the call that its usage is left out of the request's sums.
    const valueNotes = (index: number) => results[index]!.rag_observation.malformed_attributes.filter((note) => note.attribute.startsWith("generation."));
    assert.deepEqual(valueNotes(0).map((note) => [note.attribute, note.kind]), [["generation.input_tokens", "unreadable_value"], ["generation.cost", "unreadable_value"]]);
    for (const note of valueNotes(0)) assert.match(note.error, /^is 1e\+308, beyond 9007199254740991 \(2\^53 − 1\), the most ragscope reads as a (token count|cost): no request measures that much/);
    assert.deepEqual(valueNotes(1).map((note) => note.attribute), ["generation.cost"], "2^53 is beyond the bound, 2^53 − 1 tokens within it");
    assert.deepEqual(valueNotes(2), []);
  } finally {
    await store.close();
  }
});
