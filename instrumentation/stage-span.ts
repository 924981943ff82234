/**
 * One pipeline stage as a span that is started now and ended later: the
 * building block of `runInSpan` (a function run inside the span) and of the
 * framework adapters (adapters/), which see a stage as separate start and end
 * callbacks.
 *
 * Tracing never throws from here: attribute builders run guarded, what goes
 * wrong is counted (instrumentation-errors.ts) and the span goes on without
 * those attributes; when no span can be started at all, `startStageSpan`
 * returns undefined and the caller runs untraced.
 *
 * The tracer is looked up through the global API on each call, never captured,
 * so the SDK works with whichever tracer provider is registered (the one
 * `setupRagscope` starts, the application's own, or a test's).
 */
import { SpanStatusCode, context, createContextKey, trace, type Context, type Exception, type Span, type TimeInput } from "@opentelemetry/api";
import {
  OpenInference,
  RAGSCOPE_SCHEMA_VERSION,
  RagSpanName,
  RagStage,
  Ragscope,
  SPAN_ATTRIBUTE_COUNT_LIMIT,
  ATTRIBUTES_PER_CHUNK,
  type OpenInferenceSpanKind,
  type RagStageName,
} from "../contracts/span-attributes.js";
import { stageConfiguration, type RagscopeConfiguration } from "./configuration.js";
import { warnOnceIfNotSetUp } from "./global-provider.js";
import { describeProblem, guarded, reportInstrumentationError } from "./instrumentation-errors.js";
import { AttributeRecorder } from "./safe-attributes.js";
import { nextSpanTime } from "./span-clock.js";
import { RAGSCOPE_SDK_VERSION, RAGSCOPE_TRACER_NAME } from "./version.js";

export type SpanKindValue = (typeof OpenInferenceSpanKind)[keyof typeof OpenInferenceSpanKind];

export interface StageDefinition<T> {
  readonly stage: RagStageName;
  /** The OpenInference span kind; absent for stages OpenInference has no kind for (feedback). */
  readonly spanKind?: SpanKindValue;
  /** Attributes known before the stage runs (visible to samplers). */
  readonly recordStart?: (recorder: AttributeRecorder, configuration: RagscopeConfiguration) => void;
  /**
   * Inputs known before the stage runs that are too many to hand to a sampler
   * (a reranker's input chunks, a dozen attributes each): set on the span as
   * soon as it has started, before the stage runs. OTel copies a span's start
   * attributes twice for its sampler, which for a chunk list was a fifth of
   * recording a request (test/bench/sdk-export.bench.ts).
   */
  readonly recordInput?: (recorder: AttributeRecorder, configuration: RagscopeConfiguration) => void;
  /** Attributes read from the stage's value; runs only when the stage succeeded. */
  readonly recordResult?: (recorder: AttributeRecorder, value: T, configuration: RagscopeConfiguration) => void;
}

/** A started stage span; `succeed` or `fail` ends it (the first call wins). */
export interface StageSpan<T> {
  readonly span: Span;
  /** `parent` with this span set: where the stage's children start. */
  readonly context: Context;
  readonly configuration: RagscopeConfiguration;
  succeed(value: T, endTime?: TimeInput): void;
  fail(error: unknown, endTime?: TimeInput): void;
}

/** Set in the context of a `rag.request` span's children, so adapters do not open a second request. */
const REQUEST_KEY = createContextKey("ragscope.request");

/** True inside a ragscope request (`traceRequest` or an adapter's request span). */
export function isInsideRequest(active: Context = context.active()): boolean {
  return active.getValue(REQUEST_KEY) !== undefined;
}

/** The enclosing `rag.request` span, when there is one (a request opened inside it joins it). */
export function enclosingRequestSpan(active: Context = context.active()): Span | undefined {
  const value = active.getValue(REQUEST_KEY);
  return value === undefined ? undefined : (value as Span);
}

export function startStageSpan<T>(definition: StageDefinition<T>, parent: Context = context.active(), startTime?: TimeInput): StageSpan<T> | undefined {
  const spanName = RagSpanName[definition.stage];
  try {
    const configuration = stageConfiguration(definition.stage);
    const attributes = recordAttributes(spanName, new AttributeRecorder(configuration.maxTextLength, undefined, configuration.redactBeforeCut), (recorder) => {
      recorder.set(OpenInference.spanKind, definition.spanKind);
      recorder.set(Ragscope.stage, definition.stage);
      recorder.set(Ragscope.schemaVersion, RAGSCOPE_SCHEMA_VERSION);
      definition.recordStart?.(recorder, configuration);
    }).attributes;
    warnOnceIfNotSetUp();
    const tracer = trace.getTracer(RAGSCOPE_TRACER_NAME, RAGSCOPE_SDK_VERSION);
    // Strictly increasing sub-millisecond starts (span-clock.ts): a stage awaited after another started later, even in the same millisecond.
    const span = tracer.startSpan(spanName, { attributes, startTime: startTime ?? nextSpanTime() }, parent);
    const recordInput = definition.recordInput;
    if (recordInput !== undefined && span.isRecording()) {
      recordAttributes(spanName, new AttributeRecorder(configuration.maxTextLength, span, configuration.redactBeforeCut), (recorder) => recordInput(recorder, configuration));
    }
    const inner = trace.setSpan(parent, span);
    return new StartedStage(span, definition.stage === RagStage.request ? inner.setValue(REQUEST_KEY, span) : inner, spanName, definition, configuration);
  } catch (error) {
    reportInstrumentationError(spanName, error);
    return undefined;
  }
}

