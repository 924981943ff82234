/**
 * What one request may decode into (SECURITY.md "Limits"): the body size
 * bounds bytes, not the objects they decode to. 16,000 spans of 1,000 empty
 * events each (a 32 MB body, every span within RAGSCOPE_MAX_EVENTS_PER_SPAN)
 * took serve to 5.7 GB of RSS and 76 s and was answered 200; an attribute
 * holding an array of 16 million empty values (32 MB) to 1.2 GB; a resource of
 * 1,024 attributes over 100,000 spans (7 MB, each span record carrying the
 * resource's attributes) to 4.5 GB and a decode thread out of heap (500). Now
 * a request's items — spans, events, links, attributes, array elements, a
 * resource's attributes once for each of its spans — are counted on its bytes
 * before anything is decoded, and past RAGSCOPE_MAX_ITEMS_PER_REQUEST it is
 * refused (413) saying what, where and how to send less; OTLP/JSON bodies by
 * their objects and arrays before JSON.parse. Real requests still pass: the
 * OTel SDK's default batch of 512 spans, OpenLLMetry retrievals with one event
 * per document, and a request at the bound. Run against `ragscope serve` with
 * its default bounds as a child process over real OTLP/HTTP on 127.0.0.1, its
 * RSS sampled from /metrics while each request runs (measured: each refusal
 * under +90 MiB from an idle ~390 MiB; the request at the bound +320 MiB, the
 * real ones after it +380 MiB in all).
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { trace } from "@opentelemetry/api";
import { caseResult as caseResultSchema } from "../../contracts/case-result.js";
import { encodeTraceRequest, encodeTraceRequestJson } from "../../collector/00-otlp/index.js";
import type { KeyValue, SpanDocument, TracesDocument } from "../../collector/00-otlp/traces-document.js";
import { recordAttack } from "../support/attack-report.js";
import { startCollectorSubprocess, type CollectorSubprocess } from "../support/collector-subprocess.js";
import { startSpanRecorder, toOtlpJson, toOtlpProtobuf } from "../support/recorded-spans.js";
import { postTraces, syntheticRequestBody, syntheticSpan, syntheticSpanId, syntheticTraceId, text, type ReceiverAnswer } from "../support/synthetic-otlp-requests.js";
import { queryRows } from "../support/temporary-store.js";
import { field } from "../support/protobuf-wire.js";

const MEBIBYTE = 1024 * 1024;
/** serve's default (count-request-items.ts DEFAULT_MAX_ITEMS_PER_REQUEST): the bound under test is the one users get. */
const MAX_ITEMS_PER_REQUEST = 500_000;
/**
 * V8's old-space limit for serve (and each decode thread), as SECURITY.md "Limits" tells operators who bound memory
 * to set: without one V8 keeps an earlier request's garbage at will, and the next one's peak lands on top of it.
 */
const HEAP_LIMIT_MIB = 512;
/** How far above its idle RSS the collector may go while refusing: the body and its copies (a 32 MB body: ~60 MiB measured). */
const REFUSED_RSS_BOUND_BYTES = 256 * MEBIBYTE;
/** While decoding a request at the bound (500,000 empty events, among the costliest items) or a large real one, with the GC's slack. */
const TAKEN_RSS_BOUND_BYTES = 512 * MEBIBYTE;

/** A span's ids, name and times on the wire: span `index` of trace `trace` (index 0 its root). */
function spanHead(traceNumber: number, index: number): Buffer {
  const times = Buffer.alloc(18);
  times[0] = 7 * 8 + 1;
  times.writeBigUInt64LE(1_700_000_000_000_000_000n, 1);
  times[9] = 8 * 8 + 1;
  times.writeBigUInt64LE(1_700_000_000_100_000_000n, 10);
  const parent = index === 0 ? [] : [field(4, Buffer.from(syntheticSpanId(traceNumber, 0), "hex"))];
  return Buffer.concat([field(1, Buffer.from(syntheticTraceId(traceNumber), "hex")), field(2, Buffer.from(syntheticSpanId(traceNumber, index), "hex")), ...parent, field(5, Buffer.from(index === 0 ? "rag.request" : "rag.retrieve")), times]);
}

