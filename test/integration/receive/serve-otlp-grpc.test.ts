/**
 * OTLP/gRPC into `ragscope serve` as users meet it: the built CLI as a child
 * process, an application exporting with the OpenTelemetry JS gRPC exporter
 * (@opentelemetry/exporter-trace-otlp-grpc, gzip, the bearer token in the
 * `authorization` metadata), the Case Result read back through the read API
 * and compared with the one of the same request sent over OTLP/HTTP; then the
 * refusals a raw grpc-js client meets (wrong token, garbage, too large, a gzip
 * bomb, an undecodable gzip message), each with its OTLP status and counted
 * on /metrics, and the server still serving afterwards.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import grpc from "@grpc/grpc-js";
import { context, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { OTLPTraceExporter as OtlpGrpcExporter } from "@opentelemetry/exporter-trace-otlp-grpc";
import { OTLPTraceExporter as OtlpProtoExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { ExportResultCode } from "@opentelemetry/core";
import { CompressionAlgorithm } from "@opentelemetry/otlp-exporter-base";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, SimpleSpanProcessor, type ReadableSpan, type SpanExporter } from "@opentelemetry/sdk-trace-base";
import { Metadata } from "@grpc/grpc-js";
import { exportTraceServiceResponseType } from "../../../collector/00-otlp/otlp-protobuf-types.js";
import { readSample } from "../../../collector/wiring/observe/metrics-registry.js";
import { eightSpanRequest } from "../../bench/eight-span-request.js";
import { rawGrpcCall } from "../../support/raw-grpc-call.js";
import { startServeWithUi, type ServeWithUi } from "../../support/serve-with-ui.js";
import { syntheticRequestBody, syntheticSpan } from "../../support/synthetic-otlp-requests.js";

const TOKEN = "grpc-test-token-0123456789";
const MAX_BODY_BYTES = 64 * 1024;
const EXPORT_PATH = "/opentelemetry.proto.collector.trace.v1.TraceService/Export";

let folder: string;
let serve: ServeWithUi;
let grpcAddress: string;
let metricsUrl: string;

before(async () => {
  folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-grpc-"));
  serve = await startServeWithUi(path.join(folder, "data"), { RAGSCOPE_AUTH_TOKENS: TOKEN, RAGSCOPE_MAX_BODY_BYTES: String(MAX_BODY_BYTES), RAGSCOPE_QUIET_PERIOD_MS: "200" });
  assert.ok(serve.grpcUrl, `serve printed no OTLP/gRPC address:\n${serve.output()}`);
  grpcAddress = new URL(serve.grpcUrl).host;
  metricsUrl = /\/readyz on (http:\/\/[\d.:]+)/.exec(serve.output())![1]!;
});

after(async () => {
  if (serve !== undefined) await serve.stop();
  await rm(folder, { recursive: true, force: true });
});

interface ListedTrace {
  caseResultId: string;
  traceId: string;
}

async function caseResultOf(traceId: string): Promise<Record<string, unknown>> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const listed = (await (await fetch(`${serve.uiUrl}/api/traces`)).json()) as { traces: ListedTrace[] };
    const found = listed.traces.find((entry) => entry.traceId === traceId);
    if (found !== undefined) {
      const response = await fetch(`${serve.uiUrl}/api/traces/${found.caseResultId}`);
      assert.equal(response.status, 200);
      return (await response.json()) as Record<string, unknown>;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  assert.fail(`no Case Result for trace ${traceId}`);
}

/**
 * What differs between two sendings of the same request: ids, clock readings and durations (in keys, and inside
 * texts such as a trace:// reference or a reason naming the time), and the order of stages that started in the
 * same clock tick.
 */
const varying = /(^|_|[a-z])(id|Id|ids|Ids)$|(_at|At|_ms|Ms|Nanos|_nano|latency\w*|duration\w*|time\w*|Time\w*|timestamp\w*)$/;

function withoutVarying(value: unknown): unknown {
  if (typeof value === "string") return value.replace(/\b[0-9a-f]{32}\b/g, "(trace id)").replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, "(time)");
  if (Array.isArray(value)) {
    const items = value.map(withoutVarying);
    return items.every((item) => typeof item === "object" && item !== null) ? items.sort((left, right) => JSON.stringify(left).localeCompare(JSON.stringify(right))) : items;
  }
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, varying.test(key) ? "(varies)" : withoutVarying(inner)]));
}

