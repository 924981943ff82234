/**
 * What one span may carry (SECURITY.md "Limits"): serve accepted a span with a
 * 2 MiB attribute key and a span with 200,000 events, and a one-span body of
 * 16 million empty events (32 MB) took it to 4 GiB of RSS and 30 s before the
 * decode thread failed. Now an attribute with a key over
 * RAGSCOPE_MAX_ATTRIBUTE_KEY_BYTES is dropped, a span keeps its first
 * RAGSCOPE_MAX_EVENTS_PER_SPAN events and RAGSCOPE_MAX_LINKS_PER_SPAN links,
 * each drop recorded on the span and counted in /metrics, and the service
 * keeps serving. Span and event names had no bound at all (a 2 MiB span name
 * was stored, and repeated in every note of its Case Result): a name over
 * RAGSCOPE_MAX_NAME_BYTES is cut at a code-point boundary, as a long value is,
 * and listed on the span and the Case Result. Run against `ragscope serve` as a child process over real
 * OTLP/HTTP on 127.0.0.1 (its RSS sampled from /metrics while each attack
 * runs); stored spans and Case Results are read from its store once it
 * stopped.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, test } from "node:test";
import { caseResult as caseResultSchema } from "../../contracts/case-result.js";
import type { StoredRawSpan } from "../../contracts/raw-spans.js";
import { encodeTraceRequest, encodeTraceRequestJson } from "../../collector/00-otlp/index.js";
import type { KeyValue, SpanDocument, SpanEventDocument, SpanLinkDocument, TracesDocument } from "../../collector/00-otlp/traces-document.js";
import { recordAttack } from "../support/attack-report.js";
import { startCollectorSubprocess, type CollectorSubprocess } from "../support/collector-subprocess.js";
import { postTraces, syntheticRequestBody, syntheticSpan, syntheticSpanId, syntheticTraceId, text, type ReceiverAnswer } from "../support/synthetic-otlp-requests.js";
import { queryRows } from "../support/temporary-store.js";
import { field } from "../support/protobuf-wire.js";

const MEBIBYTE = 1024 * 1024;
const MAX_EVENTS_PER_SPAN = 128;
const MAX_LINKS_PER_SPAN = 128;
const MAX_ATTRIBUTE_KEY_BYTES = 1024;
const MAX_ATTRIBUTES_PER_SPAN = 64;
/** serve's default (per-span-bounds.ts DEFAULT_MAX_NAME_BYTES). */
const MAX_NAME_BYTES = 1024;
/** How far above its idle RSS the collector may go in any attack here: the largest body (32 MB) a few times over, with room for the GC's slack. */
const RSS_BOUND_BYTES = 320 * MEBIBYTE;

const environment = {
  RAGSCOPE_MAX_EVENTS_PER_SPAN: String(MAX_EVENTS_PER_SPAN),
  RAGSCOPE_MAX_LINKS_PER_SPAN: String(MAX_LINKS_PER_SPAN),
  RAGSCOPE_MAX_ATTRIBUTE_KEY_BYTES: String(MAX_ATTRIBUTE_KEY_BYTES),
  RAGSCOPE_MAX_ATTRIBUTES_PER_SPAN: String(MAX_ATTRIBUTES_PER_SPAN),
};

/** The span of trace `trace` under attack: its root, so the trace is evaluated and stored at once. */
const attacked = (trace: number, overrides: Partial<SpanDocument>): SpanDocument => ({ ...syntheticSpan(trace, 0, []), ...overrides });
const event = (index: number, attributes: KeyValue[] = []): SpanEventDocument => ({ timeUnixNano: 1_700_000_000_000_000_000n + BigInt(index), name: "e", attributes, droppedAttributesCount: 0 });
const link = (index: number, attributes: KeyValue[] = []): SpanLinkDocument => ({ traceId: syntheticTraceId(9_000 + index), spanId: syntheticSpanId(9_000, index), traceState: "", attributes, droppedAttributesCount: 0, flags: 0 });

/** One request of these spans whose resource and scope carry `resource` and `scope` attributes besides the service name. */
function requestDocument(spans: SpanDocument[], resource: KeyValue[] = [], scope: KeyValue[] = []): TracesDocument {
  return {
    resourceSpans: [
      {
        resource: { attributes: [text("service.name", "span-bounds"), ...resource], droppedAttributesCount: 0 },
        scopeSpans: [{ scope: { name: "span-bounds", version: "1", attributes: scope, droppedAttributesCount: 0 }, spans, schemaUrl: "" }],
        schemaUrl: "",
      },
    ],
  };
}

