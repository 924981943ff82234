/**
 * `setupRagscope`: one call that makes the stage wrappers' spans reach a
 * ragscope collector (or any OTLP/HTTP receiver), with or without an existing
 * OpenTelemetry setup.
 *
 * - No tracer provider registered yet: it starts the OTel Node SDK with
 *   ragscope's span processor, traces only — no instrumentations, no metric
 *   readers, no log processors — so nothing but `/v1/traces` is sent.
 * - The application already registered an SDK tracer provider (its own NodeSDK,
 *   a NodeTracerProvider…): ragscope adds its span processor to that provider
 *   instead of replacing it. The application's exporters keep receiving every
 *   span; ragscope's processor receives them too.
 * - A registered provider that is not the OTel SDK's cannot take a processor:
 *   ragscope warns and its spans go to that provider.
 *
 * By default everything recorded is exported before the process ends
 * (export/flush-on-exit.ts): a script that handles one request and exits loses
 * nothing. Lost spans are reported once on standard error, with the count and
 * the endpoint, then at most every ten seconds.
 *
 * ragscope's processor (export/ragscope-span-processor.ts) is a bounded queue
 * in front of the OTLP/HTTP exporter (protobuf or JSON), with redaction
 * (redaction/) and head sampling by trace id (sampling/). The span attribute
 * count limit is raised (OTel's default of 128 cuts a retrieval of ~10 chunks,
 * each of which writes up to 12 attributes) to the receiver's default bound
 * (contracts/span-attributes.ts SPAN_ATTRIBUTE_COUNT_LIMIT, ~1,360 chunks on
 * one span), so the collector takes whatever the SDK keeps, unless
 * OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT / OTEL_ATTRIBUTE_COUNT_LIMIT set it — on an
 * existing provider too, where it only ever raises the limit. A span that
 * still loses attributes to the limit is reported (stage-span.ts).
 */
import { randomBytes } from "node:crypto";
import { diag, trace, type TracerProvider } from "@opentelemetry/api";
import { defaultResource, resourceFromAttributes } from "@opentelemetry/resources";
import { NodeSDK } from "@opentelemetry/sdk-node";
import { ParentBasedSampler, type SpanExporter } from "@opentelemetry/sdk-trace-base";
import { SPAN_ATTRIBUTE_COUNT_LIMIT } from "../contracts/span-attributes.js";
import { configureRagscope, ragscopeConfiguration } from "./configuration.js";
import { createAddedRedaction, type AddedRedaction } from "./redaction/added-redaction.js";
import { describeSecondSetup, joinRunningSetup, type SecondSetup } from "./second-setup.js";
import { attachSpanProcessor } from "./export/attach-to-provider.js";
import { flushOnExit } from "./export/flush-on-exit.js";
import { OtlpHttpWriter, type OtlpHttpWriterOptions } from "./export/otlp-http-writer.js";
import { WorkerSpanExporter } from "./export/worker-span-exporter.js";
import { globalTracerProvider, NOOP_PROVIDER, setupWasRefused } from "./global-provider.js";
import { RagscopeSpanProcessor, resolveExportLimits, writeToStandardError, type ExportLimits, type ExportStatistics, type RagscopeSpanProcessorOptions } from "./export/ragscope-span-processor.js";
import { RedactingSpanExporter } from "./redaction/redacting-span-exporter.js";
import { createRedactor, type RedactionOptions } from "./redaction/redactor.js";
import { CountedSampler } from "./sampling/counted-sampler.js";
import { TraceIdRatioSampler } from "./sampling/trace-id-sampling.js";
import { resolveSetupOptions, type RagscopeSetupOptions, type ResolvedSetupOptions } from "./setup-options.js";

/**
 * How ragscope reached the spans: it started the SDK, added its processor to
 * the application's provider, or could not attach (a non-SDK provider).
 */
export type RagscopeSetupMode = "started" | "attached" | "unattached" | "untraced";

export interface RagscopeHandle {
  /** The provider ragscope's spans go to (the SDK's, once registered). */
  readonly tracerProvider: TracerProvider;
  readonly mode: RagscopeSetupMode;
  /** Spans exported, dropped (queue full), failed and sampled out so far. */
  statistics(): ExportStatistics;
  /** Exports every finished span now; rejects when the export failed (spans were lost). */
  forceFlush(): Promise<void>;
  /** Flushes and stops ragscope's export; calling it again returns the same promise. */
  shutdown(): Promise<void>;
}

