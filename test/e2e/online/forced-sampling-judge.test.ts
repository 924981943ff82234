/**
 * Forced sampling end to end: SDK spans → OTLP/HTTP → the embedded collector
 * with the judge on and a sample rate of 0 → rule evaluation → the judge
 * queue → an OpenAI-compatible judge (a scripted local endpoint) → chDB, read
 * back from the store.
 *
 * At rate 0 only forced traces reach the judge. A trace whose answer the
 * claim-overlap measure finds unsupported by its context carries a heuristic
 * signal (review_required) and is forced in with reason `heuristic_review`
 * (collector/08-sample/forced-inclusion.ts); the judge's verdicts then decide
 * the case again (evaluators/case-verdict.ts):
 * - a paraphrase the overlap measure cannot match, which the judge finds
 *   supported → passed;
 * - a fabricated answer the judge finds unsupported → failed;
 * - a faithful answer with no signal against it is not sampled, never sent
 *   to the judge, and stays unjudged.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { loadSettings } from "../../../collector/wiring/config/load-settings.js";
import { onlineSettings } from "../../../collector/wiring/config/settings-schema.js";
import { createOnlineStage } from "../../../collector/wiring/online/online-stage.js";
import { startEmbeddedCollector, type EmbeddedCollector } from "../../../collector/wiring/run/embedded-collector.js";
import { OpenAiJudge } from "../../../evaluators/judge/openai-judge.js";
import { traceContext, traceGenerate, traceRequest, traceRetrieve } from "../../../instrumentation/index.js";
import { reply, startFakeChatCompletionsServer, type FakeChatCompletionsServer, type ScriptedReply } from "../../support/fake-chat-completions-server.js";
import { postTraces, startSpanRecorder, toOtlpProtobuf, type SpanRecorder } from "../../support/recorded-spans.js";
import { queryRows, temporaryStore, type TemporaryStore } from "../../support/temporary-store.js";

const CONTEXT = "Employees have 10 days of annual leave per calendar year.";
const requests = {
  paraphrase: { query: "paraphrase: how much annual leave do employees get?", answer: "Staff receive ten vacation days every year." },
  fabricated: { query: "fabricated: how much annual leave do employees get?", answer: "Staff receive 30 vacation days, granted by the Vienna office since 1975." },
  faithful: { query: "faithful: how much annual leave do employees get?", answer: CONTEXT },
} as const;
type RequestName = keyof typeof requests;

/** The judge's scripted verdicts: the fabricated answer's claims are unsupported, everything else is supported and relevant. */
function judgeReply(user: string, metric: string): ScriptedReply {
  const fabricated = user.includes(requests.fabricated.answer);
  switch (metric) {
    case "faithfulness":
      return reply.json({ claims: [{ claim: fabricated ? "30 vacation days" : "ten vacation days a year", supported: !fabricated, documents: fabricated ? [] : ["D1"] }], reason: "scripted", confidence: "high" });
    case "answer_relevance":
      return reply.json({ score: 3, reason: "scripted" });
    case "context_precision_judged":
      return reply.json({ documents: [{ id: "D1", relevant: true }], reason: "scripted" });
    case "context_sufficiency_judged":
      return reply.json({ score: 3, missing_information: [], reason: "scripted" });
    default:
      return reply.status(500);
  }
}

async function tracedRequest(name: RequestName): Promise<void> {
  const { query, answer } = requests[name];
  await traceRequest({ query }, async () => {
    await traceRetrieve({ query }, () => [{ chunkId: "leave_1", documentId: "handbook", text: CONTEXT }]);
    await traceContext({}, () => ({ text: CONTEXT, chunkIds: ["leave_1"] }));
    await traceGenerate({ model: "m" }, () => ({ text: answer }));
    return answer;
  });
}

