/**
 * Stage spans nested in a span of the same stage. Instrumentations that trace
 * every method write one stage as a nest of spans — OpenInference's LlamaIndex
 * instrumentation: `OpenAILike.predict` → `OpenAILike.chat` → `OpenAILike.chat`
 * (all LLM spans, only the innermost with token counts), or
 * `VectorIndexRetriever.retrieve` → `._retrieve`
 * (test/golden/traces/llama-index-openinference); and a retriever built of
 * retrievers (LlamaIndex's QueryFusionRetriever) is a retrieve span holding
 * the fused ranking around the retrieve spans of each retriever it asked.
 * - Time: the outermost span of a nest is the stage's time; each span inside
 *   it is part of that same time, and adding it again would count the stage
 *   twice or more (the per-stage latency adds up a request's spans of each stage).
 * - Retrieved documents: a retrieval inside a retrieval that recorded its
 *   documents is a step of that retrieval, whose documents are the ranking it
 *   returned; appending the inner lists would rank the same chunks again.
 * - Usage: a nest of generation spans records its LLM call's token counts and
 *   cost on whichever of its spans the instrumentation writes them (the
 *   innermost, in LlamaIndex's), so the wrappers around that span, carrying
 *   none, are not calls whose usage is missing; and when more than one level
 *   carries them (OpenInference's LangChain `ChatOpenAI` span around the
 *   OpenAI instrumentation's span of the same call), adding both would count
 *   the call twice (request-usage.ts).
 */
import type { NormalizedSpan, RetrieveObservation } from "../04-normalize/stage-observation.js";

/**
 * For each span, a value folded down its ancestry: `fromParent(the parent's value, the parent)`, from the root down,
 * and `root` for a span whose parent is not in the trace. Worked out once per span, so a deep trace costs one pass, not
 * one walk to the root per span. Parents that lead back to a span already on the way up (a malformed trace) are no
 * ancestry at all: the spans of such a path get `root`, and the spans below it fold from them as from any parent.
 * A span id that several spans carry is worked out for the first of them.
 */
function foldAncestry<Value>(normalized: readonly NormalizedSpan[], root: Value, fromParent: (parentValue: Value, parent: NormalizedSpan) => Value): Map<string, Value> {
  const byId = new Map<string, NormalizedSpan>();
  for (const item of normalized) if (!byId.has(item.span.spanId)) byId.set(item.span.spanId, item);
  const known = new Map<string, Value>();
  for (const item of normalized) {
    const path: NormalizedSpan[] = [];
    const onPath = new Set<string>();
    let current: NormalizedSpan | undefined = item;
    while (current !== undefined && !known.has(current.span.spanId) && !onPath.has(current.span.spanId)) {
      path.push(current);
      onPath.add(current.span.spanId);
      current = byId.get(current.span.parentSpanId);
    }
    if (current !== undefined && onPath.has(current.span.spanId)) {
      for (const spanOnPath of path) known.set(spanOnPath.span.spanId, root);
      continue;
    }
    for (let index = path.length - 1; index >= 0; index -= 1) {
      const child = path[index]!;
      const parent = byId.get(child.span.parentSpanId);
      known.set(child.span.spanId, parent === undefined ? root : fromParent(known.get(parent.span.spanId)!, parent));
    }
  }
  return known;
}

/** For each span, the labels its ancestors (parent, grandparent, …) carry: its parent's plus the parent's own. */
function ancestorLabels(normalized: readonly NormalizedSpan[], labelsOf: (item: NormalizedSpan) => readonly string[]): Map<string, ReadonlySet<string>> {
  const none: ReadonlySet<string> = new Set();
  return foldAncestry<ReadonlySet<string>>(normalized, none, (labels, parent) => new Set([...labels, ...labelsOf(parent)]));
}

/** The span ids of the spans whose ancestors' labels satisfy `enclosed`. */
function spansEnclosedBy(
  normalized: readonly NormalizedSpan[],
  labelsOf: (item: NormalizedSpan) => readonly string[],
  enclosed: (item: NormalizedSpan, ancestors: ReadonlySet<string>) => boolean,
): Set<string> {
  const labels = ancestorLabels(normalized, labelsOf);
  return new Set(normalized.filter((item) => enclosed(item, labels.get(item.span.spanId) ?? new Set())).map((item) => item.span.spanId));
}

