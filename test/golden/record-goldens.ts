/**
 * Records the golden traces: one RAG request (scenarios/policy-corpus.ts) told
 * four ways —
 * - `langchain-ragscope-adapter`: the LangChain chain with ragscope's callback handler;
 * - `langchain-openinference`: the same chain with Arize's
 *   @arizeai/openinference-instrumentation-langchain, the spans exactly as it writes them;
 * - `otel-genai`: the chat span recorded by @opentelemetry/instrumentation-openai
 *   around the openai client (a scripted fake endpoint), under the
 *   application's own invoke_workflow and retrieval spans (no JS
 *   instrumentation emits those);
 * - `openllmetry`: the chain of scenarios/traceloop-rag-chain.ts recorded by
 *   Traceloop's @traceloop/instrumentation-langchain and
 *   @traceloop/instrumentation-openai (the openai client against a scripted
 *   fake endpoint), under the application's workflow span;
 * - `langchain-openinference-scored-retriever`: Arize's instrumentation over a
 *   second retriever setup (scenarios/langchain-scored-retriever.ts) whose
 *   documents carry LangChain ids, scores in their metadata, and a document id
 *   on one of them only.
 *
 * Each is written as OTLP/JSON, as an exporter sends it (the OTel SDK's own
 * serializer), made reproducible so that recording twice gives the same
 * bytes: ids come from a counter, the clock is a counter while recording
 * (withCountingClock), timestamps are then replaced by their rank (1 ms apart,
 * order kept, so nesting and durations keep their shape), and LangChain's
 * random run UUIDs are numbered in order of appearance.
 *
 *   node --import tsx test/golden/record-goldens.ts          # prints which goldens differ
 *   node --import tsx test/golden/record-goldens.ts --write  # rewrites test/golden/traces/*.otlp.json
 *
 * The Python goldens (a Python app's spans) are recorded by
 * python/record-python-goldens.ts, with the same rewrites (rankTimes, uuidNumberer).
 *
 * The expected Case Results beside them (`*.case-result.json`) are reviewed by
 * hand; the test (golden-traces.test.ts) replays each trace through the
 * collector and compares.
 */
import { readFile, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { SpanKind, context, trace, type Tracer } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import type { HrTime } from "@opentelemetry/api";
import { JsonTraceSerializer } from "@opentelemetry/otlp-transformer";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type IdGenerator, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import * as CallbackManagerModule from "@langchain/core/callbacks/manager";
import { LangChainInstrumentation } from "@arizeai/openinference-instrumentation-langchain";
import { OpenAIInstrumentation } from "@opentelemetry/instrumentation-openai";
import { TraceloopCallbackHandler } from "@traceloop/instrumentation-langchain";
import { OpenAIInstrumentation as TraceloopOpenAIInstrumentation } from "@traceloop/instrumentation-openai";
import OpenAI from "openai";
import * as OpenAiNamespace from "openai";
import { GenAi, GenAiOperation, OpenLlmetry, OpenLlmetrySpanKind, Ragscope } from "../../contracts/span-attributes.js";
import { RagscopeCallbackHandler } from "../../instrumentation/adapters/langchain.js";
import { configureRagscope } from "../../instrumentation/index.js";
import { buildPolicyChain, fakeModelName, retrievePolicyChunks } from "./scenarios/langchain-rag-chain.js";
import { buildScoredRetrieverChain } from "./scenarios/langchain-scored-retriever.js";
import { buildTraceloopPolicyChain } from "./scenarios/traceloop-rag-chain.js";
import { fakeOpenAiBaseUrl, fakeOpenAiFetch } from "./scenarios/fake-openai-fetch.js";
import { fakeAnswer, goldenRun, policyChunks, question, retrievalTopK } from "./scenarios/policy-corpus.js";

export const goldenNames = ["langchain-ragscope-adapter", "otel-genai", "openllmetry", "langchain-openinference", "langchain-openinference-scored-retriever"] as const;
export type GoldenName = (typeof goldenNames)[number];

export const tracesDirectory = path.join(path.dirname(fileURLToPath(import.meta.url)), "traces");

const linkageMetadata = { [Ragscope.runId]: goldenRun.runId, [Ragscope.caseId]: goldenRun.caseId, [Ragscope.caseVersion]: goldenRun.caseVersion };

/** Trace and span ids from a counter, so a recording is reproducible. */
class CountingIdGenerator implements IdGenerator {
  private traces = 0;
  private spans = 0;
  constructor(private readonly seed: number) {}
  generateTraceId(): string {
    this.traces += 1;
    return `${this.seed.toString(16).padStart(8, "0")}${"0".repeat(16)}${this.traces.toString(16).padStart(8, "0")}`;
  }
  generateSpanId(): string {
    this.spans += 1;
    return `${this.seed.toString(16).padStart(4, "0")}${this.spans.toString(16).padStart(12, "0")}`;
  }
}

interface Recording {
  tracer(name: string, version?: string): Tracer;
  provider: BasicTracerProvider;
  finish(): Promise<ReadableSpan[]>;
}

function startRecording(seed: number, serviceName: string): Recording {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ "service.name": serviceName }),
    idGenerator: new CountingIdGenerator(seed),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
    spanLimits: { attributeCountLimit: 4096 },
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(provider);
  return {
    provider,
    tracer: (name, version) => provider.getTracer(name, version),
    async finish() {
      await provider.forceFlush();
      const spans = exporter.getFinishedSpans();
      await provider.shutdown();
      trace.disable();
      context.disable();
      return spans;
    },
  };
}

