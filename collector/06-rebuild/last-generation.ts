/**
 * The request's last generation: the one that gave the request's answer, whose answer is the request's when the
 * request span carries none, and whose model, abstained and time to first token are the request's
 * (`rag_observation.generation.model`, …); and whether its failure failed the request.
 *
 * The last is the generation that ended last (`answeringGeneration`), the same one the status rule reads, not the one
 * that started last: a title or suggestions call started after the answer's call, running beside it and ending first,
 * did not give the answer. A request span whose answer a generation that returned gave names that generation. Of
 * several ending at the same instant (a millisecond clock), the one that ran after the others — it started at or after
 * each of them ended, as a cache hit of 50 → 50 ms after a condense call of 10 → 50 ms — is the last; otherwise one
 * that returned; of several that still remain, neither inside another and overlapping, which one answered is not
 * known, and what it decides is not available, with a note on each. A value is never taken from a neighbour the trace
 * does not say gave the answer.
 *
 * What the last generation decides is also not available when an LLM call whose kind is not known ended at or after
 * the answering generation ended: an OpenLLMetry call whose SDK evicted its request type and whose name and what is
 * left cannot tell a generation from an embedding (llm-call-without-request-type.ts, `mayBeGeneration`). Such a call
 * may have been the real last generation, and the answer and model of the known one are then a neighbour's — a query
 * rewrite's output shown as the answer, the rewrite's small model as the request's. They are not available instead,
 * with a note on `generation` naming the call. The call is read by the rule that chose the answer, the one that ended
 * last, not by when it started: one that started before the known generation but ended after it may have been the
 * last, and one that started after it but ended first was not. A call that ended at the same instant is no earlier:
 * which of the two was last is not known — unless the known generation ran after it (it started at or after the call
 * ended, and the call did not start when the generation had ended: a cache hit 50 → 50 ms after a call 10 → 50 ms on a
 * millisecond clock), as answeringGeneration reads such a tie between known generations. When which of several known
 * generations ending together answered is not known, the call is read against them the same way. The answering
 * generation named by the request span's answer (one that gave that text) is read against too: a call ending after it,
 * whose output is not known, may have been a later one that gave the same text. The request's own output, when its
 * span carries one, is its answer whatever came last; only what the generation alone decides is then not available.
 *
 * Nothing changes when the unknown call ended before the answering generation ended (that generation ended after it,
 * whatever it was), or lies inside the answering generation's span: that generation returned after the call ended,
 * and what it recorded is its own. Nor when the answering generation lies inside the unknown call's span (a
 * LangChain-level LLM span whose request type was evicted, around the provider's call): a span around another ends
 * at or after it by construction, and the one inside gave the answer the one around it returned.
 *
 * The generation that ended last provides the request's answer, so when it ended in error (OTel status code 2: a
 * provider that failed mid-stream, a model call that threw) and no generation around it returned, the request did not
 * get its answer, however the application went on: what it returned is the failed stream's partial text (the AI SDK's
 * `textStream` ends normally after an error, its `text` is the text before it) or a reply made in its place (an
 * apology after a caught throw). `failed` names that span, and the rebuild marks the request failed; the failed
 * generation stays the last, so the partial text it recorded is the output. A generation that ended after it (a retry
 * that answered; the answer, beside which a title call failed) is the one that answered, and the request completed;
 * so did a request whose span carries an answer a generation that returned gave (the same text up to whitespace:
 * same-answer.ts). A generation around it that returned (an instrumentation's span of the same call, around its failed
 * inner attempt) returned an answer after all. A call its caller aborted (an `AbortError`, the openai SDK's
 * `APIUserAbortError`: a user pressing stop) did not fail. The status is read from the same generations as the answer:
 * when which of several ending together answered is not known and none of them returned, whichever gave the answer
 * failed or was stopped, so the request failed when any of them failed and was not aborted, with every such one named
 * (never the one that happened to start or be listed last), and completed when all were aborted. When a call of
 * unknown kind may have been the last generation, the last is not known, and neither is whether it failed.
 */
import type { MalformedAttributeNote } from "../../contracts/case-result.js";
import { listedInWords } from "../../core/listed-in-words.js";
import type { SpanRecord } from "../00-otlp/span-record.js";
import type { GenerateObservation, NormalizedSpan } from "../04-normalize/stage-observation.js";
import { sameAnswer } from "./same-answer.js";