/** `spans` spans, a thousand a trace, each with `events` empty events (two bytes each). */
function emptyEventsRequest(firstTrace: number, spans: number, events: number): Buffer {
  const emptyEvents = Buffer.alloc(events * 2);
  for (let index = 0; index < events; index += 1) emptyEvents[index * 2] = 11 * 8 + 2;
  const parts: Buffer[] = [];
  for (let index = 0; index < spans; index += 1) parts.push(field(2, Buffer.concat([spanHead(firstTrace + Math.floor(index / 1_000), index % 1_000), emptyEvents])));
  return field(1, field(2, Buffer.concat(parts)));
}

/** One span with one attribute holding an array of `elements` empty values (two bytes each). */
function hugeArrayRequest(traceNumber: number, elements: number): Buffer {
  const values = Buffer.alloc(elements * 2);
  for (let index = 0; index < elements; index += 1) values[index * 2] = 0x0a;
  const attribute = Buffer.concat([field(1, Buffer.from("attack.array")), field(2, field(5, values))]);
  return field(1, field(2, field(2, Buffer.concat([spanHead(traceNumber, 0), field(9, attribute)]))));
}

/** A resource of `attributes` attributes over `spans` small spans. */
function wideResourceRequest(firstTrace: number, attributes: number, spans: number): Buffer {
  const resource = Buffer.concat(Array.from({ length: attributes }, (_, index) => field(1, Buffer.concat([field(1, Buffer.from(`r${index}`)), field(2, field(1, Buffer.from("v")))]))));
  const parts = Array.from({ length: spans }, (_, index) => field(2, spanHead(firstTrace + Math.floor(index / 1_000), index % 1_000)));
  return field(1, Buffer.concat([field(1, resource), field(2, Buffer.concat(parts))]));
}

/** OTLP/JSON: `spans` spans with `events` empty events each. */
function jsonEventsRequest(firstTrace: number, spans: number, events: number): Buffer {
  const emptyEvents = Array.from({ length: events }, () => "{}").join(",");
  const parts: string[] = [];
  for (let index = 0; index < spans; index += 1) {
    const traceNumber = firstTrace + Math.floor(index / 1_000);
    const parent = index % 1_000 === 0 ? "" : `,"parentSpanId":"${syntheticSpanId(traceNumber, 0)}"`;
    parts.push(`{"traceId":"${syntheticTraceId(traceNumber)}","spanId":"${syntheticSpanId(traceNumber, index % 1_000)}"${parent},"name":"rag.retrieve","startTimeUnixNano":"1700000000000000000","endTimeUnixNano":"1700000000100000000","events":[${emptyEvents}]}`);
  }
  return Buffer.from(`{"resourceSpans":[{"resource":{"attributes":[]},"scopeSpans":[{"spans":[${parts.join(",")}]}]}]}`);
}

/**
 * OpenLLMetry's vector search: per trace a root and a retrieval span with one `db.query.result` event per hit (id,
 * score, document text, metadata), `hits` hits each.
 */
function openLlmetryRetrievals(firstTrace: number, traces: number, hits: number): TracesDocument {
  const spans: SpanDocument[] = [];
  for (let traceNumber = firstTrace; traceNumber < firstTrace + traces; traceNumber += 1) {
    spans.push(syntheticSpan(traceNumber, 0, [text("traceloop.span.kind", "workflow")]));
    const events = Array.from({ length: hits }, (_, hit) => ({
      timeUnixNano: 1_700_000_000_050_000_000n,
      name: "db.query.result",
      attributes: [
        text("db.query.result.id", `doc-${traceNumber}-${hit}`),
        { key: "db.query.result.score", value: { doubleValue: 1 - hit / hits } },
        text("db.query.result.document", `Passage ${hit}: employees accrue leave monthly; up to five days carry over into the next year.`),
        text("db.query.result.metadata", JSON.stringify({ source: "handbook", page: hit % 90 })),
      ] satisfies KeyValue[],
      droppedAttributesCount: 0,
    }));
    spans.push({ ...syntheticSpan(traceNumber, 1, [text("traceloop.span.kind", "task"), text("db.system", "chroma"), { key: "db.vector.query.top_k", value: { intValue: BigInt(hits) } }]), name: "chroma.query", events });
  }
  return { resourceSpans: [{ resource: { attributes: [text("service.name", "openllmetry-app")], droppedAttributesCount: 0 }, scopeSpans: [{ scope: { name: "opentelemetry.instrumentation.chromadb", version: "0.33.0", attributes: [], droppedAttributesCount: 0 }, spans, schemaUrl: "" }], schemaUrl: "" }] };
}