class StartedStage<T> implements StageSpan<T> {
  private ended = false;

  constructor(
    readonly span: Span,
    readonly context: Context,
    private readonly spanName: string,
    private readonly definition: StageDefinition<T>,
    readonly configuration: RagscopeConfiguration,
  ) {}

  succeed(value: T, endTime?: TimeInput): void {
    if (this.ended) return;
    this.ended = true;
    const recordResult = this.definition.recordResult;
    if (recordResult !== undefined && this.span.isRecording()) {
      recordAttributes(this.spanName, new AttributeRecorder(this.configuration.maxTextLength, this.span, this.configuration.redactBeforeCut), (recorder) => recordResult(recorder, value, this.configuration));
    }
    reportDroppedAttributes(this.spanName, this.span);
    // On the same clock as the start: OTel would take Date.now(), which can be before a sub-millisecond start.
    guarded(this.spanName, () => this.span.end(endTime ?? nextSpanTime()));
  }

  fail(error: unknown, endTime?: TimeInput): void {
    if (this.ended) return;
    this.ended = true;
    guarded(this.spanName, () => {
      this.span.recordException(toException(error));
      this.span.setStatus({ code: SpanStatusCode.ERROR, message: errorMessage(error) });
    });
    reportDroppedAttributes(this.spanName, this.span);
    // On the same clock as the start: OTel would take Date.now(), which can be before a sub-millisecond start.
    guarded(this.spanName, () => this.span.end(endTime ?? nextSpanTime()));
  }
}

/**
 * Says when the OTel SDK dropped attributes of the span past its attribute count limit, which it does without a word:
 * a retrieval of more chunks than the limit holds (ATTRIBUTES_PER_CHUNK attributes each) loses its last chunks. Once a
 * span, as it ends.
 */
function reportDroppedAttributes(spanName: string, span: Span): void {
  guarded(spanName, () => {
    // An SDK span counts them (ReadableSpan); another provider's span has no such count.
    const dropped = (span as { droppedAttributesCount?: unknown }).droppedAttributesCount;
    if (typeof dropped !== "number" || dropped <= 0) return;
    reportInstrumentationError(
      spanName,
      `the OpenTelemetry SDK dropped ${dropped} attribute(s) of this span past its attribute count limit (OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT; setupRagscope raises it to ${SPAN_ATTRIBUTE_COUNT_LIMIT}, room for ~${Math.floor(SPAN_ATTRIBUTE_COUNT_LIMIT / ATTRIBUTES_PER_CHUNK)} chunks at ${ATTRIBUTES_PER_CHUNK} attributes each): the chunks recorded last are missing; record fewer chunks on one span or raise the limit, in the SDK and in the collector (RAGSCOPE_MAX_ATTRIBUTES_PER_SPAN)`,
    );
  });
}

/**
 * Runs an attribute builder; a throw (a failing extractor) keeps what was
 * recorded before it, and each throw or noted problem counts once.
 */
function recordAttributes(spanName: string, recorder: AttributeRecorder, build: (recorder: AttributeRecorder) => void): AttributeRecorder {
  guarded(spanName, () => build(recorder));
  for (const problem of recorder.problems) reportInstrumentationError(spanName, problem);
  return recorder;
}

function toException(error: unknown): Exception {
  // An abort (AbortSignal: a user pressing stop) is a DOMException named AbortError, whose legacy numeric `code` OTel
  // would record as its type ("20"): recorded by its name, the collector tells a call its caller stopped from a fault.
  if (error instanceof Error && error.name === "AbortError") return { name: error.name, message: error.message, ...(error.stack ? { stack: error.stack } : {}) };
  if (error instanceof Error || typeof error === "string") return error;
  return { message: describeProblem(error) };
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : describeProblem(error);
}

/**
 * Adds attributes to a span that is already started (a request opened inside
 * another request adds who is asking to the enclosing one). Never throws.
 */
export function annotateSpan(span: Span, stage: RagStageName, build: (recorder: AttributeRecorder, configuration: RagscopeConfiguration) => void): void {
  const spanName = RagSpanName[stage];
  guarded(spanName, () => {
    if (!span.isRecording()) return;
    const configuration = stageConfiguration(stage);
    recordAttributes(spanName, new AttributeRecorder(configuration.maxTextLength, span, configuration.redactBeforeCut), (recorder) => build(recorder, configuration));
  });
}