async function recordRagscopeAdapter(): Promise<ReadableSpan[]> {
  const recording = startRecording(0x1001, "policy-assistant-langchain");
  configureRagscope({ captureText: true });
  const chain = await buildPolicyChain();
  await chain.invoke(question, { callbacks: [new RagscopeCallbackHandler()], metadata: linkageMetadata });
  return recording.finish();
}

async function recordOpenInference(): Promise<ReadableSpan[]> {
  const recording = startRecording(0x1002, "policy-assistant-langchain");
  const instrumentation = new LangChainInstrumentation({ tracerProvider: recording.provider, instrumentationConfig: { enabled: false } });
  instrumentation.manuallyInstrument(CallbackManagerModule);
  const chain = await buildPolicyChain();
  await chain.invoke(question, { metadata: linkageMetadata });
  return recording.finish();
}

/** The same instrumentation over a second retriever setup: documents with LangChain ids and scores in their metadata. */
async function recordOpenInferenceScoredRetriever(): Promise<ReadableSpan[]> {
  const recording = startRecording(0x1005, "policy-assistant-langchain");
  const instrumentation = new LangChainInstrumentation({ tracerProvider: recording.provider, instrumentationConfig: { enabled: false } });
  instrumentation.manuallyInstrument(CallbackManagerModule);
  await buildScoredRetrieverChain().invoke(question, { metadata: linkageMetadata });
  return recording.finish();
}

/**
 * The chat span is recorded by @opentelemetry/instrumentation-openai around
 * the real openai client, answered by a scripted fake endpoint
 * (scenarios/fake-openai-fetch.ts). No JS instrumentation emits the GenAI
 * retrieval or workflow spans, so the application writes those itself, to the
 * convention (gen_ai.operation.name retrieval / invoke_workflow).
 */