/** Room for about 1,360 chunks per span, and what the receiver takes by default; see the module comment. */
export const RAGSCOPE_ATTRIBUTE_COUNT_LIMIT = SPAN_ATTRIBUTE_COUNT_LIMIT;

let running: RagscopeHandle | undefined;
/** The running setup's options (its privacy options as made stricter since) and its export path, for a second call. */
let runningSetup: { options: ResolvedSetupOptions; addedRedaction: AddedRedaction } | undefined;
/** What a second call already reported on stderr: each thing once a process. */
const reportedSecondSetup = new Set<string>();
/** Removes the running setup's flushing handlers (export/flush-on-exit.ts) once it has shut down; its exit report stays. */
let detachExitFlush: (() => void) | undefined;

/**
 * Sets ragscope up (see the module comment). Invalid options throw: the application's own code is wrong, and says
 * so where it is written. An invalid environment variable does not: a deployment's variables change without the
 * code (an OTEL_EXPORTER_OTLP_PROTOCOL=grpc set for another exporter, a mistyped RAGSCOPE_SAMPLE_RATE), and tracing
 * must never stop an application from starting. It is said on stderr, with what to change, and the application runs
 * untraced (mode "untraced"), as under `ragscope/register`.
 */
export function setupRagscope(options: RagscopeSetupOptions = {}): RagscopeHandle {
  let resolved: ResolvedSetupOptions;
  try {
    resolved = resolveSetupOptions(options);
  } catch (error) {
    // The same options without the environment: when they are valid, a variable is what is wrong.
    resolveSetupOptions(options, {});
    writeToStandardError(`ragscope: not started, the application runs untraced: ${error instanceof Error ? error.message : String(error)}`);
    setupWasRefused();
    return untracedHandle();
  }
  if (running !== undefined) {
    // A second exporter would send every span twice; keep one, made as private as this call asks (second-setup.ts).
    joinRunning(resolved);
    return running;
  }
  configureRagscope({
    captureText: resolved.captureText,
    captureTextByStage: resolved.captureTextByStage,
    maxTextLength: resolved.maxTextLength,
    sampleRate: resolved.sampleRate,
  });
  // Redaction a second call may add after start (second-setup.ts), in front of the export path.
  const addedRedaction = createAddedRedaction();
  const processor = buildProcessor(resolved, {}, (path) => new RedactingSpanExporter(path, addedRedaction));
  const existing = globalTracerProvider();
  const handle = existing === NOOP_PROVIDER ? startSdk(resolved, processor) : attach(existing, processor);
  running = handle;
  runningSetup = { options: resolved, addedRedaction };
  detachExitFlush = flushOnExit({ shutdown: () => handle.shutdown(), lossAtExit: (ending) => processor.lossAtExit(ending) }, { flush: resolved.flushOnExit, warn: writeToStandardError });
  return handle;
}

/**
 * ragscope's span processor for an application that builds its own tracer
 * provider: `new NodeSDK({ spanProcessors: [createRagscopeSpanProcessor()],
 * spanLimits: { attributeCountLimit: RAGSCOPE_ATTRIBUTE_COUNT_LIMIT } })`. A
 * processor cannot change its provider's limits, so the application raises the
 * attribute count limit itself; OTel's 128 keeps ~10 chunks of a retrieval.
 * Options and environment as for `setupRagscope` (endpoint, protocol, headers,
 * sample rate, redaction).
 */
export function createRagscopeSpanProcessor(
  options: RagscopeSetupOptions | ResolvedSetupOptions = {},
  processorOptions: RagscopeSpanProcessorOptions = {},
): RagscopeSpanProcessor {
  return buildProcessor(isResolved(options) ? options : resolveSetupOptions(options), processorOptions, (path) => path);
}

