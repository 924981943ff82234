/**
 * `ragscope_malformed_attributes_total{kind}` as an operator meets it: OTLP/JSON over HTTP to a running `ragscope
 * serve` (a subprocess of the built CLI), then its /metrics. The metric counts the notes of rebuilt Case Results'
 * `rag_observation.malformed_attributes` by kind, every kind from 0, where Case Results are rebuilt (the evaluation
 * worker, which a Kafka evaluator runs too).
 *
 * Sent: the recorded OTel GenAI golden (test/golden/traces/otel-genai.otlp.json) with its retrieval's second score
 * written as an object and its third document as a bare id — two values its reader cannot read, two
 * `unreadable_value` notes (test/golden/otel-genai-unreadable-items.test.ts) — and a second trace, a GenAI chat
 * request whose output messages are JSON text cut short: one `malformed_json` note. The health snapshots serve writes
 * to its store (collector_health, for the Collector health dashboard) carry the same counts, a counter per kind.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { MALFORMED_ATTRIBUTE_KINDS } from "../../contracts/case-result.js";
import { readSample } from "../../collector/wiring/observe/metrics-registry.js";
import { editGoldenTrace } from "../golden/edited-golden-trace.js";
import { startCollectorSubprocess, type CollectorSubprocess } from "../support/collector-subprocess.js";
import { oneRequestOtlp } from "../support/one-request-otlp.js";
import { postTraces } from "../support/recorded-spans.js";
import { queryRows } from "../support/temporary-store.js";

let collector: CollectorSubprocess;
before(async () => (collector = await startCollectorSubprocess({})));
after(async () => {
  await collector.stop();
  await collector.remove();
});

const post = async (body: string) => assert.equal(await postTraces(collector.receiverUrl, new TextEncoder().encode(body), "application/json"), 200);

/** A one-span GenAI request whose output messages are JSON text cut short. */
const cutShort = oneRequestOtlp({
  traceId: "5e0000000000000000000000000000a1",
  serviceName: "policy-assistant",
  spans: [
    {
      name: "invoke_workflow policy_rag",
      attributes: {
        "gen_ai.operation.name": "invoke_workflow",
        "gen_ai.input.messages": JSON.stringify([{ role: "user", parts: [{ type: "text", content: "How many days carry over?" }] }]),
        "gen_ai.output.messages": '[{"role":"assistant","parts":[{"type":"text","content":"Five da',
      },
    },
  ],
});

test("/metrics counts the Case Results' malformed attributes by kind, every kind from 0", async () => {
  const before = await collector.metrics();
  for (const kind of MALFORMED_ATTRIBUTE_KINDS) assert.equal(readSample(before, "ragscope_malformed_attributes_total", { kind }), 0, `${kind} from the start`);

  const trace = await editGoldenTrace("otel-genai");
  const retrieval = trace.span("retrieval policy-index");
  const documents = JSON.parse(trace.text(retrieval, "gen_ai.retrieval.documents")) as { id: string; score: number }[];
  trace.setText(retrieval, "gen_ai.retrieval.documents", JSON.stringify([documents[0], { ...documents[1], score: { cosine: documents[1]!.score } }, documents[2]!.id]));
  await post(trace.json());
  await post(cutShort);

  const written = async () => readSample(await collector.metrics(), "ragscope_traces_written_total") ?? 0;
  for (let attempt = 0; attempt < 300 && (await written()) < 2; attempt += 1) await new Promise((resolve) => setTimeout(resolve, 100));
  const metrics = await collector.metrics();
  assert.equal(readSample(metrics, "ragscope_traces_written_total"), 2, collector.output());
  assert.equal(readSample(metrics, "ragscope_malformed_attributes_total", { kind: "unreadable_value" }), 2, "the object score and the bare id");
  assert.equal(readSample(metrics, "ragscope_malformed_attributes_total", { kind: "malformed_json" }), 1, "the messages cut short");
  assert.equal(readSample(metrics, "ragscope_malformed_json_attributes_total"), 1, "the older counter agrees");
  for (const kind of ["invalid_identifier", "invalid_time", "truncated", "tenant_claim"]) {
    assert.equal(readSample(metrics, "ragscope_malformed_attributes_total", { kind }), 0, kind);
  }
  assert.match(metrics, /^# HELP ragscope_malformed_attributes_total notes on rebuilt Case Results/m);
  assert.match(metrics, /^# TYPE ragscope_malformed_attributes_total counter$/m);

  // Stopping writes a last snapshot: the increases since the previous one, so the snapshots add up to the totals.
  assert.equal(await collector.stop(), 0, collector.output());
  const store = await collector.openStore();
  try {
    const rows = await queryRows<{ metric: string; kind: string; total: string | number }>(
      store,
      "SELECT metric, any(kind) AS kind, sum(value) AS total FROM {{database}}.collector_health FINAL WHERE startsWith(metric, 'malformed_attributes_') GROUP BY metric ORDER BY metric",
    );
    assert.deepEqual(
      rows.map((row) => [row.metric, row.kind, Number(row.total)]),
      [...MALFORMED_ATTRIBUTE_KINDS].sort().map((kind) => [`malformed_attributes_${kind}`, "delta", readSample(metrics, "ragscope_malformed_attributes_total", { kind })]),
      "every kind, each as /metrics counts it",
    );
    assert.deepEqual(rows.filter((row) => Number(row.total) > 0).map((row) => [row.metric, Number(row.total)]), [["malformed_attributes_malformed_json", 1], ["malformed_attributes_unreadable_value", 2]]);
  } finally {
    await store.close();
  }
});