/** A request of one root span of trace `trace` with `events` empty events: two bytes each on the wire. */
function emptyEventsRequest(trace: number, events: number): Uint8Array {
  const times = Buffer.alloc(18);
  times[0] = 7 * 8 + 1;
  times.writeBigUInt64LE(1_700_000_000_000_000_000n, 1);
  times[9] = 8 * 8 + 1;
  times.writeBigUInt64LE(1_700_000_000_100_000_000n, 10);
  const emptyEvents = Buffer.alloc(events * 2);
  for (let index = 0; index < events; index += 1) emptyEvents[index * 2] = 11 * 8 + 2;
  const span = Buffer.concat([field(1, Buffer.from(syntheticTraceId(trace), "hex")), field(2, Buffer.from(syntheticSpanId(trace, 0), "hex")), field(5, Buffer.from("rag.request")), times, emptyEvents]);
  return field(1, field(2, field(2, span)));
}

/** A sample of /metrics: `name{labels}` exactly, 0 when absent. */
function sample(metrics: string, series: string): number {
  const line = metrics.split("\n").find((entry) => entry.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

const droppedTotal = (metrics: string, item: string) => sample(metrics, `ragscope_receiver_dropped_total{item="${item}"}`);

describe("what one span may carry, serve as a child process", () => {
  let collector: CollectorSubprocess;
  let idleRss = 0;
  const outcomes: { attack: string; outcome: string; peakRssMb: number }[] = [];
  before(async () => {
    collector = await startCollectorSubprocess(environment);
    assert.equal((await postTraces(collector.receiverUrl, syntheticRequestBody([syntheticSpan(1, 0, [])]))).status, 200);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    idleRss = await collector.rss();
  });
  after(async () => {
    await collector.stop();
    await collector.remove();
    for (const outcome of outcomes) recordAttack(outcome);
  });

  /** Runs an attack with the RSS sampled; the collector must be alive after it and its peak within the bound. */
  async function underAttack<Value>(attack: string, run: () => Promise<Value>, describeOutcome: (value: Value) => string): Promise<Value> {
    const stop = collector.sampleRss(50);
    let value: Value;
    try {
      value = await run();
    } finally {
      const peak = await stop();
      outcomes.push({ attack, outcome: "", peakRssMb: Math.round(peak / MEBIBYTE) });
      assert.ok(collector.alive(), `the collector died during "${attack}":\n${collector.output().slice(-4000)}`);
      assert.ok(peak < idleRss + RSS_BOUND_BYTES, `"${attack}": peak RSS ${Math.round(peak / MEBIBYTE)} MiB, idle ${Math.round(idleRss / MEBIBYTE)} MiB, bound +${RSS_BOUND_BYTES / MEBIBYTE} MiB`);
    }
    outcomes.at(-1)!.outcome = describeOutcome(value);
    return value;
  }

  const hugeKey = `attack.${"k".repeat(2 * MEBIBYTE)}`;
  const longKey = (name: string) => `${name}.${"x".repeat(MAX_ATTRIBUTE_KEY_BYTES)}`;

  test("a 2 MiB attribute key, and keys one byte over the bound on an event, a link, the resource and the scope: 200, each attribute dropped and counted", async () => {
    const before = await collector.metrics();
    const spanAttributes = [text(hugeKey, "value"), text("kept.attribute", "kept"), text("k".repeat(MAX_ATTRIBUTE_KEY_BYTES), "a key at the bound is kept")];
    const protobuf = requestDocument(
      [attacked(10, { attributes: [...syntheticSpan(10, 0, []).attributes, ...spanAttributes], events: [event(0, [text(longKey("event"), "v"), text("event.kept", "v")])], links: [link(0, [text(longKey("link"), "v")])] })],
      [text(longKey("resource"), "v")],
      [text(longKey("scope"), "v")],
    );
    const json = requestDocument([attacked(11, { attributes: [...syntheticSpan(11, 0, []).attributes, text(hugeKey, "value")] })]);
    const answers = await underAttack(
      "2 MiB attribute key (protobuf and OTLP/JSON), long keys on event/link/resource/scope",
      async () => ({
        protobuf: await postTraces(collector.receiverUrl, encodeTraceRequest(protobuf)),
        json: await postTraces(collector.receiverUrl, new TextEncoder().encode(encodeTraceRequestJson(json)), { "content-type": "application/json" }),
      }),
      (all) => `${all.protobuf.status}, ${all.json.status}; attributes dropped, listed on the span`,
    );
    assert.equal(answers.protobuf.status, 200, answers.protobuf.body);
    assert.equal(answers.json.status, 200, answers.json.body);
    const now = await collector.metrics();
    assert.equal(droppedTotal(now, "attribute") - droppedTotal(before, "attribute"), 5 + 1, "span, event, link, resource and scope keys, and the JSON span's");
    stored.keys.push(syntheticTraceId(10), syntheticTraceId(11));
  });

  test(`a span with 200,000 events and one with 200,000 links (protobuf), and 200,000 events over OTLP/JSON: 200, the first ${MAX_EVENTS_PER_SPAN} kept, the rest counted on the span and in /metrics`, async () => {
    const before = await collector.metrics();
    const events = requestDocument([attacked(20, { events: Array.from({ length: 200_000 }, (_, index) => event(index)) })]);
    const links = requestDocument([attacked(21, { links: Array.from({ length: 200_000 }, (_, index) => link(index)) })]);
    const jsonEvents = requestDocument([attacked(22, { events: Array.from({ length: 200_000 }, (_, index) => event(index)) })]);
    const answers = await underAttack(
      "200,000 events / 200,000 links on one span",
      async () => ({
        events: await postTraces(collector.receiverUrl, encodeTraceRequest(events)),
        links: await postTraces(collector.receiverUrl, encodeTraceRequest(links)),
        json: await postTraces(collector.receiverUrl, new TextEncoder().encode(encodeTraceRequestJson(jsonEvents)), { "content-type": "application/json" }),
      }),
      (all) => `${all.events.status}, ${all.links.status}, ${all.json.status}; first ${MAX_EVENTS_PER_SPAN} kept, dropped counted`,
    );
    for (const answer of [answers.events, answers.links, answers.json]) assert.equal(answer.status, 200, answer.body);
    const now = await collector.metrics();
    assert.equal(droppedTotal(now, "event") - droppedTotal(before, "event"), 2 * (200_000 - MAX_EVENTS_PER_SPAN));
    assert.equal(droppedTotal(now, "link") - droppedTotal(before, "link"), 200_000 - MAX_LINKS_PER_SPAN);
    stored.events.push(syntheticTraceId(20), syntheticTraceId(22));
    stored.links.push(syntheticTraceId(21));
  });

  test("one span of 16 million empty events (a 32 MB body): answered 200 within seconds, RSS bounded, events past the bound never decoded", async () => {
    const body = emptyEventsRequest(30, 16_000_000);
    const before = await collector.metrics();
    const started = performance.now();
    const answer = await underAttack(
      "16M empty events on one span (32 MB protobuf)",
      () => postTraces(collector.receiverUrl, body),
      (result) => `${result.status} in ${Math.round(performance.now() - started)} ms`,
    );
    assert.equal(answer.status, 200, answer.body);
    // Decoded whole it took 30 s (and 4 GiB); stepped over, well under a second of decoding.
    assert.ok(performance.now() - started < 10_000, `${Math.round(performance.now() - started)} ms`);
    assert.equal(droppedTotal(await collector.metrics(), "event") - droppedTotal(before, "event"), 16_000_000 - MAX_EVENTS_PER_SPAN);
  });

  test(`a link with more than ${MAX_ATTRIBUTES_PER_SPAN} attributes: 413 naming RAGSCOPE_MAX_ATTRIBUTES_PER_SPAN, as for a span or an event`, async () => {
    const body = encodeTraceRequest(requestDocument([attacked(40, { links: [link(0, Array.from({ length: MAX_ATTRIBUTES_PER_SPAN + 1 }, (_, index) => text(`attack.${index}`, "x")))] })]));
    const answer = await underAttack("link with too many attributes", () => postTraces(collector.receiverUrl, body), (result) => String(result.status));
    assert.equal(answer.status, 413);
    assert.match(answer.body, /RAGSCOPE_MAX_ATTRIBUTES_PER_SPAN/);
  });

  test(`a 2 MiB span name, a 4 KiB event name (protobuf) and a long span name over OTLP/JSON: 200, each cut to ${MAX_NAME_BYTES} bytes and listed, counted in /metrics`, async () => {
    const before = await collector.metrics();
    const longEventName = `${"é".repeat(MAX_NAME_BYTES / 2 - 1)}xy${"z".repeat(3 * 1024)}`;
    const protobuf = requestDocument([attacked(60, { name: "n".repeat(2 * MEBIBYTE), events: [event(0), { ...event(1), name: longEventName }] })]);
    const json = requestDocument([attacked(61, { name: `rag.request ${"j".repeat(MAX_NAME_BYTES)}` })]);
    const answers = await underAttack(
      "2 MiB span name, 4 KiB event name (protobuf), long span name (OTLP/JSON)",
      async () => ({
        protobuf: await postTraces(collector.receiverUrl, encodeTraceRequest(protobuf)),
        json: await postTraces(collector.receiverUrl, new TextEncoder().encode(encodeTraceRequestJson(json)), { "content-type": "application/json" }),
      }),
      (all) => `${all.protobuf.status}, ${all.json.status}; names cut and listed`,
    );
    assert.equal(answers.protobuf.status, 200, answers.protobuf.body);
    assert.equal(answers.json.status, 200, answers.json.body);
    const now = await collector.metrics();
    assert.equal(sample(now, "ragscope_receiver_names_truncated_total") - sample(before, "ragscope_receiver_names_truncated_total"), 3);
    stored.names.push(syntheticTraceId(60), syntheticTraceId(61));
  });

  test("after the attacks the service keeps serving: a plain trace is answered 200 and stored", async () => {
    const answers: ReceiverAnswer[] = [];
    for (let trace = 50; trace < 55; trace += 1) answers.push(await postTraces(collector.receiverUrl, syntheticRequestBody([syntheticSpan(trace, 0, [text("output.value", "an answer")]), syntheticSpan(trace, 1, [])])));
    assert.deepEqual(answers.map((answer) => answer.status), [200, 200, 200, 200, 200]);
    stored.plain.push(syntheticTraceId(50), syntheticTraceId(54));
  });

  const stored = { keys: [] as string[], events: [] as string[], links: [] as string[], names: [] as string[], plain: [] as string[] };

  test("stored: the dropped attributes listed on the span and the Case Result, the kept events, the dropped counts on the span", async () => {
    assert.equal(await collector.stop(), 0, collector.output().slice(-4000));
    const connection = await collector.openStore();
    try {
      const ids = [...stored.keys, ...stored.events, ...stored.links, ...stored.names, ...stored.plain];
      const spanRows = await queryRows<{ trace_id: string; spans: string }>(connection, "SELECT trace_id, spans FROM {{database}}.trace_spans FINAL WHERE trace_id IN {ids:Array(String)}", { ids });
      const resultRows = await queryRows<{ trace_id: string; payload: string }>(connection, "SELECT trace_id, payload FROM {{database}}.case_results FINAL WHERE trace_id IN {ids:Array(String)}", { ids });
      assert.deepEqual(resultRows.map((row) => row.trace_id).sort(), [...ids].sort(), "every attacked trace was evaluated and stored");
      const rootOf = (traceId: string): StoredRawSpan => {
        const row = spanRows.find((item) => item.trace_id === traceId);
        assert.ok(row !== undefined, `trace ${traceId}'s spans are stored`);
        return (JSON.parse(row.spans) as StoredRawSpan[]).find((span) => span.parent_span_id === "")!;
      };
      const resultOf = (traceId: string) => caseResultSchema.parse(JSON.parse(resultRows.find((row) => row.trace_id === traceId)!.payload));

      const keys = rootOf(syntheticTraceId(10));
      assert.ok(!Object.keys(keys.attributes).some((key) => key.startsWith("attack.")), "the 2 MiB key is not stored");
      assert.equal(keys.attributes["kept.attribute"], "kept");
      assert.equal(keys.attributes["k".repeat(MAX_ATTRIBUTE_KEY_BYTES)], "a key at the bound is kept");
      const listed = keys.attributes["ragscope.dropped_attributes"] as string[];
      assert.deepEqual(
        listed.map((entry) => entry.replace(/(\.)x+… \((\d+) bytes\)$/, "$1x… ($2 bytes)").replace(/k+… \((\d+) bytes\)$/, "k… ($1 bytes)")),
        [`resource: resource.x… (${9 + MAX_ATTRIBUTE_KEY_BYTES} bytes)`, `scope: scope.x… (${6 + MAX_ATTRIBUTE_KEY_BYTES} bytes)`, `attack.k… (${hugeKey.length} bytes)`, `e: event.x… (${6 + MAX_ATTRIBUTE_KEY_BYTES} bytes)`, `link ${syntheticSpanId(9_000, 0)}: link.x… (${5 + MAX_ATTRIBUTE_KEY_BYTES} bytes)`],
      );
      assert.ok(listed.every((entry) => entry.length < 200), "each listed by its beginning, not the whole key");
      assert.deepEqual(keys.events[0]!.attributes, { "event.kept": "v" });
      assert.deepEqual(
        resultOf(syntheticTraceId(10)).rag_observation.malformed_attributes.filter((note) => /RAGSCOPE_MAX_ATTRIBUTE_KEY_BYTES/.test(note.error)).map((note) => note.attribute),
        listed,
        "the Case Result lists each dropped attribute",
      );
      assert.match(String((rootOf(syntheticTraceId(11)).attributes["ragscope.dropped_attributes"] as string[])[0]), /^attack\.k+… \(2097159 bytes\)$/, "OTLP/JSON alike");

      for (const traceId of stored.events) {
        const span = rootOf(traceId);
        assert.equal(span.events.length, MAX_EVENTS_PER_SPAN);
        assert.deepEqual(span.events.map((item) => item.time_unix_nano).slice(0, 2), ["1700000000000000000", "1700000000000000001"], "the first events, in order");
        assert.equal(span.attributes["ragscope.dropped_events_count"], 200_000 - MAX_EVENTS_PER_SPAN);
        assert.ok(resultOf(traceId).rag_observation.malformed_attributes.some((note) => note.attribute === "events" && /RAGSCOPE_MAX_EVENTS_PER_SPAN/.test(note.error)));
      }
      assert.equal(rootOf(syntheticTraceId(21)).attributes["ragscope.dropped_links_count"], 200_000 - MAX_LINKS_PER_SPAN);
      for (const traceId of stored.plain) assert.deepEqual(resultOf(traceId).rag_observation.malformed_attributes, [], "a plain trace carries no note");

      const named = rootOf(syntheticTraceId(60));
      assert.equal(named.name, "n".repeat(MAX_NAME_BYTES));
      // The event name is cut at the bound: 511 two-byte characters and "xy" are its first 1,024 bytes of 4,096.
      assert.equal(named.events[1]!.name, `${"é".repeat(MAX_NAME_BYTES / 2 - 1)}xy`);
      assert.deepEqual(named.attributes["ragscope.truncated_names"], [`name (${2 * MEBIBYTE} bytes)`, `event 1: name (${Buffer.byteLength(`${"é".repeat(MAX_NAME_BYTES / 2 - 1)}xy${"z".repeat(3 * 1024)}`)} bytes)`]);
      const namedNotes = resultOf(syntheticTraceId(60)).rag_observation.malformed_attributes;
      assert.deepEqual(namedNotes.map((note) => note.attribute), [`name (${2 * MEBIBYTE} bytes)`, `event 1: name (${MAX_NAME_BYTES + 3 * 1024} bytes)`]);
      assert.ok(namedNotes.every((note) => /RAGSCOPE_MAX_NAME_BYTES/.test(note.error) && note.span_name === "n".repeat(MAX_NAME_BYTES)), "each note names the setting and the cut span name, never the megabytes");
      assert.equal(rootOf(syntheticTraceId(61)).name, `rag.request ${"j".repeat(MAX_NAME_BYTES - "rag.request ".length)}`, "OTLP/JSON alike");
    } finally {
      await connection.close();
    }
  });
});

describe("the bounds' settings are checked at start", () => {
  test("a negative, non-numeric or too small bound stops serve before it listens, naming each variable", async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), "ragscope-span-bounds-"));
    try {
      const binary = fileURLToPath(new URL("../../bin/ragscope.js", import.meta.url));
      // Bounded: a serve that started would be killed after 30 s (and the test fail on its status).
      const result = spawnSync(process.execPath, [binary, "serve", "--port", "0", "--metrics-port", "0", "--ui-port", "0", "--data-dir", dataDir], {
        env: { ...process.env, RAGSCOPE_MAX_EVENTS_PER_SPAN: "-1", RAGSCOPE_MAX_LINKS_PER_SPAN: "many", RAGSCOPE_MAX_ATTRIBUTE_KEY_BYTES: "16", RAGSCOPE_MAX_NAME_BYTES: "16", RAGSCOPE_MAX_ITEMS_PER_REQUEST: "0" },
        encoding: "utf8",
        timeout: 30_000,
      });
      assert.equal(result.status, 2, `${result.stdout}\n${result.stderr}`);
      assert.match(result.stderr, /environment variable RAGSCOPE_MAX_EVENTS_PER_SPAN: must be a whole number of at least 0 in decimal digits only .*, not "-1"/);
      assert.match(result.stderr, /environment variable RAGSCOPE_MAX_LINKS_PER_SPAN: must be a whole number of at least 0 in decimal digits only/);
      assert.match(result.stderr, /environment variable RAGSCOPE_MAX_ATTRIBUTE_KEY_BYTES: must be at least 128/);
      assert.match(result.stderr, /environment variable RAGSCOPE_MAX_NAME_BYTES: must be at least 64/);
      assert.match(result.stderr, /environment variable RAGSCOPE_MAX_ITEMS_PER_REQUEST: must be at least 1/);
      assert.doesNotMatch(result.stdout, /OTLP\/HTTP on/, "it never listened");
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
