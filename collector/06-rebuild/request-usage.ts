/**
 * The request's token counts and cost (`rag_observation.generation`: input,
 * output and total tokens, cost), each the sum over the request's LLM calls,
 * and the notes that say why one is not available.
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
 *   `uncountedUsage`): null, with a note naming the span.
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
 * What is summed is as before: every generation span that carries the value.
 * Cost is only ever what the trace recorded (`llm.cost.total`): ragscope
 * computes none from token prices.
 */
import type { NormalizedSpan, UsageSum } from "../04-normalize/stage-observation.js";
import { outermostSpansOfStage } from "./nested-stage-spans.js";

const USAGE_SUMS: readonly UsageSum[] = ["input_tokens", "output_tokens", "total_tokens", "cost"];

export interface UsageNote {
  span_id: string;
  span_name: string;
  attribute: "generation";
  kind: "unreadable_value";
  error: string;
}

export interface RequestUsage {
  sums: Record<UsageSum, number | null>;
  notes: UsageNote[];
}

/** A generation span's recorded value of one sum; null when the span did not carry it. */
function recorded(item: NormalizedSpan, sum: UsageSum): number | null {
  const observation = item.observation;
  if (observation.stage !== "generate") return null;
  if (sum === "input_tokens") return observation.inputTokens;
  if (sum === "output_tokens") return observation.outputTokens;
  if (sum === "total_tokens") return observation.totalTokens;
  return observation.cost;
}

/** The usage sums a span leaves out, as its reader said (UncountedUsage in stage-observation.ts). */
function uncountedUsage(item: NormalizedSpan): readonly UsageSum[] {
  const observation = item.observation;
  return observation.stage === "generate" || observation.stage === "other" ? (observation.uncountedUsage ?? []) : [];
}

/** "a", "a and b", "a, b and c" (or "or"). */
function listed(sums: readonly UsageSum[], conjunction: "and" | "or"): string {
  return sums.length === 1 ? sums[0]! : `${sums.slice(0, -1).join(", ")} ${conjunction} ${sums.at(-1)}`;
}

/** Why the request's usage sums are not available for a span that leaves its usage out. */
function usageNotCounted(sums: readonly UsageSum[]): string {
  const named = `${listed(sums, "and")} ${sums.length === 1 ? "is" : "are"}`;
  return (
    `this span's ${named} not known (this span's other notes say why), and the request's are summed over its LLM calls: ` +
    `the request's ${named} not available, rather than a sum that leaves this span out and reads lower than what the request used`
  );
}

/** Why the request's usage sums are not available for an LLM call that recorded none of them while another call did. */
function usageNotRecorded(sums: readonly UsageSum[], nested: boolean): string {
  const verb = sums.length === 1 ? "is" : "are";
  return (
    `this LLM call recorded no ${listed(sums, "or")}${nested ? " (nor did any generation span inside it)" : ""}, while another of the request's LLM calls did; ` +
    `the request's ${listed(sums, "and")} ${verb} summed over its LLM calls, so ${sums.length === 1 ? "it is" : "they are"} not available, ` +
    "rather than a sum that leaves this call out and reads lower than what the request used. " +
    `Its SDK, instrumentation or provider did not record ${sums.length === 1 ? "it" : "them"} (a streamed call without usage, an instrumentation that does not write it, a provider that returns none): not known which`
  );
}

export function requestUsage(normalized: readonly NormalizedSpan[]): RequestUsage {
  const uncounted = normalized.filter((item) => uncountedUsage(item).length > 0);
  const generations = normalized.filter((item) => item.observation.stage === "generate");

  // Each call, by its outermost generation span, with the spans of its nest.
  const calls = new Map<NormalizedSpan, NormalizedSpan[]>();
  const outermost = outermostSpansOfStage(normalized, "generate");
  for (const item of generations) {
    const call = outermost.get(item.span.spanId) ?? item;
    const spans = calls.get(call);
    if (spans === undefined) calls.set(call, [item]);
    else spans.push(item);
  }

  const sums: Record<UsageSum, number | null> = { input_tokens: null, output_tokens: null, total_tokens: null, cost: null };
  const notRecorded = new Map<NormalizedSpan, UsageSum[]>();
  for (const sum of USAGE_SUMS) {
    const values = generations.map((item) => recorded(item, sum)).filter((value): value is number => value !== null);
    // A call a span's reader already named for this sum has its note, saying why; it is not named twice.
    const missing = [...calls].filter(([, spans]) => spans.every((item) => recorded(item, sum) === null && !uncountedUsage(item).includes(sum))).map(([call]) => call);
    const leftOut = uncounted.some((item) => uncountedUsage(item).includes(sum)) || (values.length > 0 && missing.length > 0);
    sums[sum] = leftOut || values.length === 0 ? null : values.reduce((total, value) => total + value, 0);
    if (values.length === 0) continue;
    for (const call of missing) notRecorded.set(call, [...(notRecorded.get(call) ?? []), sum]);
  }

  const note = (item: NormalizedSpan, error: string): UsageNote => ({ span_id: item.span.spanId, span_name: item.span.name, attribute: "generation", kind: "unreadable_value", error });
  return {
    sums,
    notes: [
      ...uncounted.map((item) => note(item, usageNotCounted(uncountedUsage(item)))),
      ...[...calls].flatMap(([call, spans]) => {
        const missing = notRecorded.get(call);
        return missing === undefined ? [] : [note(call, usageNotRecorded(missing, spans.length > 1))];
      }),
    ],
  };
}
