/**
 * The request's last generation: the one whose answer is the request's when the request span carries none, and whose
 * model, abstained and time to first token are the request's (`rag_observation.generation.model`, …).
 *
 * The last is the last known generation span, unless an LLM call whose kind is not known started at or after it: an
 * OpenLLMetry call whose SDK evicted its request type and whose name and what is left cannot tell a generation from
 * an embedding (llm-call-without-request-type.ts, `mayBeGeneration`). Such a call may have been the real last
 * generation, and the answer and model of the one before it are then a neighbour's — a query rewrite's output shown
 * as the answer, the rewrite's small model as the request's. They are not available instead, with a note on
 * `generation` naming the call. A call that started at the same time as the last known generation is no earlier: which
 * of the two was last is not known either. The request's own output, when its span carries one, is its answer
 * whatever came last; only what the generation alone decides is then not available.
 *
 * Nothing changes when the unknown call started before the last known generation (the generation came after it,
 * whatever it was), or lies inside the last known generation's span: that generation returned after the call ended,
 * and what it recorded is its own.
 *
 * The generation that ended last provides the request's answer, so when it ended in error (OTel status code 2: a
 * provider that failed mid-stream, a model call that threw) and no generation around it returned, the request did not
 * get its answer, however the application went on: what it returned is the failed stream's partial text (the AI SDK's
 * `textStream` ends normally after an error, its `text` is the text before it) or a reply made in its place (an
 * apology after a caught throw). `failed` names that span, and the rebuild marks the request failed. A generation that
 * ended after it (a retry that answered; the answer, beside which a title call failed) is the one that answered, and
 * the request completed; so did a request whose span carries an answer a generation that returned gave. A generation
 * around it that returned (an instrumentation's span of the same call, around its failed inner attempt) returned an
 * answer after all. A call its caller aborted (an `AbortError`: a user pressing stop) did not fail. When a call of
 * unknown kind may have been the last generation, the last is not known, and neither is whether it failed.
 */
import type { MalformedAttributeNote } from "../../contracts/case-result.js";
import type { SpanRecord } from "../00-otlp/span-record.js";
import type { GenerateObservation, NormalizedSpan } from "../04-normalize/stage-observation.js";

export interface LastGeneration {
  /** The last generation's observation; null when there is none, or when a later call may have been the last. */
  observation: GenerateObservation | null;
  /** The last generation's span when it ended in error and no generation span around it returned; null otherwise, and when the last is not known. */
  failed: SpanRecord | null;
  notes: MalformedAttributeNote[];
}

/** Whether `span` lies inside `around` (its parent, grandparent, …). A parent chain that loops (a malformed trace) ends the walk. */
function isInside(span: SpanRecord, around: SpanRecord, byId: ReadonlyMap<string, SpanRecord>): boolean {
  const seen = new Set<string>([span.spanId]);
  let parent = byId.get(span.parentSpanId);
  while (parent !== undefined && !seen.has(parent.spanId)) {
    if (parent.spanId === around.spanId) return true;
    seen.add(parent.spanId);
    parent = byId.get(parent.parentSpanId);
  }
  return false;
}

/** Why what the last generation decides is not available, for an unknown call that started at or after it. */
function mayBeLastGeneration(last: SpanRecord, sameStart: boolean, requestAnswered: boolean): string {
  const when = sameStart ? "at the same time as" : "after";
  const fields = requestAnswered ? "its model, abstained and time_to_first_token_ms" : "its answer (the request span carries none), model, abstained and time_to_first_token_ms";
  return (
    `this LLM call may have been a generation (its kind is not known: this span's other notes say why), and it started ${when} the request's last known generation, ` +
    `${JSON.stringify(last.name.slice(0, 80))} (span ${last.spanId}): it may have been the request's last generation, so what the last generation decides — ${fields} — ` +
    "is not available rather than taken from the earlier call" +
    (requestAnswered ? "; the answer is the request's own output, which its span carries" : "")
  );
}