describe("forced sampling: a heuristic review signal sends the trace to the judge at sample rate 0", () => {
  let store: TemporaryStore;
  let server: FakeChatCompletionsServer;
  let recorder: SpanRecorder;
  let collector: EmbeddedCollector;
  const rowsOf = new Map<RequestName, { case_result_id: string; quality_status: string }>();

  before(async () => {
    store = await temporaryStore({ migrate: false });
    server = await startFakeChatCompletionsServer();
    server.respondWith((request) => judgeReply(request.user, /^METRIC: (\w+)/m.exec(request.system)?.[1] ?? ""));
    recorder = startSpanRecorder("leave-bot");
    const config = loadSettings({
      environment: { RAGSCOPE_JUDGE_ENABLED: "true", RAGSCOPE_SAMPLE_RATE: "0" },
      fixed: { "receiver.port": 0, "assembler.quietPeriodMs": 100, "clickhouse.dataPath": store.dataPath, "clickhouse.database": store.connection.database },
    });
    assert.ok(config.ok);
    const judge = new OpenAiJudge({ baseUrl: server.baseUrl, apiKey: "test-key", model: "fake-judge", retryPolicy: { initialDelayMs: 1, maxDelayMs: 2, maxAttempts: 1, deadlineMs: 2_000 } });
    collector = await startEmbeddedCollector(config.value, {
      online: async (store) => {
        const stage = await createOnlineStage(onlineSettings(config.value), { store, judge, retry: { initialDelayMs: 5, maxDelayMs: 20, maxAttempts: 1, deadlineMs: 1_000 }, log: () => {} });
        assert.ok(stage.ok, stage.ok ? "" : stage.error.join("; "));
        return stage.value;
      },
    });
    for (const name of Object.keys(requests) as RequestName[]) await tracedRequest(name);
    assert.equal(await postTraces(collector.receiverUrl, toOtlpProtobuf(recorder.spans())), 200);
    // Waits for the traces to be released, evaluated, judged and the verdicts written (no timing assertion).
    const deadline = Date.now() + 20_000;
    while (collector.worker.counters.tracesEvaluated < 3) {
      assert.ok(Date.now() < deadline, "the traces were not evaluated");
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.ok(await collector.waitUntilIdle(20_000), "the judge queue did not drain");
    for (const row of await queryRows<{ case_result_id: string; quality_status: string; payload: string }>(collector.store.connection, "SELECT case_result_id, quality_status, payload FROM {{database}}.case_results FINAL")) {
      const query = (JSON.parse(row.payload) as { rag_observation: { query: string } }).rag_observation.query;
      rowsOf.set(query.split(":")[0] as RequestName, { case_result_id: row.case_result_id, quality_status: row.quality_status });
    }
  });

  after(async () => {
    await collector?.close();
    await recorder?.shutdown();
    await server?.close();
    await store?.cleanup();
  });

  test("the overlap measure flags the paraphrase and the fabrication, not the faithful answer", async () => {
    const flagged = await queryRows<{ case_result_id: string; review_required: number }>(
      collector.store.connection,
      "SELECT case_result_id, review_required FROM {{database}}.evaluation_results FINAL WHERE evaluator_id = 'online.groundedness'",
    );
    const flagOf = (name: RequestName) => Number(flagged.find((row) => row.case_result_id === rowsOf.get(name)?.case_result_id)?.review_required);
    assert.deepEqual([flagOf("paraphrase"), flagOf("fabricated"), flagOf("faithful")], [1, 1, 0]);
  });

  test("at rate 0 the judge saw the two flagged traces only", () => {
    const judged = (answer: string) => server.requests.filter((request) => request.user.includes(answer)).length;
    assert.ok(judged(requests.paraphrase.answer) > 0, "the paraphrase was judged");
    assert.ok(judged(requests.fabricated.answer) > 0, "the fabrication was judged");
    assert.equal(server.requests.filter((request) => request.user.includes(requests.faithful.query)).length, 0, "the faithful trace was not judged");
    // At rate 0 the rate samples nothing: both were forced in.
    assert.equal(collector.online?.parts.dispatcher?.counters.offered, 3);
    assert.equal(collector.online?.parts.dispatcher?.counters.sampled, 2);
    assert.equal(collector.online?.parts.dispatcher?.counters.enqueued, 2);
  });

  test("the judge's verdicts decide the cases again: supported → passed, unsupported → failed; unsampled stays unjudged", async () => {
    assert.equal(rowsOf.get("paraphrase")?.quality_status, "passed");
    assert.equal(rowsOf.get("fabricated")?.quality_status, "failed");
    assert.equal(rowsOf.get("faithful")?.quality_status, "unjudged");
    const faithfulness = await queryRows<{ case_result_id: string; outcome: string }>(
      collector.store.connection,
      "SELECT case_result_id, outcome FROM {{database}}.evaluation_results FINAL WHERE evaluator_id = 'judge.faithfulness' ORDER BY case_result_id",
    );
    assert.deepEqual(
      new Map(faithfulness.map((row) => [row.case_result_id, row.outcome])),
      new Map([
        [rowsOf.get("paraphrase")!.case_result_id, "passed"],
        [rowsOf.get("fabricated")!.case_result_id, "failed"],
      ]),
    );
  });
});
