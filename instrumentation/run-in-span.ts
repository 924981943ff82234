/**
 * Runs one pipeline stage inside a ragscope span; every stage wrapper
 * (stages/*.ts) is a thin description handed to `runInSpan`.
 *
 * Guarantees, in order of importance:
 * 1. The application's behaviour is unchanged: `fn` runs exactly once, its value
 *    is returned as is, and its exception is rethrown as the same object.
 * 2. Tracing never throws: attribute builders and extractors run guarded; what
 *    goes wrong is counted (instrumentation-errors.ts) and the span goes on
 *    without those attributes. If no span can be started at all, `fn` runs
 *    untraced.
 * 3. Nesting: the span is the active span while `fn` runs (`startActiveSpan`),
 *    so stages called inside `traceRequest` become children of `rag.request`.
 *
 * The tracer is looked up through the global API on each call, never captured,
 * so the SDK works with whichever tracer provider is registered (the one
 * `setupRagscope` starts, the application's own, or a test's).
 */
import { SpanStatusCode, trace, type Exception, type Span } from "@opentelemetry/api";
import {
  OpenInference,
  RAGSCOPE_SCHEMA_VERSION,
  RagSpanName,
  Ragscope,
  type OpenInferenceSpanKind,
  type RagStageName,
} from "../contracts/span-attributes.js";
import { ragscopeConfiguration, type RagscopeConfiguration } from "./configuration.js";
import { describeProblem, guarded, reportInstrumentationError } from "./instrumentation-errors.js";
import { AttributeRecorder } from "./safe-attributes.js";
import { RAGSCOPE_SDK_VERSION, RAGSCOPE_TRACER_NAME } from "./version.js";

type SpanKindValue = (typeof OpenInferenceSpanKind)[keyof typeof OpenInferenceSpanKind];

export interface StageDefinition<T> {
  readonly stage: RagStageName;
  readonly spanKind: SpanKindValue;
  /** Attributes known before `fn` runs (visible to samplers). */
  readonly recordStart?: (recorder: AttributeRecorder, configuration: RagscopeConfiguration) => void;
  /** Attributes read from `fn`'s value; runs only when `fn` succeeded. */
  readonly recordResult?: (recorder: AttributeRecorder, value: T, configuration: RagscopeConfiguration) => void;
}

export function runInSpan<T>(definition: StageDefinition<T>, fn: () => Promise<T> | T): Promise<T> {
  const spanName = RagSpanName[definition.stage];
  let traced: Promise<T> | undefined;
  try {
    const configuration = ragscopeConfiguration();
    const start = buildAttributes(spanName, (recorder) => {
      recorder.set(OpenInference.spanKind, definition.spanKind);
      recorder.set(Ragscope.stage, definition.stage);
      recorder.set(Ragscope.schemaVersion, RAGSCOPE_SCHEMA_VERSION);
      definition.recordStart?.(recorder, configuration);
    });
    const tracer = trace.getTracer(RAGSCOPE_TRACER_NAME, RAGSCOPE_SDK_VERSION);
    return tracer.startActiveSpan(spanName, { attributes: start }, (span) => {
      traced = runWithSpan(span, spanName, definition, configuration, fn);
      return traced;
    });
  } catch (error) {
    // Only tracing code runs synchronously above (`runWithSpan` is async, so
    // `fn`'s own errors arrive as a rejection), so this is a tracing failure.
    reportInstrumentationError(spanName, error);
    if (traced !== undefined) return traced;
    return runUntraced(fn);
  }
}

async function runWithSpan<T>(
  span: Span,
  spanName: string,
  definition: StageDefinition<T>,
  configuration: RagscopeConfiguration,
  fn: () => Promise<T> | T,
): Promise<T> {
  let value: T;
  try {
    value = await fn();
  } catch (error) {
    guarded(spanName, () => {
      span.recordException(toException(error));
      span.setStatus({ code: SpanStatusCode.ERROR, message: errorMessage(error) });
    });
    guarded(spanName, () => span.end());
    throw error;
  }
  const recordResult = definition.recordResult;
  if (recordResult !== undefined) {
    const attributes = buildAttributes(spanName, (recorder) => recordResult(recorder, value, configuration));
    guarded(spanName, () => span.setAttributes(attributes));
  }
  guarded(spanName, () => span.end());
  return value;
}

async function runUntraced<T>(fn: () => Promise<T> | T): Promise<T> {
  return await fn();
}

/**
 * Runs an attribute builder; a throw (a failing extractor) keeps what was
 * recorded before it, and each throw or noted problem counts once.
 */
function buildAttributes(spanName: string, build: (recorder: AttributeRecorder) => void): AttributeRecorder["attributes"] {
  const recorder = new AttributeRecorder();
  guarded(spanName, () => build(recorder));
  for (const problem of recorder.problems) reportInstrumentationError(spanName, problem);
  return recorder.attributes;
}

function toException(error: unknown): Exception {
  if (error instanceof Error || typeof error === "string") return error;
  return { message: describeProblem(error) };
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : describeProblem(error);
}