export interface LastGeneration {
  /** The last generation's observation (the one that gave the answer); null when there is none, when a later call may have been the last, or when which of several gave it is not known. */
  observation: GenerateObservation | null;
  /** The generations whose failure failed the request; null when it did not, and when a later call of unknown kind may have been the last. */
  failed: FailedAnswer | null;
  notes: MalformedAttributeNote[];
}

/**
 * The last generation when it ended in error, was not aborted by its caller and no generation span around it returned
 * (`tied` 1); or, when which of `tied` generations ending together gave the answer is not known and none of them
 * returned, each of them that failed and was not aborted (the others were).
 */
export interface FailedAnswer {
  spans: SpanRecord[];
  tied: number;
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

/**
 * Why what the last generation decides is not available, for an unknown call that ended at or after `last` (the
 * answering generation, or the generations ending together of which one answered) ended.
 */
function mayBeLastGeneration(call: SpanRecord, last: readonly SpanRecord[], requestAnswered: boolean): string {
  const when = call.endTimeUnixNano === last[0]!.endTimeUnixNano ? "at the same instant as" : "after";
  const named = listedInWords(
    last.map((span) => `${JSON.stringify(span.name.slice(0, 80))} (span ${span.spanId})`),
    "and",
  );
  const which = last.length === 1 ? `the request's last known generation, ${named}` : `the request's last known generations, ${named}, of which one gave the answer`;
  const fields = decidedFields(requestAnswered);
  return (
    `this LLM call may have been a generation (its kind is not known: this span's other notes say why), and it ended ${when} ${which}: ` +
    `it may have been the request's last generation, so what the last generation decides — ${fields} — is not available rather than taken from the known one` +
    (requestAnswered ? "; the answer is the request's own output, which its span carries" : "")
  );
}

/**
 * Whether `call` ended before `generation` did, so it was not the later of the two: it ended earlier, or at the same
 * instant with the generation running after it — the generation started at or after the call ended and the call did
 * not start when the generation had ended (two that took no time at one instant: which came last is not known). The
 * tie is read as answeringGeneration reads generations ending together (`ranAfterTheOthers`).
 */
function endedBefore(call: SpanRecord, generation: SpanRecord): boolean {
  if (call.endTimeUnixNano !== generation.endTimeUnixNano) return call.endTimeUnixNano < generation.endTimeUnixNano;
  return ranAfter(generation, call) && !ranAfter(call, generation);
}

/** Whether `span` started at or after `other` ended: it ran after it, even when both ended at one instant. */
function ranAfter(span: SpanRecord, other: SpanRecord): boolean {
  return span.startTimeUnixNano >= other.endTimeUnixNano;
}

/** Error types that say the caller stopped the call: a DOMException's name, Node's code, the openai SDK's class. */
const ABORT_TYPES: ReadonlySet<string> = new Set(["AbortError", "ABORT_ERR", "APIUserAbortError"]);

/**
 * Whether a failed span was stopped by its caller rather than failing: its recorded exception is an abort — an
 * AbortSignal's abort throws a DOMException named `AbortError`, which OpenTelemetry JS records by its legacy code,
 * `20`, Node's own aborts carry the code `ABORT_ERR`, and the SDK records `AbortError` by name (the AI SDK adapter for
 * a stream stopped by the user) — or its `error.type` names one: `@opentelemetry/instrumentation-openai` records a
 * rejected call by the error's class name alone, without an exception event, and the openai SDK throws
 * `APIUserAbortError` when the caller's `signal` aborts the request. The answer was cut short by the user, not by a
 * fault: not a failed request.
 */
function cancelledByCaller(span: SpanRecord): boolean {
  const errorType = span.attributes["error.type"];
  if (typeof errorType === "string" && ABORT_TYPES.has(errorType)) return true;
  return span.events.some((event) => {
    if (event.name !== "exception") return false;
    const type = event.attributes["exception.type"];
    const message = event.attributes["exception.message"];
    // "20" is any DOMException's code 20 only as OTel writes it; its message says it was an abort ("This operation was aborted").
    return (typeof type === "string" && ABORT_TYPES.has(type)) || (type === "20" && typeof message === "string" && /abort/i.test(message));
  });
}

type Generation = { span: SpanRecord; observation: GenerateObservation };

const returned = (item: Generation): boolean => item.span.status.code !== 2;

/** Those of `items` (at least one) that ended at the latest end time among them. */
function endedLast(items: readonly Generation[]): Generation[] {
  let lastEnd = items[0]!.span.endTimeUnixNano;
  for (const item of items) if (item.span.endTimeUnixNano > lastEnd) lastEnd = item.span.endTimeUnixNano;
  return items.filter((item) => item.span.endTimeUnixNano === lastEnd);
}

/** Those of `items` not inside another of them: an instrumentation's span around a call's own span is that call once, and the outer span is what the application got. */
function outermost(items: readonly Generation[], byId: ReadonlyMap<string, SpanRecord>): Generation[] {
  return items.filter((item) => !items.some((other) => other !== item && isInside(item.span, other.span, byId)));
}

/** What the answering generation decides, as a note names it: the answer only when the request span carries none. */
function decidedFields(requestAnswered: boolean): string {
  return requestAnswered ? "its model, abstained and time_to_first_token_ms" : "its answer (the request span carries none), model, abstained and time_to_first_token_ms";
}

/** Why what the answering generation decides is not available, for generations that ended at the same instant, neither inside another. */
function sameEnd(count: number, requestAnswered: boolean): string {
  return (
    `this generation and ${count - 1} other${count === 2 ? "" : "s"} ended at the same instant, neither inside another: which of them gave the request's answer is not known, ` +
    `so what the answering generation decides — ${decidedFields(requestAnswered)} — is not available rather than taken from one of them` +
    (requestAnswered ? "; the answer is the request's own output, which its span carries" : "")
  );
}

/**
 * Of `items` (generations that ended at the same instant, none inside another), the one that ran after all the others:
 * it started at or after every other one ended. On a millisecond clock a fast last call (a cache hit, 50 → 50 ms) ends
 * in the same millisecond as the call before it (10 → 50 ms), yet it plainly came after it; null when no one or more
 * than one did (calls that truly overlap, or several that took no time at the same instant).
 */
function ranAfterTheOthers(items: readonly Generation[]): Generation | null {
  const after = items.filter((item) => items.every((other) => other === item || ranAfter(item.span, other.span)));
  return after.length === 1 ? after[0]! : null;
}

/**
 * The generations that ended last, narrowed to the one that ran after the others among the outermost of them (and the
 * spans inside it, its instrumentation's own spans of the same call), when one did; all of them otherwise.
 */
function tiedAtTheEnd(generations: readonly Generation[], byId: ReadonlyMap<string, SpanRecord>): Generation[] {
  const last = endedLast(generations);
  const after = ranAfterTheOthers(outermost(last, byId));
  return after === null ? last : last.filter((item) => item === after || isInside(item.span, after.span, byId));
}

/**
 * The one generation of `pool` once the spans inside another are left out and, of several, the one that ran after the
 * others; null, with a note on each of those left, when several remain.
 */
function theOne(pool: readonly Generation[], byId: ReadonlyMap<string, SpanRecord>, requestAnswered: boolean): { generation: Generation | null; candidates: Generation[]; notes: MalformedAttributeNote[] } {
  const candidates = outermost(pool, byId);
  // One candidate alone ran after the others (there are none); of several, the one that started when the rest had ended.
  const one = ranAfterTheOthers(candidates);
  if (one !== null) return { generation: one, candidates: [one], notes: [] };
  return {
    generation: null,
    candidates,
    notes: candidates.map((item) => ({ span_id: item.span.spanId, span_name: item.span.name, attribute: "generation", kind: "unreadable_value", error: sameEnd(candidates.length, requestAnswered) })),
  };
}

/** The answering generation, with the notes on why it is not known, and the generations whose failure failed the request (none when it did not). */
interface Answering {
  generation: Generation | null;
  /** The answering generation alone, or, when which of several gave the answer is not known, those several: what a call of unknown kind is read against. */
  last: Generation[];
  notes: MalformedAttributeNote[];
  failed: FailedAnswer | null;
}

/**
 * The generation that gave the request's answer, the one whose answer (when the request span carries none), model,
 * abstained and time to first token are the request's, and, from the same generations, whether the request failed,
 * so that the answer shown is the one the status speaks of:
 * - a request span whose answer is the output of a generation that returned (the same text, up to whitespace:
 *   same-answer.ts) names it: of several that gave it, the one that ended last; the request was answered, whatever
 *   failed besides;
 * - otherwise the generation that ended last — not the one that started last: a title or suggestions call started
 *   after the answer's and ending before it did not give the answer. Of several ending at the same instant, the one
 *   that ran after the others (it started at or after each of them ended: a cache hit on a millisecond clock) when one
 *   did; then one that returned (as the status rule: such a request completed);
 * - a last one that failed is the answering generation of a failed request, and its partial text (the output it
 *   recorded) the answer, as one cut short by its caller is (that request completed); but one inside a generation
 *   that returned (its outer span of the same call) gave its answer through it, and that one is the answering
 *   generation.
 * Of several that remain at the same end time, neither inside another and overlapping (parallel calls on a millisecond
 * clock), which gave the answer is not known: none is taken, with a note on each, rather than a neighbour's text or
 * model. The request then failed when one of them failed and was not aborted by its caller — none of them returned,
 * so whichever gave the answer failed or was stopped — with every such one named; it completed when all were aborted.
 */
function answeringGeneration(generations: readonly Generation[], byId: ReadonlyMap<string, SpanRecord>, requestAnswer: string | null): Answering {
  const requestAnswered = requestAnswer !== null;
  if (requestAnswer !== null) {
    const gave = generations.filter((item) => returned(item) && item.observation.answer !== null && sameAnswer(item.observation.answer, requestAnswer));
    if (gave.length > 0) {
      const chosen = theOne(endedLast(gave), byId, requestAnswered);
      return { generation: chosen.generation, last: chosen.candidates, notes: chosen.notes, failed: null };
    }
  }
  const tied = tiedAtTheEnd(generations, byId);
  const returnedLast = tied.filter(returned);
  const chosen = theOne(returnedLast.length > 0 ? returnedLast : tied, byId, requestAnswered);
  // Of the generations left (the answering one, or those of which one answered), the ones whose failure the request
  // did not recover from: not stopped by the caller, and not inside a generation that returned (its outer span of
  // the same call, whose answer the application got).
  const failed = chosen.candidates
    .filter((item) => !returned(item) && !cancelledByCaller(item.span) && !generations.some((other) => returned(other) && isInside(item.span, other.span, byId)))
    .map((item) => item.span);
  const failedAnswer = failed.length === 0 ? null : { spans: failed, tied: chosen.candidates.length };
  const answering = chosen.generation;
  if (answering === null || returned(answering)) return { generation: answering, last: chosen.candidates, notes: chosen.notes, failed: failedAnswer };
  const around = outermost(generations.filter((item) => returned(item) && isInside(answering.span, item.span, byId)), byId);
  const generation = around.length === 1 ? around[0]! : answering;
  return { generation, last: [generation], notes: chosen.notes, failed: failedAnswer };
}

/**
 * @param generations the trace's generation spans in the order they ran (time-order.ts: start time, then end time)
 * @param requestAnswer the request's output as its span carries it; null when it carries none
 */
export function lastGeneration(
  normalized: readonly NormalizedSpan[],
  generations: readonly Generation[],
  requestAnswer: string | null,
): LastGeneration {
  if (generations.length === 0) return { observation: null, failed: null, notes: [] };
  const byId = new Map<string, SpanRecord>();
  for (const item of normalized) if (!byId.has(item.span.spanId)) byId.set(item.span.spanId, item.span);
  const answering = answeringGeneration(generations, byId, requestAnswer);
  // An unknown call is read against the generation that gave the answer, by the rule that chose it (ended last): one
  // that ended at or after it, outside its span, may have been the last.
  const last = answering.last.map((item) => item.span);
  // None to read against (generations each inside another: a parent chain that loops) decides nothing already.
  const later = normalized.filter(
    (item) =>
      last.length > 0 &&
      item.observation.stage === "other" &&
      item.observation.mayBeGeneration === true &&
      // Nested either way, the two are one call seen at two layers (a framework's LLM span around the provider's):
      // the known generation inside returned its own answer to the call around it, which ends at or after it.
      !last.some((generation) => endedBefore(item.span, generation) || isInside(item.span, generation, byId) || isInside(generation, item.span, byId)),
  );
  if (later.length === 0) return { observation: answering.generation?.observation ?? null, failed: answering.failed, notes: answering.notes };
  return {
    observation: null,
    failed: null,
    // The notes on generations ending together stay: which of them answered is still not known if the call was none.
    notes: [
      ...answering.notes,
      ...later.map((item) => ({
        span_id: item.span.spanId,
        span_name: item.span.name,
        attribute: "generation",
        kind: "unreadable_value" as const,
        error: mayBeLastGeneration(item.span, last, requestAnswer !== null),
      })),
    ],
  };
}