/** The OTel SDK's default export batch: 512 spans (64 eight-span requests) with the attributes instrumentations write, serialized by the SDK's own serializers. */
async function sdkDefaultBatch(): Promise<{ protobuf: Uint8Array; json: Uint8Array; traceIds: string[] }> {
  const recorder = startSpanRecorder("checkout-api");
  try {
    const tracer = trace.getTracer("@opentelemetry/instrumentation-http", "0.57.0");
    const traceIds: string[] = [];
    for (let request = 0; request < 64; request += 1) {
      tracer.startActiveSpan("rag.request", { attributes: { "openinference.span.kind": "CHAIN", "input.value": `How many days of leave carry over? (${request})`, "http.request.method": "POST", "url.path": "/api/ask", "http.route": "/api/ask", "server.address": "api.internal", "user_agent.original": "Mozilla/5.0" } }, (root) => {
        traceIds.push(root.spanContext().traceId);
        for (let child = 0; child < 7; child += 1) {
          const span = tracer.startSpan(child === 0 ? "rag.retrieve" : `stage ${child}`, {
            attributes: Object.fromEntries([
              ["openinference.span.kind", child === 0 ? "RETRIEVER" : "LLM"],
              ...Array.from({ length: 10 }, (_, index) => [`retrieval.documents.${index}.document.id`, `chunk-${request}-${index}`] as const),
              ...Array.from({ length: 10 }, (_, index) => [`retrieval.documents.${index}.document.content`, `Employees accrue 25 days of annual leave; up to 5 carry over. (${index})`] as const),
              ["gen_ai.request.model", "gpt-4o-mini"],
              ["gen_ai.usage.input_tokens", 812],
            ]),
          });
          span.end();
        }
        root.setAttribute("output.value", "Up to five days.");
        root.end();
      });
    }
    const spans = recorder.spans();
    assert.equal(spans.length, 512);
    return { protobuf: toOtlpProtobuf(spans), json: toOtlpJson(spans), traceIds };
  } finally {
    await recorder.shutdown();
  }
}

/** Posts until the answer is not a 503 (at most `attempts` times, waiting as Retry-After says): a request at the bound fills the in-process queue for a moment. */
async function postRetrying(url: string, body: Uint8Array, headers: Record<string, string> = {}, attempts = 30): Promise<ReceiverAnswer> {
  let answer = await postTraces(url, body, headers);
  for (let attempt = 1; attempt < attempts && answer.status === 503; attempt += 1) {
    await new Promise((resolve) => setTimeout(resolve, Number(answer.retryAfter ?? "1") * 1000));
    answer = await postTraces(url, body, headers);
  }
  return answer;
}