async function recordOtelGenAi(): Promise<ReadableSpan[]> {
  const recording = startRecording(0x1003, "policy-assistant-genai");
  const tracer = recording.tracer("policy-assistant", "1.0.0");
  const instrumentation = new OpenAIInstrumentation({ enabled: false, captureMessageContent: true });
  instrumentation.setTracerProvider(recording.provider);
  // The instrumentation hooks require(); openai is an ES module here, so its module definition is applied by hand.
  const [openAiModule] = instrumentation.getModuleDefinitions();
  openAiModule!.patch!(OpenAiNamespace as never);
  instrumentation.enable();
  const client = new OpenAI({
    apiKey: "golden",
    baseURL: fakeOpenAiBaseUrl,
    maxRetries: 0,
    fetch: fakeOpenAiFetch({ model: fakeModelName, answer: fakeAnswer, promptTokens: 137, completionTokens: [...fakeAnswer].length }),
  });
  const hits = await retrievePolicyChunks(question, retrievalTopK);
  try {
    await tracer.startActiveSpan(
      "invoke_workflow policy_rag",
      {
        kind: SpanKind.INTERNAL,
        attributes: {
          [GenAi.operationName]: GenAiOperation.invokeWorkflow,
          [GenAi.inputMessages]: JSON.stringify([{ role: "user", parts: [{ type: "text", content: question }] }]),
          ...linkageMetadata,
        },
      },
      async (root) => {
        const retrieval = tracer.startSpan("retrieval policy-index", {
          kind: SpanKind.CLIENT,
          attributes: {
            [GenAi.operationName]: GenAiOperation.retrieval,
            [GenAi.dataSourceId]: "policy-index",
            [GenAi.providerName]: "in_memory",
            [GenAi.requestTopK]: retrievalTopK,
            [GenAi.retrievalQueryText]: question,
          },
        });
        // The convention's documents are `{ id, score }` (gen-ai-retrieval-documents.json), a JSON string on spans.
        retrieval.setAttribute(GenAi.retrievalDocuments, JSON.stringify(hits.map((hit) => ({ id: hit.chunk.chunkId, score: hit.score }))));
        retrieval.end();
        const context = hits.map((hit) => hit.chunk.text).join("\n\n");
        const completion = await client.chat.completions.create({
          model: fakeModelName,
          messages: [
            { role: "system", content: `只根据下面的资料回答问题。\n\n${context}` },
            { role: "user", content: question },
          ],
        });
        const answer = completion.choices[0]?.message.content ?? "";
        root.setAttribute(GenAi.outputMessages, JSON.stringify([{ role: "assistant", parts: [{ type: "text", content: answer }] }]));
        root.end();
      },
    );
  } finally {
    openAiModule!.unpatch!(OpenAiNamespace as never);
    instrumentation.disable();
  }
  return recording.finish();
}

/**
 * The spans under the root are written by Traceloop's own instrumentations:
 * @traceloop/instrumentation-langchain's callback handler (one `workflow` span per chain step,
 * its inputs and outputs as `traceloop.entity.input` / `.output` JSON) over
 * the chain of scenarios/traceloop-rag-chain.ts, and
 * @traceloop/instrumentation-openai around the real openai client (a scripted
 * fake endpoint). The root span is the application's: Traceloop's LangChain
 * instrumentation starts its spans without making them active, so without
 * an active parent every chain step would be a trace of its own. The root is
 * written as the Traceloop SDK's `withWorkflow` writes it (name
 * `<name>.workflow`, `traceloop.span.kind`, workflow and entity names, the
 * JSON `{args, kwargs}` input, the JSON output) with the run / case linkage
 * as association properties; the SDK itself is not installed (it brings a
 * second OpenTelemetry SDK and a Google Cloud exporter).
 */