/** Runs the same RAG request twice through one SDK: first exported over gRPC, then over HTTP. Returns the two trace ids. */
async function sameRequestOverBothTransports(): Promise<{ overGrpc: string; overHttp: string }> {
  const grpcExporter = new OtlpGrpcExporter({ url: serve.grpcUrl!, metadata: bearer(TOKEN), compression: CompressionAlgorithm.GZIP });
  const httpExporter = new OtlpProtoExporter({ url: `${serve.receiverUrl}/v1/traces`, headers: { authorization: `Bearer ${TOKEN}` } });
  let current: SpanExporter = grpcExporter;
  const failures: string[] = [];
  const rootTraceIds: string[] = [];
  // One provider whose export goes where `current` says: the wrappers' tracers stay the same for both sendings.
  const switching: SpanExporter = {
    export: (spans: ReadableSpan[], done) => {
      rootTraceIds.push(...spans.filter((span) => span.parentSpanContext === undefined).map((span) => span.spanContext().traceId));
      current.export(spans, (result) => {
        if (result.code !== ExportResultCode.SUCCESS) failures.push(String(result.error ?? result.code));
        done(result);
      });
    },
    shutdown: async () => {},
  };
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const provider = new BasicTracerProvider({ resource: resourceFromAttributes({ "service.name": "grpc-app" }), spanProcessors: [new SimpleSpanProcessor(switching)] });
  trace.setGlobalTracerProvider(provider);
  try {
    await eightSpanRequest(7);
    await provider.forceFlush();
    current = httpExporter;
    await eightSpanRequest(7);
    await provider.forceFlush();
  } finally {
    await provider.shutdown();
    await grpcExporter.shutdown();
    await httpExporter.shutdown();
    trace.disable();
    context.disable();
  }
  assert.deepEqual(failures, [], "every export succeeded");
  assert.equal(rootTraceIds.length, 2, "one request root each time");
  return { overGrpc: rootTraceIds[0]!, overHttp: rootTraceIds[1]! };
}

function bearer(token: string): Metadata {
  const metadata = new Metadata();
  metadata.set("authorization", `Bearer ${token}`);
  return metadata;
}

const identity = (bytes: Buffer) => bytes;

/** One Export call with raw bytes; resolves with the status (and the answer's bytes on OK). */
function rawExport(client: grpc.Client, body: Buffer, metadata: Metadata): Promise<{ code: number; details: string; answer: Buffer | null }> {
  return new Promise((resolve) => {
    client.makeUnaryRequest(EXPORT_PATH, identity, identity, body, metadata, { deadline: Date.now() + 30_000 }, (error, answer) => {
      if (error) resolve({ code: error.code, details: error.details, answer: null });
      else resolve({ code: grpc.status.OK, details: "", answer: answer ?? null });
    });
  });
}

/** The `partial_success` of an export's answer (none: empty). */
function partialSuccessOf(exported: { answer: Buffer | null }): { rejectedSpans?: number; errorMessage?: string } {
  const response = exportTraceServiceResponseType.toObject(exportTraceServiceResponseType.decode(exported.answer!), { longs: Number }) as { partialSuccess?: { rejectedSpans?: number; errorMessage?: string } };
  return response.partialSuccess ?? {};
}

async function grpcOutcome(outcome: string): Promise<number> {
  return readSample(await (await fetch(`${metricsUrl}/metrics`)).text(), "ragscope_receiver_grpc_requests_total", { outcome }) ?? 0;
}