function sample(metrics: string, series: string): number {
  const line = metrics.split("\n").find((entry) => entry.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

describe("what one request may decode into, serve with its default bounds (and a 512 MiB heap limit) as a child process", () => {
  let collector: CollectorSubprocess;
  let idleRss = 0;
  const outcomes: { attack: string; outcome: string; peakRssMb: number }[] = [];
  const stored = { openLlmetry: [] as string[], sdk: [] as string[], atBound: [] as string[], plain: [] as string[] };

  before(async () => {
    collector = await startCollectorSubprocess({}, { nodeArguments: [`--max-old-space-size=${HEAP_LIMIT_MIB}`] });
    assert.equal((await postTraces(collector.receiverUrl, syntheticRequestBody([syntheticSpan(1, 0, [])]))).status, 200);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    idleRss = await collector.rss();
  });
  after(async () => {
    await collector.stop();
    await collector.remove();
    for (const outcome of outcomes) recordAttack(outcome);
  });

  /** Runs a request with the RSS sampled; the collector must be alive after it and its peak within `bound` of idle. */
  async function measured<Value>(attack: string, bound: number, run: () => Promise<Value>, describeOutcome: (value: Value) => string): Promise<Value> {
    const stop = collector.sampleRss(50);
    const started = performance.now();
    let value: Value;
    try {
      value = await run();
    } finally {
      const peak = await stop();
      outcomes.push({ attack, outcome: "", peakRssMb: Math.round(peak / MEBIBYTE) });
      assert.ok(collector.alive(), `the collector died during "${attack}":\n${collector.output().slice(-4000)}`);
      assert.ok(peak < idleRss + bound, `"${attack}": peak RSS ${Math.round(peak / MEBIBYTE)} MiB, idle ${Math.round(idleRss / MEBIBYTE)} MiB, bound +${bound / MEBIBYTE} MiB`);
    }
    outcomes.at(-1)!.outcome = `${describeOutcome(value)} in ${Math.round(performance.now() - started)} ms (idle ${Math.round(idleRss / MEBIBYTE)} MiB)`;
    return value;
  }

  const refusedFor = (answer: ReceiverAnswer, why: string) => {
    assert.equal(answer.status, 413, `${why}: ${answer.body.slice(0, 600)}`);
    assert.match(answer.body, /RAGSCOPE_MAX_ITEMS_PER_REQUEST/, why);
    assert.match(answer.body, /send smaller batches \(OTEL_BSP_MAX_EXPORT_BATCH_SIZE on the client\)/, why);
  };

  test("16,000 spans of 1,000 empty events each (a 32 MB body, each span within the event bound): 413 within seconds, saying where, nothing decoded", async () => {
    const body = emptyEventsRequest(100, 16_000, 1_000);
    assert.ok(body.byteLength > 32_000_000);
    const started = performance.now();
    const answer = await measured("16,000 spans x 1,000 empty events (32 MB protobuf)", REFUSED_RSS_BOUND_BYTES, () => postTraces(collector.receiverUrl, body), (result) => String(result.status));
    refusedFor(answer, "many events over many spans");
    // Passed in the 500th span: 500 spans and 499,500 of their events are the bound's 500,000 items.
    assert.match(answer.body, new RegExp(`passed at resourceSpans\\[0\\]\\.scopeSpans\\[0\\]\\.spans\\[499\\] \\(trace ${syntheticTraceId(100)}, span ${syntheticSpanId(100, 499)}\\), with 500 spans, 499501 events`));
    // Decoded it took 76 s; refused on its bytes, well under a second of counting.
    assert.ok(performance.now() - started < 10_000, `${Math.round(performance.now() - started)} ms`);
  });

  test("an attribute holding an array of 16 million empty values (32 MB), and a resource of 1,024 attributes over 100,000 spans: 413", async () => {
    const array = hugeArrayRequest(200, 16_000_000);
    const resource = wideResourceRequest(300, 1_024, 100_000);
    const answers = await measured(
      "16M array elements (32 MB); resource of 1,024 attributes x 100,000 spans (7 MB)",
      REFUSED_RSS_BOUND_BYTES,
      async () => ({ array: await postTraces(collector.receiverUrl, array), resource: await postTraces(collector.receiverUrl, resource) }),
      (all) => `${all.array.status}, ${all.resource.status}`,
    );
    refusedFor(answers.array, "a huge array");
    assert.match(answers.array.body, /1 attributes, 499999 array elements/);
    refusedFor(answers.resource, "a wide resource");
    assert.match(answers.resource.body, /copies of resource attributes \(one for each span of the resource\)/);
  });

  test("OTLP/JSON, 10,000 spans of 1,000 empty events (32 MB): 413 before it is parsed", async () => {
    const body = jsonEventsRequest(400, 10_000, 1_000);
    const answer = await measured("10,000 spans x 1,000 empty events (32 MB OTLP/JSON)", REFUSED_RSS_BOUND_BYTES, () => postTraces(collector.receiverUrl, body, { "content-type": "application/json" }), (result) => String(result.status));
    refusedFor(answer, "OTLP/JSON events");
    assert.match(answer.body, /the OTLP\/JSON body holds more than 1500000 objects and arrays \(passed at byte \d+ of \d+\)/);
  });

  test(`a request at the bound (${MAX_ITEMS_PER_REQUEST} items: 500 spans of 999 empty events) is taken, its memory bounded; 500 items more are refused`, async () => {
    const atBound = emptyEventsRequest(700, 500, 999);
    const over = emptyEventsRequest(800, 500, 1_000);
    const answers = await measured(
      "500,000 empty events in 500 spans (at the bound), then 500 more",
      TAKEN_RSS_BOUND_BYTES,
      async () => ({ atBound: await postRetrying(collector.receiverUrl, atBound), over: await postRetrying(collector.receiverUrl, over) }),
      (all) => `${all.atBound.status}, ${all.over.status}`,
    );
    assert.equal(answers.atBound.status, 200, answers.atBound.body);
    refusedFor(answers.over, "500,500 items");
    stored.atBound.push(syntheticTraceId(700));
  });

  test("real requests pass: the OTel SDK's default batch of 512 spans (protobuf and JSON), and OpenLLMetry retrievals of 1,000 hits each as events", async () => {
    const batch = await sdkDefaultBatch();
    const openLlmetry = openLlmetryRetrievals(500, 50, 1_000);
    const answers = await measured(
      "OTel SDK batch of 512 spans (protobuf, JSON); 50 OpenLLMetry retrievals x 1,000 hit events",
      TAKEN_RSS_BOUND_BYTES,
      async () => ({
        protobuf: await postRetrying(collector.receiverUrl, batch.protobuf),
        json: await postRetrying(collector.receiverUrl, batch.json, { "content-type": "application/json" }),
        openLlmetry: await postRetrying(collector.receiverUrl, encodeTraceRequest(openLlmetry)),
        openLlmetryJson: await postRetrying(collector.receiverUrl, new TextEncoder().encode(encodeTraceRequestJson(openLlmetryRetrievals(600, 20, 1_000))), { "content-type": "application/json" }),
      }),
      (all) => `${all.protobuf.status}, ${all.json.status}, ${all.openLlmetry.status}, ${all.openLlmetryJson.status}`,
    );
    for (const [what, answer] of Object.entries(answers)) assert.equal(answer.status, 200, `${what}: ${answer.body.slice(0, 600)}`);
    stored.sdk.push(batch.traceIds[0]!, batch.traceIds.at(-1)!);
    stored.openLlmetry.push(syntheticTraceId(500), syntheticTraceId(549), syntheticTraceId(619));
  });

  test("after all of it the service keeps serving: plain traces answered 200 and stored; every refusal counted as too large", async () => {
    const answers: ReceiverAnswer[] = [];
    for (let traceNumber = 900; traceNumber < 905; traceNumber += 1) answers.push(await postRetrying(collector.receiverUrl, syntheticRequestBody([syntheticSpan(traceNumber, 0, [text("output.value", "an answer")])])));
    assert.deepEqual(answers.map((answer) => answer.status), [200, 200, 200, 200, 200]);
    stored.plain.push(syntheticTraceId(900), syntheticTraceId(904));
    assert.equal(sample(await collector.metrics(), 'ragscope_receiver_requests_total{outcome="payloadTooLarge"}'), 5);
  });

  test("stored: each retrieval's thousand hits, the SDK batch's traces, the request at the bound", async () => {
    assert.equal(await collector.stop(), 0, collector.output().slice(-4000));
    const connection = await collector.openStore();
    try {
      const ids = [...stored.openLlmetry, ...stored.sdk, ...stored.atBound, ...stored.plain];
      const rows = await queryRows<{ trace_id: string; payload: string }>(connection, "SELECT trace_id, payload FROM {{database}}.case_results FINAL WHERE trace_id IN {ids:Array(String)}", { ids });
      assert.deepEqual(rows.map((row) => row.trace_id).sort(), [...ids].sort(), "every trace taken was evaluated and stored");
      for (const traceId of stored.openLlmetry) {
        const result = caseResultSchema.parse(JSON.parse(rows.find((row) => row.trace_id === traceId)!.payload));
        const chunks = result.rag_observation.retrieved_chunks ?? [];
        assert.equal(chunks.length, 1_000, `${traceId}: every hit is a retrieved chunk`);
        assert.equal(chunks.at(-1)!.chunk_id, `doc-${Number.parseInt(traceId.slice(-3), 16)}-999`);
        assert.deepEqual(result.rag_observation.malformed_attributes, []);
      }
    } finally {
      await connection.close();
    }
  });
});
