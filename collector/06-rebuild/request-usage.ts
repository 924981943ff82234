/**
 * The request's token counts and cost (`rag_observation.generation`: input,
 * output and total tokens, cost), each the sum over the request's LLM calls,
 * and the notes that say why one is not available, or which of two values
 * one call recorded it counts.
 *
 * A sum is known only when every call that enters it is known. A call that did
 * not record a count (a streamed call without usage, an SDK or instrumentation
 * that does not write it, a provider that returns none) is not a call that used
 * nothing: a sum that left it out would read LOWER than what the request used
 * — a cheaper request than the real one — and be stored, averaged on the
 * dashboards and in the gate's `average_cost` / `cost_per_success` as if
 * measured. So:
 * - no call records the value (a convention that writes no cost): null, as for
 *   any value the trace did not carry; no note, nothing was left out;
 * - every call records it: the sum;
 * - some do and some do not: null, with a note on `generation` naming each
 *   call without it (calls, not spans: below);
 * - a span whose reader says it leaves its usage out (an LLM call whose SDK
 *   evicted its request type: llm-call-without-request-type.ts, its
 *   `uncountedUsage`): null, with a note naming the span;
 * - the values add up beyond LARGEST_MEASUREMENT (2^53 − 1,
 *   core/largest-measurement.ts), each within it (two calls of 6e15 tokens),
 *   or beyond the largest number a value can hold (two of 1e308): null, with a
 *   note naming the values, on the span where the addition first went beyond
 *   (the last call of the request, or the span around the spans inside it).
 *   Such a sum is no measurement, as a value a span states beyond the bound is
 *   none (04-normalize/out-of-range-values.ts): the stores count it not
 *   applicable, so a Case Result that carried it would read one way in the web
 *   UI's run summary and another in `ragscope eval`'s and the gate's, which
 *   read the Case Results; Infinity, besides, fails the Case Result's schema
 *   and would dead-letter the whole request for one sum.
 *
 * An agent span that records the usage of the calls it made (a GenAI `invoke_agent` span's `gen_ai.usage.*`,
 * OtherObservation `enclosedUsage`) is a wrapper in the same sense: with its calls inside it, their nest's outermost
 * span, its usage and theirs counted once as below; alone, a remote agent whose calls no span of the trace records,
 * and its usage is the only record of them — leaving it out would read lower than what the request used.
 *
 * A call is a nest of generation spans (nested-stage-spans.ts): instrumentations
 * that trace every method write one LLM call as generation spans inside
 * generation spans (LlamaIndex's `OpenAILike.predict` → `.chat` → `.chat`, or a
 * preparation step beside the call, `_prepare_chat_with_tools`) and record its
 * usage on one of them. Such a nest is known when any of its spans carries the
 * value; a wrapper carrying none is no call left out. The limit: two calls
 * inside one wrapper, only one of which recorded its usage, are taken for one
 * known call — the spans do not say which spans are calls.
 *
 * What is summed is each call's value once. A nest may carry the same call's
 * counts on more than one level: OpenInference's LangChain `ChatOpenAI` span
 * (from LangChain's result) around the OpenAI instrumentation's span (from the
 * provider's response), or LlamaIndex's `chat` inside `chat` when both write
 * `llm.token_count.*`. Adding every span's count would read the call twice.
 * Within a nest, a span's value is read with what is inside it, from the
 * innermost spans out: the generation spans directly inside a span (the
 * nearest ones below it, whatever non-generation spans lie between) are added
 * up — they are calls, or parts, beside each other — and then
 * - the span carries no value: the value inside it;
 * - nothing inside carries it: the span's own (a wrapper that alone records
 *   the call, or beside a preparation step that records nothing);
 * - both carry it and agree: that value, once. Neither level is preferred:
 *   they say the same;
 * - both carry it and disagree: the larger, with a note on the span naming
 *   both. A wrapper's count covers everything it encloses, so a wrapper that
 *   records MORE than the spans inside it covers usage they did not record (a
 *   second call inside it, a call it made through a client no instrumentation
 *   traced): taking the inner sum would read lower than what it used. A
 *   wrapper that records LESS than the spans inside it records only part of
 *   them (a retry whose every attempt is a span inside it, the wrapper keeping
 *   the last response's usage): taking the wrapper's would leave attempts out.
 *   The larger is never a sum of both (the same usage twice) and never below
 *   what either level recorded; which of the two is exact the spans do not
 *   say, hence the note, rather than a silent choice.
 * Preferring the innermost level alone would undercount the wrapper-covers-
 * more case; preferring the outermost alone, the retry; summing both, every
 * nest that records twice. The nests in test/golden carry their counts on one
 * level only (LlamaIndex: the innermost `chat`), so their sums are unchanged.
 * Cost is only ever what the trace recorded (`llm.cost.total`): ragscope
 * computes none from token prices.
 */