async function recordOpenLlmetry(): Promise<ReadableSpan[]> {
  const recording = startRecording(0x1004, "policy-assistant-traceloop");
  const tracer = recording.tracer("@traceloop/node-server-sdk");
  // The LangChain instrumentation's whole work is to add this handler to every CallbackManager, by patching
  // LangChain for the rest of the process (and once more a turn after its constructor). The handler is given to
  // the chain's call instead, with the tracer the instrumentation would use, so the other recordings stay untouched.
  const langchainPackage = createRequire(import.meta.url)("@traceloop/instrumentation-langchain/package.json") as { name: string; version: string };
  const traceloopHandler = new TraceloopCallbackHandler(recording.tracer(langchainPackage.name, langchainPackage.version), true);
  const openAiInstrumentation = new TraceloopOpenAIInstrumentation({ traceContent: true, enrichTokens: false });
  openAiInstrumentation.setTracerProvider(recording.provider);
  // An ES module import of openai: the instrumentation's require() hook never sees it, so the client class is patched by hand.
  openAiInstrumentation.manuallyInstrument(OpenAI);
  const client = new OpenAI({
    apiKey: "golden",
    baseURL: fakeOpenAiBaseUrl,
    maxRetries: 0,
    fetch: fakeOpenAiFetch({ model: fakeModelName, answer: fakeAnswer, promptTokens: 137, completionTokens: [...fakeAnswer].length }),
  });
  const chain = await buildTraceloopPolicyChain(client);
  const association = Object.fromEntries(Object.entries(linkageMetadata).map(([key, value]) => [`${OpenLlmetry.associationPropertiesPrefix}.${key}`, value]));
  try {
    await tracer.startActiveSpan(
      "policy_rag.workflow",
      {
        attributes: {
          [OpenLlmetry.spanKind]: OpenLlmetrySpanKind.workflow,
          [OpenLlmetry.workflowName]: "policy_rag",
          [OpenLlmetry.entityName]: "policy_rag",
          [OpenLlmetry.entityInput]: JSON.stringify({ args: [question], kwargs: {} }),
          ...association,
        },
      },
      async (root) => {
        const answer = await chain.invoke(question, { callbacks: [traceloopHandler] });
        root.setAttribute(OpenLlmetry.entityOutput, JSON.stringify(answer));
        root.end();
      },
    );
  } finally {
    // unpatch is private in the typings; it undoes the wrapping of the client class done above.
    (openAiInstrumentation as unknown as { unpatch(module: { OpenAI: typeof OpenAI }): void }).unpatch({ OpenAI });
    openAiInstrumentation.disable();
  }
  return recording.finish();
}

const recorders: Record<GoldenName, () => Promise<ReadableSpan[]>> = {
  "langchain-ragscope-adapter": recordRagscopeAdapter,
  "otel-genai": recordOtelGenAi,
  openllmetry: recordOpenLlmetry,
  // Last: Arize's instrumentation patches LangChain's CallbackManager for the rest of the process.
  "langchain-openinference": recordOpenInference,
  "langchain-openinference-scored-retriever": recordOpenInferenceScoredRetriever,
};

/** Records every golden, in order, and returns its OTLP/JSON text. */
export async function recordGoldens(): Promise<Map<GoldenName, string>> {
  const recorded = new Map<GoldenName, string>();
  for (const name of goldenNames) recorded.set(name, toOtlpJsonText(await withCountingClock(recorders[name])));
  return recorded;
}

/**
 * Runs `work` with `Date.now` and `performance.now` replaced by one counter
 * that advances 1 ms per reading. Spans read the clock at start and end (the
 * OTel SDK's Span), so a sequential program gets the same times on every run
 * and no two readings tie, whatever the machine's speed.
 */
async function withCountingClock<Value>(work: () => Promise<Value>): Promise<Value> {
  const realDateNow = Date.now;
  const realPerformanceNow = performance.now;
  let tick = 0;
  Date.now = () => GOLDEN_EPOCH_MILLISECONDS + (tick += 1);
  performance.now = () => (tick += 1);
  try {
    return await work();
  } finally {
    Date.now = realDateNow;
    performance.now = realPerformanceNow;
  }
}

/** The stored trace of a golden (also of the Python goldens, python/record-python-goldens.ts). */
export function tracePath(name: string): string {
  return path.join(tracesDirectory, `${name}.otlp.json`);
}

export function caseResultPath(name: string): string {
  return path.join(tracesDirectory, `${name}.case-result.json`);
}

const GOLDEN_EPOCH_MILLISECONDS = Date.UTC(2026, 6, 8, 9, 30, 0);
const GOLDEN_EPOCH_NANOSECONDS = BigInt(GOLDEN_EPOCH_MILLISECONDS) * 1_000_000n;

/**
 * Each time replaced by its rank among `times`: the golden epoch plus 1 ms per
 * rank, so order, nesting and the shape of durations are kept whatever the
 * machine's speed (also used for the Python goldens, python/record-python-goldens.ts).
 */
