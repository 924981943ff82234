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
import type { NormalizedSpan, ObservedStage, RetrieveObservation } from "../04-normalize/stage-observation.js";

/**
 * For each span, the labels its ancestors (parent, grandparent, …) carry. Each
 * span's set is its parent's plus the parent's labels, worked out once per
 * span, so a deep trace costs one pass, not one walk to the root per span.
 * Parents that lead back to a span already on the way up (a malformed trace)
 * are no ancestry at all: the spans of such a path get no labels from it.
 */
function ancestorLabels(normalized: readonly NormalizedSpan[], labelsOf: (item: NormalizedSpan) => readonly string[]): Map<string, ReadonlySet<string>> {
  const byId = new Map<string, NormalizedSpan>();
  for (const item of normalized) if (!byId.has(item.span.spanId)) byId.set(item.span.spanId, item);
  const known = new Map<string, ReadonlySet<string>>();
  const none: ReadonlySet<string> = new Set();
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
      for (const spanOnPath of path) known.set(spanOnPath.span.spanId, none);
      continue;
    }
    for (let index = path.length - 1; index >= 0; index -= 1) {
      const child = path[index]!;
      const parent = byId.get(child.span.parentSpanId);
      const labels = parent === undefined ? none : new Set([...known.get(parent.span.spanId)!, ...labelsOf(parent)]);
      known.set(child.span.spanId, labels);
    }
  }
  return known;
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
 * For each span of `stage` inside a span of `stage`, the innermost such span: its place in the nest. The spans of
 * `stage` that no span of `stage` encloses are the nests' outermost spans, and following the enclosing spans from any
 * span leads to its nest's outermost one — LlamaIndex's `OpenAILike.predict` → `.chat` → `.chat` is one LLM call, and
 * its usage is read along that chain (request-usage.ts), not only from the outermost span, because a wrapper and the
 * span inside it may both carry the same call's counts. Worked out once per span: the walk up from a span stops at a
 * span already known. Parents that lead back to a span already on the way up (a malformed trace) are no ancestry: each
 * span of such a path is enclosed by nothing, as spansInsideTheirOwnStage leaves it. Every span named as enclosing was
 * worked out before the span it encloses, so the enclosing spans never lead round in a loop.
 */
export function enclosingSpansOfStage(normalized: readonly NormalizedSpan[], stage: ObservedStage): Map<string, NormalizedSpan> {
  const byId = new Map<string, NormalizedSpan>();
  for (const item of normalized) if (!byId.has(item.span.spanId)) byId.set(item.span.spanId, item);
  // Per span id: the innermost span of `stage` among the span and its ancestors, null when there is none.
  const innermost = new Map<string, NormalizedSpan | null>();
  const enclosing = new Map<string, NormalizedSpan>();
  const ofStage = (item: NormalizedSpan) => (item.observation.stage === stage ? item : null);
  for (const item of normalized) {
    const path: NormalizedSpan[] = [];
    const onPath = new Set<string>();
    let current: NormalizedSpan | undefined = item;
    while (current !== undefined && !innermost.has(current.span.spanId) && !onPath.has(current.span.spanId)) {
      path.push(current);
      onPath.add(current.span.spanId);
      current = byId.get(current.span.parentSpanId);
    }
    if (current !== undefined && onPath.has(current.span.spanId)) {
      for (const spanOnPath of path) innermost.set(spanOnPath.span.spanId, ofStage(spanOnPath));
      continue;
    }
    let above = current === undefined ? null : innermost.get(current.span.spanId)!;
    for (let index = path.length - 1; index >= 0; index -= 1) {
      const spanOnPath = path[index]!;
      if (above !== null && spanOnPath.observation.stage === stage) enclosing.set(spanOnPath.span.spanId, above);
      above = ofStage(spanOnPath) ?? above;
      innermost.set(spanOnPath.span.spanId, above);
    }
  }
  return enclosing;
}