import type { MalformedAttributeNote } from "../../contracts/case-result.js";
import { isWithinLargestMeasurement, LARGEST_MEASUREMENT } from "../../core/largest-measurement.js";
import { listedInWords } from "../../core/listed-in-words.js";
import { USAGE_SUMS, type NormalizedSpan, type UsageSum } from "../04-normalize/stage-observation.js";
import { enclosingSpansAmong } from "./nested-stage-spans.js";

export interface RequestUsage {
  sums: Record<UsageSum, number | null>;
  notes: MalformedAttributeNote[];
}

/** Whether the span records usage that belongs in the request's sums: a generation, or an agent's record of its calls'. */
function recordsUsage(item: NormalizedSpan): boolean {
  return item.observation.stage === "generate" || ((item.observation.stage === "other" || item.observation.stage === "request") && item.observation.enclosedUsage !== undefined);
}

/** A usage span's recorded value of one sum; null when the span did not carry it. */
function recorded(item: NormalizedSpan, sum: UsageSum): number | null {
  const observation = item.observation;
  const usage = observation.stage === "generate" ? observation : observation.stage === "other" || observation.stage === "request" ? observation.enclosedUsage : undefined;
  if (usage === undefined) return null;
  if (sum === "input_tokens") return usage.inputTokens;
  if (sum === "output_tokens") return usage.outputTokens;
  if (sum === "total_tokens") return usage.totalTokens;
  return usage.cost;
}

/** How a note names a usage span that is no LLM call: a span that records the usage of the calls it made. */
const AGENT_SPAN = "agent span (it records the usage of the calls it made)";

/** The usage sums a span leaves out, as its reader said (UncountedUsage in stage-observation.ts). */
function uncountedUsage(item: NormalizedSpan): readonly UsageSum[] {
  const observation = item.observation;
  return observation.stage === "generate" || observation.stage === "other" || observation.stage === "request" ? (observation.uncountedUsage ?? []) : [];
}

/** Why the request's usage sums are not available for a span that leaves its usage out. */
function usageNotCounted(sums: readonly UsageSum[]): string {
  const named = `${listedInWords(sums, "and")} ${sums.length === 1 ? "is" : "are"}`;
  return (
    `this span's ${named} not known (this span's other notes say why), and the request's are summed over its LLM calls: ` +
    `the request's ${named} not available, rather than a sum that leaves this span out and reads lower than what the request used`
  );
}

/** Why the request's usage sums are not available for an LLM call that recorded none of them while another call did. */
function usageNotRecorded(sums: readonly UsageSum[], nested: boolean, kind: string): string {
  const verb = sums.length === 1 ? "is" : "are";
  return (
    `this ${kind} recorded no ${listedInWords(sums, "or")}${nested ? " (nor did any generation span inside it)" : ""}, while another of the request's LLM calls did; ` +
    `the request's ${listedInWords(sums, "and")} ${verb} summed over its LLM calls, so ${sums.length === 1 ? "it is" : "they are"} not available, ` +
    "rather than a sum that leaves this call out and reads lower than what the request used. " +
    `Its SDK, instrumentation or provider did not record ${sums.length === 1 ? "it" : "them"} (a streamed call without usage, an instrumentation that does not write it, a provider that returns none): not known which`
  );
}

/** Why one call's value in the request's sums is the larger of two levels of its nest that recorded different values. */
function levelsDisagree(disagreements: readonly Disagreement[], kind: string): string {
  const each = disagreements.map((disagreement) => `${disagreement.sum}: ${disagreement.own} on this span, ${disagreement.inside} inside it in all`).join("; ");
  const taken = listedInWords(disagreements.map((disagreement) => `${disagreement.sum} ${Math.max(disagreement.own, disagreement.inside)}`), "and");
  return (
    `this ${kind} and the LLM spans inside it (one call's spans, or calls inside one wrapper) recorded different usage — ${each}. ` +
    `The request's sums count them once, at the larger (${taken}): ` +
    "not both added, which would count the same usage twice, nor the smaller, which would leave out usage the other level records — " +
    "a wrapper that records more covers usage the spans inside it did not record (a second call, a client no instrumentation traced), " +
    "spans inside a wrapper that records less are attempts it records one of (a retry). Which of the two is exact the spans do not say"
  );
}