/** The processor, its export path wrapped by `wrap` (setupRagscope's: redaction can be added after start). */
function buildProcessor(resolved: ResolvedSetupOptions, processorOptions: RagscopeSpanProcessorOptions, wrap: (path: SpanExporter) => SpanExporter): RagscopeSpanProcessor {
  const settings: RagscopeSpanProcessorOptions = { sampleRate: resolved.sampleRate, destination: resolved.tracesUrl, ...resolved.exportLimits, ...processorOptions };
  // One key for the export path and the wrappers' redaction before a cut: the same value hashes alike in both.
  const redaction = resolved.redaction === null ? null : { ...resolved.redaction, hashKey: resolved.redaction.hashKey ?? randomBytes(32).toString("hex") };
  // The wrappers cut long texts before this processor sees them; a secret cut in half would pass its redaction.
  const beforeCut = redaction === null ? null : createRedactor(redaction);
  configureRagscope({ redactBeforeCut: beforeCut === null ? null : (key, text) => beforeCut.redactAttributes({ [key]: text })[key] as string });
  return new RagscopeSpanProcessor(wrap(createExportPath(resolved, redaction, resolveExportLimits(settings))), settings);
}

/**
 * A second setupRagscope call: the stricter privacy options applied to the running setup, the options fixed at start
 * that differ named on stderr — each once a process, not on every call (second-setup.ts).
 */
function joinRunning(requested: ResolvedSetupOptions): void {
  if (runningSetup === undefined) return;
  const second = joinRunningSetup(runningSetup.options, requested);
  runningSetup = { ...runningSetup, options: second.running };
  configureRagscope({ captureText: second.running.captureText, captureTextByStage: second.running.captureTextByStage, maxTextLength: second.running.maxTextLength });
  if (second.addedRedaction !== null) {
    const added = createRedactor(second.addedRedaction);
    runningSetup.addedRedaction.add(added);
    // The wrappers' redaction before a cut (redact-then-cut.ts) takes the added one first too.
    const before = ragscopeConfiguration().redactBeforeCut;
    configureRagscope({ redactBeforeCut: (key, text) => {
      const redacted = added.redactAttributes({ [key]: text })[key] as string;
      return before === null ? redacted : before(key, redacted);
    } });
  }
  const unreported: SecondSetup = {
    ...second,
    applied: second.applied.filter((line) => !reportedSecondSetup.has(`applied ${line}`)),
    keptStricter: second.keptStricter.filter((line) => !reportedSecondSetup.has(`kept ${line}`)),
    ignored: second.ignored.filter((ignored) => !reportedSecondSetup.has(`ignored ${ignored.option} ${ignored.requested}`)),
  };
  const report = describeSecondSetup(unreported);
  if (report === null) return;
  for (const line of unreported.applied) reportedSecondSetup.add(`applied ${line}`);
  for (const line of unreported.keptStricter) reportedSecondSetup.add(`kept ${line}`);
  for (const ignored of unreported.ignored) reportedSecondSetup.add(`ignored ${ignored.option} ${ignored.requested}`);
  // stderr, not the OTel diagnostic logger, which prints nothing unless the application set one up.
  writeToStandardError(report);
}

/**
 * Redaction, then OTLP/HTTP: on the export worker's thread when
 * `exportInWorker` (setup-options.ts), else on the application's. The
 * worker runs the default patterns and structural keys itself; custom patterns
 * or a custom `keepAttribute` (functions, which cannot be passed to a thread)
 * are applied on the application's thread before the batch is posted.
 */
function createExportPath(resolved: ResolvedSetupOptions, redaction: (RedactionOptions & { hashKey: string }) | null, limits: ExportLimits): SpanExporter {
  // The exporter's timeout and sockets follow the processor's limits.
  const writer = writerOptions(resolved, limits);
  const inThread = (): SpanExporter => {
    const exporter = new OtlpHttpWriter(writer);
    return redaction === null ? exporter : new RedactingSpanExporter(exporter, createRedactor(redaction));
  };
  if (!resolved.exportInWorker) return inThread();
  const custom = redaction !== null && (redaction.patterns !== undefined || redaction.keepAttribute !== undefined);
  const workerRedaction = redaction === null || custom ? null : { mode: redaction.mode ?? "replace", hashKey: redaction.hashKey };
  const exporter = new WorkerSpanExporter({ writer, redaction: workerRedaction, inThread });
  return custom ? new RedactingSpanExporter(exporter, createRedactor(redaction)) : exporter;
}

