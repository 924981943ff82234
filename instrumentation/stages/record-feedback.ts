/**
 * `rag.feedback`: what the user did with an answer — thumbs up or down, a
 * follow-up question, a handoff to a person, a copy of the answer, a click on
 * a citation, the question resolved or abandoned, a rating — recorded as a
 * span in the request's own trace, so the collector puts it on that request's
 * Case Result. `recordUserEvent` and `recordFeedback` are the same call.
 *
 * Events may come minutes or days after the request: the collector merges a
 * late event into the Case Result it already stored (store/clickhouse/
 * late-feedback-merge.ts), once per event span id, so a replayed span never
 * counts twice.
 *
 * Feedback usually comes later, in another HTTP request: the application keeps
 * the request's trace id (and, best, its root span id) with the answer and
 * passes them here. Called inside a traced request without ids, the feedback
 * joins the active trace. With a trace id but no span id, the span hangs under
 * a remote parent id of its own in that trace (a span id is needed to make a
 * child; the collector links by trace id).
 *
 * Sampling: the remote parent carries the head-sampling decision for that trace
 * id (sampling/trace-id-sampling.ts), so feedback on a sampled-out request is
 * sampled out too and a kept request keeps its feedback.
 */
import { randomBytes } from "node:crypto";
import { ROOT_CONTEXT, TraceFlags, context, isValidSpanId, isValidTraceId, trace, type Context } from "@opentelemetry/api";
import { FeedbackKind, OpenInference, RagStage, Ragscope, type FeedbackKindName } from "../../contracts/span-attributes.js";
import { failure, success, type Result } from "../../core/result.js";
import { ragscopeConfiguration } from "../configuration.js";
import { isTraceSampled } from "../sampling/trace-id-sampling.js";
import { nextSpanTime } from "../span-clock.js";
import { startStageSpan, type StageDefinition } from "../stage-span.js";

export interface FeedbackOptions {
  kind: FeedbackKindName;
  /** The request's trace id (32 hex digits); default: the active span's trace. */
  traceId?: string;
  /** The request's root span id (16 hex digits), to record the feedback as its child. */
  spanId?: string;
  /** Free text (a follow-up question, a reason); dropped when text capture is off for feedback. */
  comment?: string;
  /** A rating or other value the application attaches. */
  value?: string | number;
  /** The cited chunk the user opened (kind `citation_click`). */
  chunkId?: string;
  /** The conversation (`session.id`), so session metrics see the event. */
  sessionId?: string;
  /** When the user acted, for an event queued and sent later; default: now. */
  occurredAt?: Date;
}

/** `recordUserEvent`'s options: the same as recordFeedback's. */
export type UserEventOptions = FeedbackOptions;

/** Where a span sits: its trace and its own id. */
export interface TraceReference {
  readonly traceId: string;
  readonly spanId: string;
}

const KINDS: readonly string[] = Object.values(FeedbackKind);

/**
 * Records feedback on a request. Returns the feedback span's reference, or a
 * failure saying why nothing was recorded (no trace to link, an unknown kind,
 * a malformed id); it never throws.
 */
export function recordFeedback(options: FeedbackOptions): Result<TraceReference, string> {
  if (!KINDS.includes(options?.kind)) return failure(`feedback kind "${String(options?.kind)}" is not one of ${KINDS.join(", ")}`);
  if (options.kind === FeedbackKind.citationClick && (typeof options.chunkId !== "string" || options.chunkId === "")) {
    return failure("a citation_click event needs the clicked citation's chunkId");
  }
  if (options.occurredAt !== undefined && !(options.occurredAt instanceof Date && Number.isFinite(options.occurredAt.getTime()))) {
    return failure(`occurredAt "${String(options.occurredAt)}" is not a valid Date`);
  }
  const parent = parentContext(options);
  if (!parent.ok) return parent;
  // A sub-millisecond, strictly increasing start time (span-clock.ts; the SDK's default is Date.now()), so two
  // feedbacks given in the same millisecond keep their order on the Case Result.
  const startTime = options.occurredAt ?? nextSpanTime();
  const feedback = startStageSpan(feedbackStage(options), parent.value, startTime);
  if (feedback === undefined) return failure("tracing is not available; the feedback was not recorded");
  feedback.succeed(undefined, startTime);
  const { traceId, spanId } = feedback.span.spanContext();
  return success({ traceId, spanId });
}

/**
 * Records one user event on a request (the name for recordFeedback):
 * copy, citation_click (with `chunkId`), handoff, resolved, abandoned, rating
 * (with `value`), thumbs_up / thumbs_down, follow_up.
 */
export function recordUserEvent(options: UserEventOptions): Result<TraceReference, string> {
  return recordFeedback(options);
}

function feedbackStage(options: FeedbackOptions): StageDefinition<undefined> {
  return {
    stage: RagStage.feedback,
    recordStart: (recorder, configuration) => {
      recorder.set(Ragscope.feedbackKind, options.kind);
      recorder.set(Ragscope.feedbackValue, options.value);
      recorder.set(Ragscope.feedbackChunkId, options.chunkId);
      recorder.set(OpenInference.sessionId, options.sessionId);
      if (configuration.captureText) recorder.set(Ragscope.feedbackComment, options.comment);
    },
  };
}

function parentContext(options: FeedbackOptions): Result<Context, string> {
  if (options.traceId === undefined) {
    const active = trace.getSpanContext(context.active());
    if (active === undefined || !isValidTraceId(active.traceId)) {
      return failure("no trace to link the feedback to: pass the request's traceId, or call recordFeedback inside the traced request");
    }
    return success(context.active());
  }
  const traceId = options.traceId.toLowerCase();
  if (!isValidTraceId(traceId)) return failure(`traceId "${options.traceId}" is not 32 hex digits`);
  const spanId = options.spanId?.toLowerCase() ?? randomSpanId();
  if (!isValidSpanId(spanId)) return failure(`spanId "${String(options.spanId)}" is not 16 hex digits`);
  const sampled = isTraceSampled(traceId, ragscopeConfiguration().sampleRate);
  return success(trace.setSpanContext(ROOT_CONTEXT, { traceId, spanId, traceFlags: sampled ? TraceFlags.SAMPLED : TraceFlags.NONE, isRemote: true }));
}

function randomSpanId(): string {
  let id = "0000000000000000";
  while (!isValidSpanId(id)) id = randomBytes(8).toString("hex");
  return id;
}