/**
 * Whether two levels' values agree. Token counts are whole numbers, compared exactly; costs added up inside a wrapper
 * differ from the wrapper's own in their last binary digits (0.1 + 0.2 is not 0.3), which is no disagreement.
 */
function agree(own: number, inside: number): boolean {
  return Math.abs(own - inside) <= 1e-9 * Math.max(Math.abs(own), Math.abs(inside));
}

/**
 * One sum whose addition went beyond LARGEST_MEASUREMENT (2^53 − 1), or beyond the largest number a value can hold
 * (about 1.8e308): the values added, what they made, and whether they were the request's LLM calls (this span the
 * last of them) or the spans inside this one.
 */
interface Overflow {
  sum: UsageSum;
  values: number[];
  total: number;
  where: "request" | "inside";
}

/**
 * Why the request's sum is not available when adding up its calls' values (each within the bound) makes a number
 * beyond it: no request measures that much (a unit or encoding mistake), the stores count such a value not
 * applicable (core/largest-measurement.ts), and Infinity is no count or cost at all, which fails the Case Result's
 * schema and would dead-letter the whole request — its answer, its retrieval, everything else it recorded — for one sum.
 */
function sumOverflows(overflows: readonly Overflow[], kind: string): string {
  const each = overflows
    .map((overflow) => `${overflow.sum}: ${valuesAdded(overflow.values)} ${overflow.where === "request" ? "over the request's LLM calls, this one the last" : `over the LLM spans inside this ${kind}`}, ${madeBeyond(overflow)}`)
    .join("; ");
  return (
    `adding up the recorded usage goes beyond what ragscope reads as a measurement — ${each}. ` +
    `The request's ${listedInWords(overflows.map((overflow) => overflow.sum), "and")} ${overflows.length === 1 ? "is" : "are"} not available (null): no request measures that much (a unit or encoding mistake), ` +
    "and such sums would add up beyond the largest number the dashboards' means can hold; the rest of the request is read as recorded"
  );
}

/** What a sum beyond the bound made, in words: the number and the bound it passed, or Infinity's own reason. */
function madeBeyond(overflow: Overflow): string {
  if (!Number.isFinite(overflow.total)) return "which goes beyond the largest number a value can hold (about 1.8e308): Infinity, no count or cost";
  return `which makes ${overflow.total}, beyond ${LARGEST_MEASUREMENT} (2^53 − 1), the most ragscope reads as ${overflow.sum === "cost" ? "a cost" : "a token count"}`;
}

/** How many of the values added a note names: a request of thousands of calls gets a line, not thousands of numbers. */
const NAMED_VALUES = 5;

/** The values added, as a sum, the first NAMED_VALUES of them and how many there were in all. */
function valuesAdded(values: readonly number[]): string {
  if (values.length <= NAMED_VALUES) return values.join(" + ");
  return `${values.slice(0, NAMED_VALUES).join(" + ")} + … (${values.length} values in all)`;
}

/** One sum on which a span and the generation spans inside it recorded different values. */
interface Disagreement {
  sum: UsageSum;
  own: number;
  inside: number;
}

/** A nest of usage spans (recordsUsage): its outermost span, its spans, and each span's usage spans directly inside it. */
interface Nest {
  outermost: NormalizedSpan;
  spans: NormalizedSpan[];
  inside: Map<NormalizedSpan, NormalizedSpan[]>;
}

/**
 * The request's LLM calls: each nest of usage spans (a lone generation span is a nest of one; an agent span with the
 * calls inside it is one nest, and alone — a remote agent's calls, which no span of the trace records — a nest of
 * one), in trace order.
 */
function llmCalls(normalized: readonly NormalizedSpan[], usageSpans: readonly NormalizedSpan[]): Nest[] {
  const enclosing = enclosingSpansAmong(normalized, recordsUsage);
  const inside = new Map<NormalizedSpan, NormalizedSpan[]>();
  for (const item of usageSpans) {
    const around = enclosing.get(item.span.spanId);
    if (around === undefined) continue;
    const spans = inside.get(around);
    if (spans === undefined) inside.set(around, [item]);
    else spans.push(item);
  }
  return usageSpans
    .filter((item) => !enclosing.has(item.span.spanId))
    .map((outermost) => {
      const spans: NormalizedSpan[] = [];
      const waiting = [outermost];
      while (waiting.length > 0) {
        const item = waiting.pop()!;
        spans.push(item);
        waiting.push(...(inside.get(item) ?? []));
      }
      return { outermost, spans, inside };
    });
}

/**
 * A nest's value of one sum, each span's read with what is inside it (the header: the larger where they disagree),
 * and the spans whose level disagreed with what is inside them. Null when no span of the nest carries the value.
 * Worked from the innermost spans out (the nest's spans were listed outermost first), without recursion: a deep nest
 * costs no stack.
 */
