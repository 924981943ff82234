/**
 * An operator sees on `ragscope serve`'s /metrics which alert rules are
 * firing, which are silent for want of samples and which are fine, without
 * reading alert events: the built CLI as a child process with a gate file of
 * three rules on exact rule metrics (no judge), SDK spans sent over OTLP/HTTP,
 * /metrics scraped.
 *
 * Worked by hand. Before traffic every rule's window is empty: state
 * insufficient_samples (1; firing and ok 0), 0 samples, no mean or interval
 * series. Then six traces, each packing one chunk and citing another that
 * was never packed:
 * - generation.citation_validity (">= 0.95", min_samples 5): cited ids that
 *   were packed / cited ids = 0 on each trace. Six 0s: a pass rate, Wilson
 *   95 % interval of 0 successes in 6 = [0, z²/(6 + z²)] = [0, 3.8415/9.8415]
 *   = [0, 0.3903], wholly below 0.95 (it already was at the fifth sample:
 *   3.8415/8.8415 = 0.4345), so it fires: firing 1, 6 samples, mean 0.
 * - context.context_redundancy ("<= 0.2", min_samples 5): one packed chunk
 *   repeats nothing, 0 on each trace; the same interval [0, 0.3903] is not
 *   wholly above 0.2, so it decides and does not fire: ok 1, 6 samples.
 * - performance.average_latency_ms ("<= 60000", min_samples 20): the
 *   request's duration on each trace, six samples of the twenty it needs:
 *   insufficient_samples 1 with 6 samples, and still no mean series (no
 *   interval to read, so none is shown rather than a 0).
 * The rules' windows are 15 minutes by observation time (the notifier's
 * clock): the test takes seconds, so none slides out and no clock needs
 * driving; a rule is evaluated as its samples arrive.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { readSample, type Labels } from "../../../collector/wiring/observe/metrics-registry.js";
import { traceCite, traceContext, traceGenerate, traceRequest, traceRetrieve } from "../../../instrumentation/index.js";
import { postTraces, startSpanRecorder, toOtlpProtobuf, type SpanRecorder } from "../../support/recorded-spans.js";
import { startServeWithUi, type ServeWithUi } from "../../support/serve-with-ui.js";

const GATE = [
  "generation:",
  '  citation_validity: { threshold: ">= 0.95", min_samples: 5 }',
  "context:",
  '  context_redundancy: { threshold: "<= 0.2", min_samples: 5 }',
  "performance:",
  '  average_latency_ms: { threshold: "<= 60000", min_samples: 20 }',
  "",
].join("\n");
const CITATIONS = { rule_id: "generation.citation_validity", metric: "citation_validity" };
const REDUNDANCY = { rule_id: "context.context_redundancy", metric: "context_redundancy" };
const LATENCY = { rule_id: "performance.average_latency_ms", metric: "latency_ms" };
const RULES = [CITATIONS, REDUNDANCY, LATENCY];
const TRACES = 6;
const CONTEXT = "Employees have 10 days of annual leave per year.";
const ANSWER = "Employees have 10 days of annual leave per year.";
/** Wilson 95 % upper bound of 0 successes in 6: z² / (6 + z²), z = 1.959964. */
const UPPER_OF_SIX_ZEROS = 0.3903;

/** The rule's state set as /metrics shows it: each state's value, null where the series is missing. */
function states(text: string, rule: Labels): Record<string, number | null> {
  return Object.fromEntries(["firing", "insufficient_samples", "ok"].map((state) => [state, readSample(text, "ragscope_alert_rule_state", { ...rule, state })]));
}

