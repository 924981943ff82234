/**
 * `setupRagscope`: starts the OpenTelemetry Node SDK so the stage wrappers'
 * spans are exported to a ragscope collector (or any OTLP/HTTP receiver).
 *
 * Choices, and why:
 * - The OTLP/HTTP exporter (protobuf or JSON) sits behind a BatchSpanProcessor:
 *   a bounded queue (OTEL_BSP_MAX_QUEUE_SIZE, default 2048) that drops and
 *   counts spans when full instead of growing without bound, and exports off
 *   the request path.
 * - Only traces: no instrumentations (`instrumentations: []`), no metric
 *   readers and no log processors, so nothing but `/v1/traces` is ever sent to
 *   the collector. A service that exports metrics or logs too runs its own SDK.
 * - The span attribute count limit is raised (OTel's default of 128 would cut a
 *   retrieval of ~10 chunks, each of which writes up to 12 attributes), unless
 *   OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT / OTEL_ATTRIBUTE_COUNT_LIMIT set it.
 */
import { ProxyTracerProvider, diag, trace, type TracerProvider } from "@opentelemetry/api";
import { OTLPTraceExporter as OtlpJsonTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as OtlpProtobufTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { defaultResource, resourceFromAttributes } from "@opentelemetry/resources";
import { NodeSDK } from "@opentelemetry/sdk-node";
import { BatchSpanProcessor, type SpanExporter, type SpanLimits } from "@opentelemetry/sdk-trace-base";
import { configureRagscope } from "./configuration.js";
import { resolveSetupOptions, type RagscopeSetupOptions, type ResolvedSetupOptions } from "./setup-options.js";

export interface RagscopeHandle {
  /** The provider ragscope's spans go to (the SDK's, once registered). */
  readonly tracerProvider: TracerProvider;
  /** Exports every finished span now; rejects when the export failed (spans were lost). */
  forceFlush(): Promise<void>;
  /** Flushes and stops the SDK; calling it again returns the same promise. */
  shutdown(): Promise<void>;
}

/** Room for about 300 chunks per span; see the module comment. */
export const RAGSCOPE_ATTRIBUTE_COUNT_LIMIT = 4096;

let running: RagscopeHandle | undefined;

export function setupRagscope(options: RagscopeSetupOptions = {}): RagscopeHandle {
  const resolved = resolveSetupOptions(options);
  if (running !== undefined) {
    // A second SDK could not register globally anyway; keep one exporter.
    diag.warn("ragscope: setupRagscope was called while the SDK is running; returning the running SDK");
    return running;
  }
  configureRagscope({ captureText: resolved.captureText });

  const spanProcessor = new BatchSpanProcessor(createTraceExporter(resolved));
  const sdk = new NodeSDK({
    serviceName: resolved.serviceName,
    resource: defaultResource().merge(resourceFromAttributes(resolved.resourceAttributes)),
    instrumentations: [],
    spanProcessors: [spanProcessor],
    spanLimits: spanLimits(),
    metricReaders: [],
    logRecordProcessors: [],
  });
  const before = globalTracerProvider();
  sdk.start();
  const registered = globalTracerProvider();
  const ownsGlobalProvider = registered !== before;
  if (!ownsGlobalProvider) {
    diag.warn("ragscope: a tracer provider was already registered (or OTEL_SDK_DISABLED is set); ragscope spans go to it");
  }

  let shutdownPromise: Promise<void> | undefined;
  const handle: RagscopeHandle = {
    tracerProvider: registered,
    forceFlush: () => spanProcessor.forceFlush(),
    shutdown: () => {
      shutdownPromise ??= sdk.shutdown().finally(() => {
        // Unregister the stopped provider so spans stop going to a dead exporter
        // and a later setupRagscope can register again.
        if (ownsGlobalProvider && globalTracerProvider() === registered) trace.disable();
        if (running === handle) running = undefined;
      });
      return shutdownPromise;
    },
  };
  running = handle;
  return handle;
}

function createTraceExporter(resolved: ResolvedSetupOptions): SpanExporter {
  const configuration = { url: resolved.tracesUrl, headers: resolved.headers };
  return resolved.protocol === "http/json"
    ? new OtlpJsonTraceExporter(configuration)
    : new OtlpProtobufTraceExporter(configuration);
}

function spanLimits(): SpanLimits {
  const setByEnvironment = [process.env.OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT, process.env.OTEL_ATTRIBUTE_COUNT_LIMIT].some(
    (value) => value !== undefined && value.trim() !== "",
  );
  return setByEnvironment ? {} : { attributeCountLimit: RAGSCOPE_ATTRIBUTE_COUNT_LIMIT };
}

/** The provider behind the API's global proxy (the no-op provider when none is registered). */
function globalTracerProvider(): TracerProvider {
  const provider = trace.getTracerProvider();
  return provider instanceof ProxyTracerProvider ? provider.getDelegate() : provider;
}