function startSdk(resolved: ResolvedSetupOptions, processor: RagscopeSpanProcessor): RagscopeHandle {
  const sdk = new NodeSDK({
    serviceName: resolved.serviceName,
    resource: defaultResource().merge(resourceFromAttributes(resolved.resourceAttributes)),
    instrumentations: [],
    spanProcessors: [processor],
    // Counted: a span the sampler leaves out never reaches the processor (sampling/counted-sampler.ts).
    sampler: new CountedSampler(new ParentBasedSampler({ root: new TraceIdRatioSampler(resolved.sampleRate) }), () => processor.countSampledOut()),
    spanLimits: attributeLimitFromEnvironment() ? {} : { attributeCountLimit: RAGSCOPE_ATTRIBUTE_COUNT_LIMIT },
    metricReaders: [],
    logRecordProcessors: [],
  });
  sdk.start();
  const registered = globalTracerProvider();
  const ownsGlobalProvider = registered !== NOOP_PROVIDER;
  if (!ownsGlobalProvider) diag.warn("ragscope: the OTel SDK did not register a tracer provider (OTEL_SDK_DISABLED?); no spans are exported");
  return createHandle(registered, ownsGlobalProvider ? "started" : "unattached", processor, () =>
    sdk.shutdown().finally(() => {
      // Unregister the stopped provider so spans stop going to a dead exporter
      // and a later setupRagscope can register again.
      if (ownsGlobalProvider && globalTracerProvider() === registered) trace.disable();
    }),
  );
}

function attach(provider: TracerProvider, processor: RagscopeSpanProcessor): RagscopeHandle {
  const attachment = attachSpanProcessor(provider, processor, attributeLimitFromEnvironment() ? null : RAGSCOPE_ATTRIBUTE_COUNT_LIMIT);
  if (!attachment.ok) {
    diag.warn(`ragscope: ${attachment.error}; ragscope's spans go to that provider and are not exported by ragscope`);
    return createHandle(provider, "unattached", processor, () => processor.shutdown());
  }
  return createHandle(provider, "attached", processor, async () => {
    attachment.value.detach();
    await processor.shutdown();
  });
}

/** What setupRagscope returns when an environment variable is invalid: nothing recorded, nothing to flush. */
function untracedHandle(): RagscopeHandle {
  const none: ExportStatistics = { queued: 0, exported: 0, droppedQueueFull: 0, failed: 0, sampledOut: 0, droppedAfterShutdown: 0 };
  return { tracerProvider: globalTracerProvider(), mode: "untraced", statistics: () => none, forceFlush: async () => {}, shutdown: async () => {} };
}

function createHandle(
  tracerProvider: TracerProvider,
  mode: RagscopeSetupMode,
  processor: RagscopeSpanProcessor,
  stop: () => Promise<void>,
): RagscopeHandle {
  let shutdownPromise: Promise<void> | undefined;
  const handle: RagscopeHandle = {
    tracerProvider,
    mode,
    statistics: () => processor.statistics(),
    forceFlush: () => processor.forceFlush(),
    shutdown: () => {
      shutdownPromise ??= stop().finally(() => {
        if (running !== handle) return;
        running = undefined;
        runningSetup = undefined;
        detachExitFlush?.();
        detachExitFlush = undefined;
      });
      return shutdownPromise;
    },
  };
  return handle;
}

function writerOptions(resolved: ResolvedSetupOptions, limits: ExportLimits): OtlpHttpWriterOptions {
  return {
    url: resolved.tracesUrl,
    protocol: resolved.protocol,
    headers: resolved.headers,
    timeoutMillis: limits.exportTimeoutMillis,
    maxSockets: limits.maxConcurrentExports,
  };
}

function attributeLimitFromEnvironment(): boolean {
  return [process.env.OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT, process.env.OTEL_ATTRIBUTE_COUNT_LIMIT].some(
    (value) => value !== undefined && value.trim() !== "",
  );
}

function isResolved(options: RagscopeSetupOptions | ResolvedSetupOptions): options is ResolvedSetupOptions {
  return typeof (options as ResolvedSetupOptions).tracesUrl === "string";
}
