/**
 * The trace and root span ids of the request being traced, read inside
 * `traceRequest`'s callback: what an application keeps beside the answer it
 * shows, so that a user event minutes or days later (`recordUserEvent` with
 * `traceId` and `spanId`, from any process) lands on this request. Without it
 * the ids were only reachable through `@opentelemetry/api`'s active span,
 * which the docs did not say.
 *
 * Null outside a traced request, or when the request's span is not recorded
 * (sampled out, or ragscope not set up): there is then nothing an event could
 * be merged into.
 */
import { isSpanContextValid } from "@opentelemetry/api";
import { enclosingRequestSpan } from "../stage-span.js";
import type { TraceReference } from "./record-feedback.js";

export function currentRequest(): TraceReference | null {
  const span = enclosingRequestSpan();
  if (span === undefined || !span.isRecording()) return null;
  const context = span.spanContext();
  return isSpanContextValid(context) ? { traceId: context.traceId, spanId: context.spanId } : null;
}
