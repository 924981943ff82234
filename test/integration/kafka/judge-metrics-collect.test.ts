/**
 * The judge's counters on the /metrics of the Kafka roles that run the judge:
 * `ragscope collect` (receiver and evaluator in one process) started through
 * bin/ragscope.js against a real broker, its judge an OpenAI-compatible
 * endpoint (a local fake with scripted usage), SDK spans sent as OTLP/HTTP to
 * its receiver, /metrics scraped. The evaluator's judge workers are what
 * `ragscope evaluate` runs too (the same role).
 *
 * With a gate file of one judged rule (faithfulness), the evaluator's alert
 * rule gauge: the LLM judge's values are the rule's samples, so it leaves out
 * none — 0 from the start and still 0 after the pass (the heuristic judge's
 * measurements, the ones left out, are counted in
 * test/integration/alert/serve-heuristic-judgements-left-out.test.ts); and its
 * state set, which says the rule is silent for want of samples (one judged
 * value of the five it needs), not because faithfulness is fine. And the
 * store's tables (ragscope_store_*, read every 200 ms here), as on serve.
 *
 * Uses the cluster in KAFKA_BROKERS when test/run-tests.ts provides one; run on
 * its own, the file starts its own broker.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { readSample } from "../../../collector/wiring/observe/metrics-registry.js";
import { traceContext, traceGenerate, traceRequest, traceRetrieve } from "../../../instrumentation/index.js";
import { reply, startFakeChatCompletionsServer, type FakeChatCompletionsServer } from "../../support/fake-chat-completions-server.js";
import { createTestKafkaClient } from "../../support/kafka-client.js";
import { ensureKafkaForTests, type KafkaForTests } from "../../support/kafka-for-tests.js";
import { createUniqueTopic, uniqueTopicName, waitUntil } from "../../support/kafka-helpers.js";
import { postTraces, startSpanRecorder, toOtlpProtobuf, type SpanRecorder } from "../../support/recorded-spans.js";
import { killAllCollectorProcesses, startCollectorProcess, type CollectorProcess } from "./support/collector-processes.js";

const ERROR_TYPES = ["timeout", "refusal", "unparseable", "rate_limited", "http_error", "budget_exhausted"];
const CONTEXT = "Employees have 10 days of annual leave per calendar year.";
const SUPPORTED = "Employees get 10 days of annual leave a year.";
const REFUSED_BY_ENDPOINT = "Annual leave is 10 days, and the judge endpoint refuses this one.";

describe("ragscope collect exports the judge's counters on /metrics", () => {
  let cluster: KafkaForTests;
  let server: FakeChatCompletionsServer;
  let recorder: SpanRecorder;
  let dataDir: string;
  let collect: CollectorProcess;
  let atStart: string;
  let judged: string;

  before(async () => {
    cluster = await ensureKafkaForTests();
    const kafka = createTestKafkaClient(cluster.brokers.split(","));
    const topic = await createUniqueTopic(kafka, { prefix: "judge-metrics", partitions: 1 });
    dataDir = await mkdtemp(path.join(os.tmpdir(), "ragscope-judge-metrics-"));
    const gateFile = path.join(dataDir, "gates.yaml");
    await writeFile(gateFile, 'generation:\n  faithfulness: { threshold: ">= 0.92", min_samples: 5 }\n');
    server = await startFakeChatCompletionsServer();
    // 1,000 prompt and 250 completion tokens at 0.5 and 1 per 1k: 0.5 + 0.25 = 0.75 (exact in binary).
    server.respondWith((request) =>
      request.user.includes(REFUSED_BY_ENDPOINT)
        ? reply.status(400)
        : reply.json({ claims: [{ claim: "10 days of annual leave a year", supported: true, documents: ["D1"] }], reason: "scripted", confidence: "high" }, { promptTokens: 1000, completionTokens: 250 }),
    );
    recorder = startSpanRecorder("leave-bot");
    collect = await startCollectorProcess(
      "collect",
      "collect",
      ["--kafka-brokers", cluster.brokers, "--topic", topic, "--dead-letter-topic", `${topic}-dead-letters`, "--group-id", uniqueTopicName("judge-metrics-group"), "--data-dir", dataDir, "--host", "127.0.0.1", "--port", "0", "--quiet-period-ms", "300"],
      {
        RAGSCOPE_JUDGE_ENABLED: "true",
        RAGSCOPE_SAMPLE_RATE: "1",
        RAGSCOPE_JUDGE_BASE_URL: server.baseUrl,
        RAGSCOPE_JUDGE_MODEL: "fake-judge",
        RAGSCOPE_JUDGE_METRICS: "faithfulness",
        RAGSCOPE_JUDGE_STRUCTURED_OUTPUT: "json_object",
        RAGSCOPE_JUDGE_INPUT_PRICE_PER_1K: "0.5",
        RAGSCOPE_JUDGE_OUTPUT_PRICE_PER_1K: "1",
        RAGSCOPE_CLICKHOUSE_URL: "",
        RAGSCOPE_ALERT_GATE_FILE: gateFile,
        RAGSCOPE_STORE_PARTS_INTERVAL_MS: "200",
      },
    );
    atStart = await collect.metrics();

    for (const answer of [SUPPORTED, REFUSED_BY_ENDPOINT]) {
      await traceRequest({ query: `how much annual leave? ${answer.length}` }, async () => {
        await traceRetrieve({ query: "annual leave" }, () => [{ chunkId: "leave_1", documentId: "handbook", text: CONTEXT }]);
        await traceContext({}, () => ({ text: CONTEXT, chunkIds: ["leave_1"] }));
        await traceGenerate({ model: "m" }, () => ({ text: answer }));
        return answer;
      });
    }
    assert.ok(collect.receiverUrl, collect.output.join("\n"));
    assert.equal(await postTraces(collect.receiverUrl, toOtlpProtobuf(recorder.spans())), 200);
    judged = await waitUntil(
      async () => {
        const text = await collect.metrics();
        const outcomes = ["pass", "fail", "grader_error"].reduce((total, outcome) => total + (readSample(text, "ragscope_judge_outcomes_total", { outcome }) ?? 0), 0);
        return outcomes >= 2 ? text : undefined;
      },
      { description: "two judged metrics", timeoutMs: 90_000, intervalMs: 200 },
    );
  });

  after(async () => {
    await killAllCollectorProcesses();
    await recorder?.shutdown();
    await server?.close();
    if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
    await cluster?.stop();
  });

  test("every judge series exists from the start at 0", () => {
    for (const type of ERROR_TYPES) assert.equal(readSample(atStart, "ragscope_judge_grader_errors_total", { error_type: type }), 0, type);
    assert.equal(readSample(atStart, "ragscope_judge_calls_total"), 0);
    assert.equal(readSample(atStart, "ragscope_judge_cost_usd_total"), 0);
    assert.equal(readSample(atStart, "ragscope_judge_cache_hits_total"), 0);
  });

  test("a pass and an endpoint error: two calls, one http_error, the pass's tokens and cost", () => {
    assert.equal(server.requests.length, 2);
    assert.equal(readSample(judged, "ragscope_judge_calls_total"), 2);
    assert.equal(readSample(judged, "ragscope_judge_outcomes_total", { outcome: "pass" }), 1);
    for (const type of ERROR_TYPES) assert.equal(readSample(judged, "ragscope_judge_grader_errors_total", { error_type: type }), type === "http_error" ? 1 : 0, type);
    assert.equal(readSample(judged, "ragscope_judge_tokens_total", { type: "input" }), 1000);
    assert.equal(readSample(judged, "ragscope_judge_tokens_total", { type: "output" }), 250);
    assert.equal(readSample(judged, "ragscope_judge_cost_usd_total"), 0.75);
  });

  test("the faithfulness alert rule's gauge: an LLM judge's values are samples, none left out", () => {
    const rule = { rule_id: "generation.faithfulness", metric: "faithfulness" };
    assert.equal(readSample(atStart, "ragscope_alert_heuristic_judgements_left_out", rule), 0);
    assert.equal(readSample(judged, "ragscope_alert_heuristic_judgements_left_out", rule), 0);
  });

  test("the store's tables on the evaluator's /metrics: the two requests in case_results, on disk", async () => {
    const stored = await waitUntil(
      async () => {
        const text = await collect.metrics();
        // Rows of every version until merged: a judged request is written again with its judge's values, so 2 or 4 here.
        return (readSample(text, "ragscope_store_rows", { table: "case_results" }) ?? 0) >= 2 ? text : undefined;
      },
      { description: "the two Case Results in the store's rows", timeoutMs: 30_000, intervalMs: 200 },
    );
    assert.ok(readSample(stored, "ragscope_store_active_parts", { table: "case_results" })! >= 1);
    assert.ok(readSample(stored, "ragscope_store_bytes_on_disk", { table: "case_results" })! > 0);
    assert.ok(readSample(stored, "ragscope_store_parts_to_delay_insert")! > 0);
  });

  test("the faithfulness alert rule's state: insufficient samples before and after the pass (one sample of the five it needs), no mean", async () => {
    const rule = { rule_id: "generation.faithfulness", metric: "faithfulness" };
    const states = (text: string) => Object.fromEntries(["firing", "insufficient_samples", "ok"].map((state) => [state, readSample(text, "ragscope_alert_rule_state", { ...rule, state })]));
    assert.deepEqual(states(atStart), { firing: 0, insufficient_samples: 1, ok: 0 });
    assert.equal(readSample(atStart, "ragscope_alert_rule_window_samples", rule), 0);
    // The pass's faithfulness (1: its one claim supported) is the window's one sample; the endpoint error gave no value.
    const sampled = await waitUntil(
      async () => {
        const text = await collect.metrics();
        return readSample(text, "ragscope_alert_rule_window_samples", rule) === 1 ? text : undefined;
      },
      { description: "the judged value in the rule's window", timeoutMs: 30_000, intervalMs: 200 },
    );
    assert.deepEqual(states(sampled), { firing: 0, insufficient_samples: 1, ok: 0 });
    assert.equal(readSample(sampled, "ragscope_alert_rule_window_mean", rule), null);
  });
});
