/**
 * setupRagscope against a real HTTP endpoint: the exporter, batch processor and
 * resource are the production ones; only the receiver is a tiny local server.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { readFile } from "node:fs/promises";
import { trace } from "@opentelemetry/api";
import {
  configureRagscope,
  ragscopeConfiguration,
  setupRagscope,
  traceRequest,
  traceRetrieve,
} from "../../../instrumentation/index.js";

interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

async function startReceiver(): Promise<{ server: Server; endpoint: string; requests: ReceivedRequest[] }> {
  const requests: ReceivedRequest[] = [];
  const server = createServer((request, response) => {
    const parts: Buffer[] = [];
    request.on("data", (part: Buffer) => parts.push(part));
    request.on("end", () => {
      requests.push({ method: request.method ?? "", url: request.url ?? "", headers: request.headers, body: Buffer.concat(parts) });
      if (request.url !== "/v1/traces") {
        response.writeHead(404).end();
      } else if (request.headers["content-type"] === "application/json") {
        response.writeHead(200, { "content-type": "application/json" }).end("{}");
      } else {
        response.writeHead(200, { "content-type": "application/x-protobuf" }).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { server, endpoint: `http://127.0.0.1:${port}`, requests };
}

async function runRequest(): Promise<string> {
  return traceRequest({ query: "how many leave days?", runId: "run-1" }, async () => {
    await traceRetrieve({ query: "leave days" }, async () => [{ chunkId: "leave#1", text: "25 days", score: 0.9 }]);
    return "25 days";
  });
}

describe("setupRagscope exports over OTLP/HTTP", () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  before(async () => {
    receiver = await startReceiver();
  });
  after(async () => {
    configureRagscope({ captureText: true });
    await new Promise<void>((resolve) => receiver.server.close(() => resolve()));
  });

  test("http/protobuf (default): one POST to /v1/traces with the spans, headers passed", async () => {
    receiver.requests.length = 0;
    const handle = setupRagscope({
      endpoint: `${receiver.endpoint}/`,
      serviceName: "leave-bot",
      headers: { Authorization: "Bearer test-token" },
    });
    try {
      assert.equal(await runRequest(), "25 days");
      await handle.forceFlush();
      assert.equal(receiver.requests.length, 1);
      const [received] = receiver.requests;
      assert.equal(received!.method, "POST");
      assert.equal(received!.url, "/v1/traces");
      assert.equal(received!.headers["content-type"], "application/x-protobuf");
      assert.equal(received!.headers.authorization, "Bearer test-token");
      // Protobuf keeps strings as raw UTF-8, so the names are visible in the bytes.
      const bytes = received!.body.toString("latin1");
      for (const expected of ["rag.request", "rag.retrieve", "ragscope.stage", "leave-bot", "run-1"]) {
        assert.ok(bytes.includes(expected), `body contains ${expected}`);
      }
    } finally {
      await handle.shutdown();
    }
  });

  test("http/json: the body is OTLP JSON with the resource, scope and span tree", async () => {
    receiver.requests.length = 0;
    const packageJson = JSON.parse(await readFile(new URL("../../../package.json", import.meta.url), "utf8")) as { version: string };
    const handle = setupRagscope({
      endpoint: receiver.endpoint,
      protocol: "http/json",
      serviceName: "leave-bot",
      resourceAttributes: { "deployment.environment.name": "test" },
      captureText: false,
    });
    try {
      assert.equal(ragscopeConfiguration().captureText, false, "setup applies captureText");
      await runRequest();
      await handle.forceFlush();
      assert.equal(receiver.requests.length, 1);
      const [received] = receiver.requests;
      assert.equal(received!.method, "POST");
      assert.equal(received!.url, "/v1/traces");
      assert.equal(received!.headers["content-type"], "application/json");

      const body = JSON.parse(received!.body.toString("utf8"));
      const resourceSpans = body.resourceSpans[0];
      const resource = new Map<string, unknown>(
        resourceSpans.resource.attributes.map((attribute: { key: string; value: { stringValue?: string } }) => [
          attribute.key,
          attribute.value.stringValue,
        ]),
      );
      assert.equal(resource.get("service.name"), "leave-bot");
      assert.equal(resource.get("deployment.environment.name"), "test");
      const scopeSpans = resourceSpans.scopeSpans[0];
      assert.equal(scopeSpans.scope.name, "ragscope");
      assert.equal(scopeSpans.scope.version, packageJson.version);
      const spans = scopeSpans.spans as Array<{ name: string; spanId: string; parentSpanId?: string; attributes: Array<{ key: string }> }>;
      assert.deepEqual(spans.map((span) => span.name).sort(), ["rag.request", "rag.retrieve"]);
      const root = spans.find((span) => span.name === "rag.request")!;
      const retrieve = spans.find((span) => span.name === "rag.retrieve")!;
      assert.equal(retrieve.parentSpanId, root.spanId);
      const retrieveKeys = retrieve.attributes.map((attribute) => attribute.key);
      assert.ok(retrieveKeys.includes("retrieval.documents.0.document.id"), "chunk ids are kept");
      assert.ok(!retrieveKeys.includes("retrieval.documents.0.document.content"), "captureText=false applies");
    } finally {
      await handle.shutdown();
    }
  });

  test("a retrieval of 30 chunks keeps every attribute (above OTel's default limit of 128)", async () => {
    receiver.requests.length = 0;
    const handle = setupRagscope({ endpoint: receiver.endpoint, protocol: "http/json" });
    try {
      const chunks = Array.from({ length: 30 }, (_, index) => ({
        chunkId: `c${index}`,
        documentId: `d${index}`,
        documentVersion: "1",
        sectionId: "s",
        text: "t",
        score: 1 / (index + 1),
      }));
      await traceRetrieve({ query: "q" }, () => chunks);
      await handle.forceFlush();
      const body = JSON.parse(receiver.requests[0]!.body.toString("utf8"));
      const span = body.resourceSpans[0].scopeSpans[0].spans[0];
      const keys = new Set(span.attributes.map((attribute: { key: string }) => attribute.key));
      assert.ok(keys.size > 128, `only ${keys.size} attributes arrived`);
      assert.ok(keys.has("ragscope.documents.29.rank"), "last chunk rank");
      assert.ok(keys.has("retrieval.documents.29.document.metadata"), "last chunk metadata");
      assert.equal(span.droppedAttributesCount ?? 0, 0);
    } finally {
      await handle.shutdown();
    }
  });

  test("setup while running returns the running handle; shutdown is idempotent and unregisters", async () => {
    const handle = setupRagscope({ endpoint: receiver.endpoint });
    const again = setupRagscope({ endpoint: receiver.endpoint });
    assert.equal(again, handle);
    const during = handle.tracerProvider.getTracer("check").startSpan("while-running");
    assert.equal(during.isRecording(), true, "the handle exposes the registered SDK provider");
    during.end();
    const first = handle.shutdown();
    const second = handle.shutdown();
    assert.equal(first, second);
    await first;
    // After shutdown the stopped provider no longer receives spans.
    const span = trace.getTracer("check").startSpan("after-shutdown");
    assert.equal(span.isRecording(), false);
    span.end();
    // And a new SDK can start.
    const next = setupRagscope({ endpoint: receiver.endpoint });
    assert.notEqual(next, handle);
    await next.shutdown();
  });
});