function nestValue(nest: Nest, sum: UsageSum, disagreements: Map<NormalizedSpan, Disagreement[]>, overflows: Map<NormalizedSpan, Overflow[]>): number | null {
  const values = new Map<NormalizedSpan, number | null>();
  for (const item of [...nest.spans].reverse()) {
    const insideValues = (nest.inside.get(item) ?? []).map((inner) => values.get(inner) ?? null).filter((value): value is number => value !== null);
    const inside = insideValues.length === 0 ? null : insideValues.reduce((total, value) => total + value, 0);
    if (inside !== null && !isWithinLargestMeasurement(inside)) {
      // Beyond the bound: no count to compare the span's own with (which is within it). Noted where it first went
      // beyond; the spans around it carry it on (their inside sums are beyond it too) to the request's sum, which is null.
      if (insideValues.every(isWithinLargestMeasurement)) overflows.set(item, [...(overflows.get(item) ?? []), { sum, values: insideValues, total: inside, where: "inside" }]);
      values.set(item, inside);
      continue;
    }
    const own = recorded(item, sum);
    if (own !== null && inside !== null && !agree(own, inside)) disagreements.set(item, [...(disagreements.get(item) ?? []), { sum, own, inside }]);
    values.set(item, own === null ? inside : inside === null || agree(own, inside) ? own : Math.max(own, inside));
  }
  return values.get(nest.outermost) ?? null;
}

export function requestUsage(normalized: readonly NormalizedSpan[]): RequestUsage {
  const uncounted = normalized.filter((item) => uncountedUsage(item).length > 0);
  const usageSpans = normalized.filter(recordsUsage);
  const calls = llmCalls(normalized, usageSpans);

  const sums: Record<UsageSum, number | null> = { input_tokens: null, output_tokens: null, total_tokens: null, cost: null };
  const notRecorded = new Map<NormalizedSpan, UsageSum[]>();
  const disagreements = new Map<NormalizedSpan, Disagreement[]>();
  const overflows = new Map<NormalizedSpan, Overflow[]>();
  for (const sum of USAGE_SUMS) {
    const known = calls.map((call) => ({ call, value: nestValue(call, sum, disagreements, overflows) })).filter((entry): entry is { call: Nest; value: number } => entry.value !== null);
    const values = known.map((entry) => entry.value);
    // A call a span's reader already named for this sum has its note, saying why; it is not named twice.
    const missing = calls.filter((call) => call.spans.every((item) => recorded(item, sum) === null && !uncountedUsage(item).includes(sum))).map((call) => call.outermost);
    const leftOut = uncounted.some((item) => uncountedUsage(item).includes(sum)) || (values.length > 0 && missing.length > 0);
    const total = leftOut || values.length === 0 ? null : values.reduce((total, value) => total + value, 0);
    sums[sum] = isWithinLargestMeasurement(total) ? total : null;
    if (total !== null && !isWithinLargestMeasurement(total) && values.every(isWithinLargestMeasurement)) {
      const last = known.at(-1)!.call;
      overflows.set(last.outermost, [...(overflows.get(last.outermost) ?? []), { sum, values, total, where: "request" }]);
    }
    if (values.length === 0) continue;
    for (const call of missing) notRecorded.set(call, [...(notRecorded.get(call) ?? []), sum]);
  }

  const note = (item: NormalizedSpan, error: string): MalformedAttributeNote => ({ span_id: item.span.spanId, span_name: item.span.name, attribute: "generation", kind: "unreadable_value", error });
  return {
    sums,
    notes: [
      ...uncounted.map((item) => note(item, usageNotCounted(uncountedUsage(item)))),
      ...calls.flatMap((call) => {
        const missing = notRecorded.get(call.outermost);
        return missing === undefined ? [] : [note(call.outermost, usageNotRecorded(missing, call.spans.length > 1, call.outermost.observation.stage === "generate" ? "LLM call" : AGENT_SPAN))];
      }),
      ...usageSpans.flatMap((item) => {
        const overflowed = overflows.get(item);
        return overflowed === undefined ? [] : [note(item, sumOverflows(overflowed, item.observation.stage === "generate" ? "LLM span" : AGENT_SPAN))];
      }),
      ...usageSpans.flatMap((item) => {
        const disagreed = disagreements.get(item);
        return disagreed === undefined ? [] : [note(item, levelsDisagree(disagreed, item.observation.stage === "generate" ? "LLM span" : AGENT_SPAN))];
      }),
    ],
  };
}