describe("ragscope serve's /metrics says each alert rule's state", () => {
  let folder: string;
  let recorder: SpanRecorder;
  let serve: ServeWithUi;
  let metricsUrl: string;

  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-serve-rule-state-"));
    const gateFile = path.join(folder, "gates.yaml");
    await writeFile(gateFile, GATE);
    recorder = startSpanRecorder("leave-bot");
    serve = await startServeWithUi(path.join(folder, "data"), { RAGSCOPE_ALERT_GATE_FILE: gateFile, RAGSCOPE_QUIET_PERIOD_MS: "200" });
    metricsUrl = /\/readyz on (http:\/\/[\d.:]+)/.exec(serve.output())![1]!;
  });

  after(async () => {
    if (serve !== undefined) await serve.stop();
    await recorder?.shutdown();
    await rm(folder, { recursive: true, force: true });
  });

  const scrape = async () => (await fetch(`${metricsUrl}/metrics`)).text();

  test("before traffic every rule is silent for want of samples: insufficient_samples, 0 samples, no mean", async () => {
    const text = await scrape();
    for (const rule of RULES) {
      assert.deepEqual(states(text, rule), { firing: 0, insufficient_samples: 1, ok: 0 }, rule.rule_id);
      assert.equal(readSample(text, "ragscope_alert_rule_window_samples", rule), 0, rule.rule_id);
      assert.equal(readSample(text, "ragscope_alert_rule_window_mean", rule), null, rule.rule_id);
      assert.equal(readSample(text, "ragscope_alert_rule_window_interval_upper", rule), null, rule.rule_id);
    }
  });

  test("six traces citing a chunk never packed: the citation rule fires, the redundancy rule is ok, the latency rule still lacks samples", async () => {
    for (let index = 0; index < TRACES; index += 1) {
      const query = `question ${index}: how many days of annual leave do employees get?`;
      await traceRequest({ query }, async () => {
        await traceRetrieve({ query }, () => [{ chunkId: "leave_chunk", documentId: "handbook", text: CONTEXT }]);
        await traceContext({}, () => ({ text: CONTEXT, chunkIds: ["leave_chunk"] }));
        await traceGenerate({ model: "m" }, () => ({ text: ANSWER }));
        await traceCite(() => ["sabbatical_chunk"]);
        return ANSWER;
      });
    }
    assert.equal(await postTraces(serve.receiverUrl, toOtlpProtobuf(recorder.spans())), 200);

    // Evaluation runs after each trace's quiet period: wait for every window to hold the traces sent (any other count fails below).
    const deadline = Date.now() + 60_000;
    let text = await scrape();
    const filled = () => RULES.every((rule) => readSample(text, "ragscope_alert_rule_window_samples", rule) === TRACES);
    while (!filled() && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      text = await scrape();
    }
    for (const rule of RULES) assert.equal(readSample(text, "ragscope_alert_rule_window_samples", rule), TRACES, `${rule.rule_id}\n${serve.output()}`);

    assert.deepEqual(states(text, CITATIONS), { firing: 1, insufficient_samples: 0, ok: 0 });
    assert.equal(readSample(text, "ragscope_alert_rule_window_mean", CITATIONS), 0);
    assert.equal(readSample(text, "ragscope_alert_rule_window_interval_lower", CITATIONS), 0);
    assert.ok(Math.abs(readSample(text, "ragscope_alert_rule_window_interval_upper", CITATIONS)! - UPPER_OF_SIX_ZEROS) < 1e-4);
    assert.match(serve.output(), /ragscope alert firing: generation\.citation_validity is failing/, "the alert event agrees");

    assert.deepEqual(states(text, REDUNDANCY), { firing: 0, insufficient_samples: 0, ok: 1 });
    assert.equal(readSample(text, "ragscope_alert_rule_window_mean", REDUNDANCY), 0);
    assert.ok(Math.abs(readSample(text, "ragscope_alert_rule_window_interval_upper", REDUNDANCY)! - UPPER_OF_SIX_ZEROS) < 1e-4);

    assert.deepEqual(states(text, LATENCY), { firing: 0, insufficient_samples: 1, ok: 0 });
    assert.equal(readSample(text, "ragscope_alert_rule_window_mean", LATENCY), null);
    assert.doesNotMatch(serve.output(), /ragscope alert firing: (context|performance)\./);
  });
});