describe("OTLP/gRPC into ragscope serve", () => {
  test("an application exporting with the OpenTelemetry gRPC exporter gets the Case Result it gets over OTLP/HTTP", async () => {
    const { overGrpc, overHttp } = await sameRequestOverBothTransports();
    const [viaGrpc, viaHttp] = await Promise.all([caseResultOf(overGrpc), caseResultOf(overHttp)]);
    assert.match(JSON.stringify(viaGrpc), /How many leave days carry over\? \(7\)/, "the request's query arrived");
    assert.deepEqual(withoutVarying(viaGrpc), withoutVarying(viaHttp));
    assert.ok((await grpcOutcome("accepted")) >= 8, "the eight spans came over gRPC");
  });

  test("refusals carry OTLP's statuses, are counted, and the server goes on serving", async () => {
    const client = new grpc.Client(grpcAddress, grpc.credentials.createInsecure());
    const gzipClient = new grpc.Client(grpcAddress, grpc.credentials.createInsecure(), { "grpc.default_compression_algorithm": grpc.compressionAlgorithms.gzip });
    try {
      const valid = Buffer.from(syntheticRequestBody([syntheticSpan(1, 0, []), syntheticSpan(1, 1, [])], "grpc-refusals"));
      const before = {
        unauthorized: await grpcOutcome("unauthorized"),
        malformed: await grpcOutcome("malformed"),
        payloadTooLarge: await grpcOutcome("payloadTooLarge"),
        accepted: await grpcOutcome("accepted"),
      };

      const wrongToken = await rawExport(client, valid, bearer("not-the-token"));
      assert.equal(wrongToken.code, grpc.status.UNAUTHENTICATED, wrongToken.details);
      const noToken = await rawExport(client, valid, new Metadata());
      assert.equal(noToken.code, grpc.status.UNAUTHENTICATED, noToken.details);

      const garbage = await rawExport(client, Buffer.from("this is not an ExportTraceServiceRequest \u0000\u00ff\u00ff\u00ff", "latin1"), bearer(TOKEN));
      assert.equal(garbage.code, grpc.status.INVALID_ARGUMENT, garbage.details);

      const tooLarge = await rawExport(client, Buffer.alloc(MAX_BODY_BYTES + 1, 7), bearer(TOKEN));
      assert.equal(tooLarge.code, grpc.status.RESOURCE_EXHAUSTED, tooLarge.details);
      assert.match(tooLarge.details, /RAGSCOPE_MAX_BODY_BYTES/);
      // Nothing was compressed, so nothing is said of decompression.
      assert.match(tooLarge.details, new RegExp(`larger than the ${MAX_BODY_BYTES}-byte limit`));
      assert.doesNotMatch(tooLarge.details, /decompression/);
      // A few hundred bytes on the wire, past the bound once inflated.
      const gzipBomb = await rawExport(gzipClient, Buffer.alloc(MAX_BODY_BYTES * 4), bearer(TOKEN));
      assert.equal(gzipBomb.code, grpc.status.RESOURCE_EXHAUSTED, gzipBomb.details);
      assert.match(gzipBomb.details, new RegExp(`larger than ${MAX_BODY_BYTES} bytes, after decompression`));

      // A message flagged gzip-compressed that is not: grpc-js clients always compress validly, so over raw HTTP/2.
      const badGzip = await rawGrpcCall(serve.grpcUrl!, EXPORT_PATH, { headers: { "grpc-encoding": "gzip", authorization: `Bearer ${TOKEN}` }, message: { bytes: Buffer.from("not gzip at all"), compressed: true } });
      assert.equal(badGzip.status, grpc.status.INVALID_ARGUMENT, badGzip.message);

      assert.equal(await grpcOutcome("unauthorized"), before.unauthorized + 2);
      assert.equal(await grpcOutcome("malformed"), before.malformed + 2);
      assert.equal(await grpcOutcome("payloadTooLarge"), before.payloadTooLarge + 2);

      // Still serving, gzip or not: and a request with a span of all-zero ids is a partial success (OK), not an error.
      const zeroSpan = { ...syntheticSpan(2, 1, []), spanId: "0000000000000000" };
      const partial = await rawExport(gzipClient, Buffer.from(syntheticRequestBody([syntheticSpan(2, 0, []), zeroSpan], "grpc-refusals")), bearer(TOKEN));
      assert.equal(partial.code, grpc.status.OK, partial.details);
      assert.equal(partialSuccessOf(partial).rejectedSpans, 1);
      assert.match(partialSuccessOf(partial).errorMessage ?? "", /all-zero trace id or span id/);
      // So is a span without an end time (zero: unset), beside a timed span of its trace; counted as zero_time.
      const zeroEnd = { ...syntheticSpan(4, 1, []), endTimeUnixNano: 0n };
      const zeroTime = await rawExport(client, Buffer.from(syntheticRequestBody([syntheticSpan(4, 0, []), zeroEnd], "grpc-refusals")), bearer(TOKEN));
      assert.equal(zeroTime.code, grpc.status.OK, zeroTime.details);
      assert.equal(partialSuccessOf(zeroTime).rejectedSpans, 1);
      assert.match(partialSuccessOf(zeroTime).errorMessage ?? "", /^1 span\(s\) with a zero \(unset\) start or end time, or one before 2000, were rejected: OTLP requires both times, in Unix nanoseconds/);
      assert.equal(readSample(await (await fetch(`${metricsUrl}/metrics`)).text(), "ragscope_receiver_spans_rejected_total", { reason: "zero_time" }), 1);
      const accepted = await rawExport(client, valid, bearer(TOKEN));
      assert.equal(accepted.code, grpc.status.OK, accepted.details);
      assert.equal(accepted.answer?.byteLength, 0, "full success: partial_success unset");
      assert.equal(await grpcOutcome("accepted"), before.accepted + 3);
    } finally {
      client.close();
      gzipClient.close();
    }
  });

  test("--grpc-port off: no gRPC server, said at start", async () => {
    const quiet = await startServeWithUi(path.join(folder, "off"), {}, { arguments: ["--grpc-port", "off"] });
    try {
      assert.equal(quiet.grpcUrl, null);
      assert.match(quiet.output(), /ragscope serve: OTLP\/gRPC off/);
    } finally {
      assert.equal(await quiet.stop(), 0);
    }
  });

  // Last: it stops the serve the other tests use.
  test("SIGTERM stops serve while a gRPC client holds its connection open: exit 0", async () => {
    const client = new grpc.Client(grpcAddress, grpc.credentials.createInsecure());
    try {
      const answer = await rawExport(client, Buffer.from(syntheticRequestBody([syntheticSpan(3, 0, [])], "grpc-stop")), bearer(TOKEN));
      assert.equal(answer.code, grpc.status.OK, answer.details);
      assert.equal(await serve.stop(), 0, serve.output());
    } finally {
      client.close();
    }
  });
});
