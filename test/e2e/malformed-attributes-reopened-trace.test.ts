/**
 * A trace that late spans re-open is rebuilt from all its spans and evaluated again; its notes
 * (`ragscope_malformed_attributes_total{kind}`) and its naming an unknown Eval Case (`ragscope_unknown_cases_total`)
 * are still counted once: the re-opened trace adds only what its late spans brought. As an operator meets it:
 * OTLP/JSON over HTTP to a running `ragscope serve` (a subprocess of the built CLI), then its /metrics.
 *
 * Sent: a GenAI workflow request naming a case version no store holds, whose output messages are JSON text cut short
 * (one `malformed_json` note); once it is written, a late child span of it, a chat whose output messages are cut
 * short too (one more note).
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { readSample } from "../../collector/wiring/observe/metrics-registry.js";
import { startCollectorSubprocess, type CollectorSubprocess } from "../support/collector-subprocess.js";
import { oneRequestOtlp } from "../support/one-request-otlp.js";
import { postTraces } from "../support/recorded-spans.js";

let collector: CollectorSubprocess;
before(async () => (collector = await startCollectorSubprocess({})));
after(async () => {
  await collector.stop();
  await collector.remove();
});

const post = async (body: string) => assert.equal(await postTraces(collector.receiverUrl, new TextEncoder().encode(body), "application/json"), 200);

const cutShortOutput = '[{"role":"assistant","parts":[{"type":"text","content":"Five da';

/** The request: its root, and the child that arrives after the root was evaluated and written. */
const request = JSON.parse(
  oneRequestOtlp({
    traceId: "5e0000000000000000000000000000b2",
    serviceName: "policy-assistant",
    spans: [
      {
        name: "invoke_workflow policy_rag",
        attributes: {
          "gen_ai.operation.name": "invoke_workflow",
          "ragscope.run_id": "run-1",
          "ragscope.case_id": "carry_over",
          "ragscope.case_version": "v1",
          "gen_ai.input.messages": JSON.stringify([{ role: "user", parts: [{ type: "text", content: "How many days carry over?" }] }]),
          "gen_ai.output.messages": cutShortOutput,
        },
      },
      {
        name: "chat policy-model",
        attributes: {
          "gen_ai.operation.name": "chat",
          "gen_ai.input.messages": JSON.stringify([{ role: "user", parts: [{ type: "text", content: "How many days carry over?" }] }]),
          "gen_ai.output.messages": cutShortOutput,
        },
      },
    ],
  }),
) as { resourceSpans: [{ resource: unknown; scopeSpans: [{ spans: unknown[] }] }] };

/** The request's body with only the span at `index`. */
function onlySpan(index: number): string {
  const [resourceSpans] = request.resourceSpans;
  return JSON.stringify({ resourceSpans: [{ resource: resourceSpans.resource, scopeSpans: [{ spans: [resourceSpans.scopeSpans[0].spans[index]] }] }] });
}

/** Scrapes /metrics until `ready` holds of it (at most 30 s), and returns that scrape. */
async function metricsWhen(ready: (metrics: string) => boolean): Promise<string> {
  let metrics = await collector.metrics();
  for (let attempt = 0; attempt < 300 && !ready(metrics); attempt += 1) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    metrics = await collector.metrics();
  }
  return metrics;
}

test("a trace that late spans re-open counts its notes and its unknown case once: only what the late spans brought is added", async () => {
  await post(onlySpan(0));
  const first = await metricsWhen((metrics) => readSample(metrics, "ragscope_traces_written_total") === 1);
  assert.equal(readSample(first, "ragscope_traces_written_total"), 1, collector.output());
  assert.equal(readSample(first, "ragscope_malformed_attributes_total", { kind: "malformed_json" }), 1, "the root's messages cut short");
  assert.equal(readSample(first, "ragscope_unknown_cases_total"), 1, "the case version no store holds");

  await post(onlySpan(1));
  const reopened = await metricsWhen((metrics) => readSample(metrics, "ragscope_traces_written_total") === 2);
  assert.equal(readSample(reopened, "ragscope_traces_reopened_total"), 1, collector.output());
  assert.equal(readSample(reopened, "ragscope_traces_written_total"), 2, "the re-opened trace written again");
  assert.equal(readSample(reopened, "ragscope_malformed_attributes_total", { kind: "malformed_json" }), 2, "the root's note once, and the late chat's");
  assert.equal(readSample(reopened, "ragscope_malformed_json_attributes_total"), 2, "the older counter agrees");
  assert.equal(readSample(reopened, "ragscope_unknown_cases_total"), 1, "one trace names the unknown case, however often it is evaluated");
  assert.match(reopened, /^# HELP ragscope_malformed_attributes_total .*each note counted once per trace/m);
});
