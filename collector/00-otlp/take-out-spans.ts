/**
 * Spans taken out of a document and kept, rather than only counted
 * (reject-invalid-ids.ts and reject-future-spans.ts count theirs, and
 * reject-zero-time-spans.ts counts what this takes: the receiver tells its
 * client, who still has the spans). A Kafka evaluator has
 * no client to tell: what it refuses is all there is of those spans, so it
 * keeps them, to dead-letter them as a request of their own.
 */
import type { ResourceSpansDocument, SpanDocument, TracesDocument } from "./traces-document.js";

/**
 * Removes the spans `refuse` picks from `document`, in place, and returns them as a document of their own — each
 * under its resource and scope (shared, not copied), in their order — or null when it picked none.
 */
export function takeOutSpans(document: TracesDocument, refuse: (span: SpanDocument) => boolean): TracesDocument | null {
  const taken: ResourceSpansDocument[] = [];
  for (const resourceSpans of document.resourceSpans) {
    let takenResource: ResourceSpansDocument | null = null;
    for (const scopeSpans of resourceSpans.scopeSpans) {
      if (!scopeSpans.spans.some(refuse)) continue;
      const kept: SpanDocument[] = [];
      const refused: SpanDocument[] = [];
      for (const span of scopeSpans.spans) (refuse(span) ? refused : kept).push(span);
      scopeSpans.spans = kept;
      if (takenResource === null) {
        takenResource = { resource: resourceSpans.resource, scopeSpans: [], schemaUrl: resourceSpans.schemaUrl };
        taken.push(takenResource);
      }
      takenResource.scopeSpans.push({ scope: scopeSpans.scope, spans: refused, schemaUrl: scopeSpans.schemaUrl });
    }
  }
  return taken.length === 0 ? null : { resourceSpans: taken };
}