/**
 * Whether a failed span was stopped by its caller rather than failing: its recorded exception is an abort — an
 * AbortSignal's abort throws a DOMException named `AbortError`, which OpenTelemetry JS records by its legacy code,
 * `20`, Node's own aborts carry the code `ABORT_ERR`, and the SDK records `AbortError` by name (the AI SDK adapter for
 * a stream stopped by the user). The answer was cut short by the user, not by a fault: not a failed request.
 */
function cancelledByCaller(span: SpanRecord): boolean {
  return span.events.some((event) => {
    if (event.name !== "exception") return false;
    const type = event.attributes["exception.type"];
    const message = event.attributes["exception.message"];
    // "20" is any DOMException's code 20 only as OTel writes it; its message says it was an abort ("This operation was aborted").
    return type === "AbortError" || type === "ABORT_ERR" || (type === "20" && typeof message === "string" && /abort/i.test(message));
  });
}

/**
 * The generation whose failure leaves the request without its answer, or null. Read from the generation that ended
 * last (by end time: a call running beside the answer — a title, a suggestion — that failed before the answer ended
 * is not it), when it ended in error, was not cancelled by its caller, and no generation span around it returned (its
 * outer span of the same call). A request span that carries an answer some generation that returned also gave is
 * answered, whatever failed besides.
 */
function failedAnswer(
  generations: readonly { span: SpanRecord; observation: GenerateObservation }[],
  byId: ReadonlyMap<string, SpanRecord>,
  requestAnswer: string | null,
): SpanRecord | null {
  let lastEnd = generations[0]!.span.endTimeUnixNano;
  for (const item of generations) if (item.span.endTimeUnixNano > lastEnd) lastEnd = item.span.endTimeUnixNano;
  // Several ending at the same instant (a millisecond clock; a wrapper and the call inside it): one of them that
  // returned may have given the answer, so none of them decides that the request failed.
  const endedLast = generations.filter((item) => item.span.endTimeUnixNano === lastEnd);
  if (endedLast.some((item) => item.span.status.code !== 2)) return null;
  const failed = endedLast.at(-1)!.span;
  if (cancelledByCaller(failed)) return null;
  const returned = generations.filter((item) => item.span.status.code !== 2 && item.span.spanId !== failed.spanId);
  if (returned.some((item) => isInside(failed, item.span, byId))) return null;
  if (requestAnswer !== null && returned.some((item) => item.observation.answer === requestAnswer)) return null;
  return failed;
}

/**
 * @param generations the trace's generation spans in the order they ran (time-order.ts: start time, then end time)
 * @param requestAnswer the request's output as its span carries it; null when it carries none
 */
export function lastGeneration(
  normalized: readonly NormalizedSpan[],
  generations: readonly { span: SpanRecord; observation: GenerateObservation }[],
  requestAnswer: string | null,
): LastGeneration {
  const requestAnswered = requestAnswer !== null;
  const last = generations.at(-1);
  if (last === undefined) return { observation: null, failed: null, notes: [] };
  const byId = new Map<string, SpanRecord>();
  for (const item of normalized) if (!byId.has(item.span.spanId)) byId.set(item.span.spanId, item.span);
  const later = normalized.filter(
    (item) =>
      item.observation.stage === "other" &&
      item.observation.mayBeGeneration === true &&
      item.span.startTimeUnixNano >= last.span.startTimeUnixNano &&
      !isInside(item.span, last.span, byId),
  );
  if (later.length === 0) return { observation: last.observation, failed: failedAnswer(generations, byId, requestAnswer), notes: [] };
  return {
    observation: null,
    failed: null,
    notes: later.map((item) => ({
      span_id: item.span.spanId,
      span_name: item.span.name,
      attribute: "generation",
      kind: "unreadable_value",
      error: mayBeLastGeneration(last.span, item.span.startTimeUnixNano === last.span.startTimeUnixNano, requestAnswered),
    })),
  };
}