/** Stage spans (not "other") inside a span of their own stage: their time is already the enclosing span's. */
export function spansInsideTheirOwnStage(normalized: readonly NormalizedSpan[]): Set<string> {
  return spansEnclosedBy(
    normalized,
    (item) => (item.observation.stage === "other" ? [] : [item.observation.stage]),
    (item, ancestors) => item.observation.stage !== "other" && ancestors.has(item.observation.stage),
  );
}

const RECORDED_RETRIEVAL = "retrieval with documents";

/** Retrieve spans inside a retrieve span that recorded documents: their documents are steps towards its ranking. */
export function retrievalsInsideARecordedRetrieval(normalized: readonly NormalizedSpan[]): Set<string> {
  return spansEnclosedBy(
    normalized,
    (item) => (item.observation.stage === "retrieve" && (item.observation as RetrieveObservation).documents !== null ? [RECORDED_RETRIEVAL] : []),
    (item, ancestors) => item.observation.stage === "retrieve" && ancestors.has(RECORDED_RETRIEVAL),
  );
}

/**
 * Retrieve spans that recorded no documents and hold, somewhere inside them, a retrieve span that did: a wrapper
 * around the retrieval (a custom retriever calling the vector index), whose documents are those inside it. Such a
 * span is no block missing from the joined ranking. Each span is visited once: the walk up from a recorded retrieval
 * stops at a span already marked (its ancestors are marked too) or met on the way (a malformed trace's loop).
 */
export function retrievalsAroundARecordedRetrieval(normalized: readonly NormalizedSpan[]): Set<string> {
  const byId = new Map<string, NormalizedSpan>();
  for (const item of normalized) if (!byId.has(item.span.spanId)) byId.set(item.span.spanId, item);
  const visited = new Set<string>();
  const around = new Set<string>();
  for (const item of normalized) {
    if (item.observation.stage !== "retrieve" || (item.observation as RetrieveObservation).documents === null) continue;
    let current = byId.get(item.span.parentSpanId);
    while (current !== undefined && !visited.has(current.span.spanId)) {
      visited.add(current.span.spanId);
      if (current.observation.stage === "retrieve" && (current.observation as RetrieveObservation).documents === null) around.add(current.span.spanId);
      current = byId.get(current.span.parentSpanId);
    }
  }
  return around;
}

/**
 * For each member span (`isMember`: the generation spans, and the spans that record their calls' usage) inside a
 * member span, the innermost such span: its place in the nest. The members that no member encloses are the nests'
 * outermost spans, and following the enclosing spans from any member leads to its nest's outermost one —
 * LlamaIndex's `OpenAILike.predict` → `.chat` → `.chat` is one LLM call, and its usage is read along that chain
 * (request-usage.ts), not only from the outermost span, because a wrapper and the span inside it may both carry the
 * same call's counts. Worked out once per span (foldAncestry): a span of a malformed trace's looping path is enclosed
 * by nothing, as spansInsideTheirOwnStage leaves it, so the enclosing spans never lead round in a loop.
 */
export function enclosingSpansAmong(normalized: readonly NormalizedSpan[], isMember: (item: NormalizedSpan) => boolean): Map<string, NormalizedSpan> {
  // Per span id: the innermost member among its ancestors, null when there is none.
  const innermostAbove = foldAncestry<NormalizedSpan | null>(normalized, null, (above, parent) => (isMember(parent) ? parent : above));
  const enclosing = new Map<string, NormalizedSpan>();
  const seen = new Set<string>();
  for (const item of normalized) {
    if (seen.has(item.span.spanId)) continue;
    seen.add(item.span.spanId);
    const around = innermostAbove.get(item.span.spanId) ?? null;
    if (around !== null && isMember(item)) enclosing.set(item.span.spanId, around);
  }
  return enclosing;
}