export function rankTimes(times: Iterable<bigint>): (time: bigint) => bigint {
  const ranks = new Map([...new Set(times)].sort((left, right) => (left < right ? -1 : left > right ? 1 : 0)).map((time, index) => [time, index]));
  return (time) => GOLDEN_EPOCH_NANOSECONDS + BigInt(ranks.get(time)!) * 1_000_000n;
}

/** Replaces random UUIDs in text by numbered ones, in order of first appearance (the same UUID keeps its number). */
export function uuidNumberer(): (text: string) => string {
  const uuids = new Map<string, string>();
  return (text) =>
    text.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, (uuid) => {
      if (!uuids.has(uuid)) uuids.set(uuid, `00000000-0000-4000-8000-${(uuids.size + 1).toString().padStart(12, "0")}`);
      return uuids.get(uuid)!;
    });
}

/** OTLP/JSON of the spans after the deterministic rewrites described above. */
function toOtlpJsonText(spans: ReadableSpan[]): string {
  const times: bigint[] = [];
  for (const span of spans) {
    times.push(nanoseconds(span.startTime));
    times.push(nanoseconds(span.endTime));
    for (const event of span.events) times.push(nanoseconds(event.time));
  }
  const rank = rankTimes(times);
  const rewrite = (time: HrTime): HrTime => toHrTime(rank(nanoseconds(time)));
  const numberUuids = uuidNumberer();
  const scrub = (value: unknown): unknown => {
    if (typeof value === "string") return numberUuids(value);
    return Array.isArray(value) ? value.map(scrub) : value;
  };
  const rewritten: ReadableSpan[] = spans.map((span) => {
    const startTime = rewrite(span.startTime);
    const endTime = rewrite(span.endTime);
    return {
      ...span,
      spanContext: () => span.spanContext(),
      name: span.name,
      kind: span.kind,
      status: span.status,
      resource: span.resource,
      instrumentationScope: span.instrumentationScope,
      parentSpanContext: span.parentSpanContext,
      links: span.links,
      ended: span.ended,
      droppedAttributesCount: span.droppedAttributesCount,
      droppedEventsCount: span.droppedEventsCount,
      droppedLinksCount: span.droppedLinksCount,
      startTime,
      endTime,
      duration: toHrTime(nanoseconds(endTime) - nanoseconds(startTime)),
      attributes: Object.fromEntries(Object.entries(span.attributes).map(([key, value]) => [key, scrub(value)])) as ReadableSpan["attributes"],
      events: span.events.map((event) => ({ ...event, time: rewrite(event.time) })),
    };
  });
  const body = JsonTraceSerializer.serializeRequest(rewritten);
  if (body === undefined) throw new Error("the OTLP JSON serializer returned nothing");
  return `${JSON.stringify(JSON.parse(Buffer.from(body).toString("utf8")), null, 2)}\n`;
}

function nanoseconds(time: HrTime): bigint {
  return BigInt(time[0]) * 1_000_000_000n + BigInt(time[1]);
}

function toHrTime(value: bigint): HrTime {
  return [Number(value / 1_000_000_000n), Number(value % 1_000_000_000n)];
}

/** Compares a recording with the stored golden, and with `write` replaces a differing one; says which on stdout. */
export async function checkOrWriteGolden(name: string, text: string, write: boolean): Promise<void> {
  const stored = await readFile(tracePath(name), "utf8").catch(() => null);
  if (stored === text) {
    console.log(`${name}: unchanged`);
  } else if (write) {
    await writeFile(tracePath(name), text);
    console.log(`${name}: written`);
  } else {
    console.log(`${name}: differs from the stored golden (run with --write to replace it)`);
    process.exitCode = 1;
  }
}

async function main(): Promise<void> {
  const write = process.argv.includes("--write");
  const recorded = await recordGoldens();
  for (const [name, text] of recorded) await checkOrWriteGolden(name, text, write);
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) await main();
