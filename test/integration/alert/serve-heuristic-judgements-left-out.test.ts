/**
 * An operator whose judged-metric alert rule stays silent sees why on
 * `ragscope serve`'s /metrics: the built CLI as a child process with a gate
 * file of one judged rule and the judge on without an LLM endpoint (so the
 * heuristic judge judges), SDK spans sent over OTLP/HTTP, /metrics scraped.
 *
 * Worked by hand: the gate file's one rule, `generation.faithfulness`
 * (">= 0.92", min_samples 5), has its series from the start at 0. Six traces,
 * each answer's every claim absent from its context, are sampled (rate 1) and
 * judged by the heuristic judge: six faithfulness measurements of 0, each left
 * out of the rule's window (15 minutes by default, so none slides out) — the
 * gauge reads 6 — and the window holds no sample, so the rule never fires
 * although every value is far below 0.92.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { readSample } from "../../../collector/wiring/observe/metrics-registry.js";
import { traceContext, traceGenerate, traceRequest, traceRetrieve } from "../../../instrumentation/index.js";
import { postTraces, startSpanRecorder, toOtlpProtobuf, type SpanRecorder } from "../../support/recorded-spans.js";
import { startServeWithUi, type ServeWithUi } from "../../support/serve-with-ui.js";

const GATE = 'generation:\n  faithfulness: { threshold: ">= 0.92", min_samples: 5 }\n';
const GAUGE = "ragscope_alert_heuristic_judgements_left_out";
const RULE = { rule_id: "generation.faithfulness", metric: "faithfulness" };
const TRACES = 6;
const CONTEXT = "Employees have 10 days of annual leave per year.";
const UNSUPPORTED = "Contractors receive 25 weeks of paid sabbatical. The cafeteria serves breakfast on Saturdays.";

describe("ragscope serve's /metrics counts the heuristic judge's measurements each alert rule left out", () => {
  let folder: string;
  let recorder: SpanRecorder;
  let serve: ServeWithUi;
  let metricsUrl: string;

  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-serve-left-out-"));
    const gateFile = path.join(folder, "gates.yaml");
    await writeFile(gateFile, GATE);
    recorder = startSpanRecorder("leave-bot");
    serve = await startServeWithUi(path.join(folder, "data"), {
      RAGSCOPE_JUDGE_ENABLED: "true",
      RAGSCOPE_SAMPLE_RATE: "1",
      RAGSCOPE_ALERT_GATE_FILE: gateFile,
      RAGSCOPE_QUIET_PERIOD_MS: "200",
    });
    metricsUrl = /\/readyz on (http:\/\/[\d.:]+)/.exec(serve.output())![1]!;
  });

  after(async () => {
    if (serve !== undefined) await serve.stop();
    await recorder?.shutdown();
    await rm(folder, { recursive: true, force: true });
  });

  const scrape = async () => (await fetch(`${metricsUrl}/metrics`)).text();

  test("the rule's series is there from the start, at 0", async () => {
    assert.match(serve.output(), /online evaluation: deterministic heuristic judge/);
    assert.equal(readSample(await scrape(), GAUGE, RULE), 0);
  });

  test("six faithfulness measurements of the heuristic judge: 6 left out, and the rule stays silent", async () => {
    for (let index = 0; index < TRACES; index += 1) {
      const query = `question ${index}: how many days of annual leave do employees get?`;
      await traceRequest({ query }, async () => {
        await traceRetrieve({ query }, () => [{ chunkId: "leave_chunk", documentId: "handbook", text: CONTEXT }]);
        await traceContext({}, () => ({ text: CONTEXT, chunkIds: ["leave_chunk"] }));
        await traceGenerate({ model: "m" }, () => ({ text: UNSUPPORTED }));
        return UNSUPPORTED;
      });
    }
    assert.equal(await postTraces(serve.receiverUrl, toOtlpProtobuf(recorder.spans())), 200);

    // Judging runs behind evaluation: wait for the count to reach the traces sent (any other value fails below).
    const deadline = Date.now() + 60_000;
    let leftOut = readSample(await scrape(), GAUGE, RULE);
    while (leftOut !== TRACES && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      leftOut = readSample(await scrape(), GAUGE, RULE);
    }
    assert.equal(leftOut, TRACES, serve.output());
    assert.doesNotMatch(serve.output(), /ragscope alert firing/, "no alert on the heuristic judge's measurements");
  });
});
