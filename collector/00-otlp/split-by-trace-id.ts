/**
 * One document per trace, as the OpenTelemetry Collector's Kafka exporter does
 * with `partition_traces_by_id` (shared/reference/interop.md §4), so every
 * message of a trace can be keyed by its trace id and land in one partition.
 *
 * Each trace's document keeps the resource and scope its spans came with. The
 * Collector emits one message per (ResourceSpans, ScopeSpans, trace id); here
 * those pieces are gathered into one document per trace, which is what a keyed
 * message needs and costs fewer messages. The order of traces, resources, scopes
 * and spans is the order of first appearance in the input. The documents share
 * the input's resource, scope and span objects rather than copying them.
 */
import type { ResourceSpansDocument, ScopeSpansDocument, TracesDocument } from "./traces-document.js";

export function splitByTraceId(document: TracesDocument): Map<string, TracesDocument> {
  const traces = new Map<string, TracesDocument>();
  for (const resourceSpans of document.resourceSpans) {
    // The pieces of this ResourceSpans already opened in each trace's document.
    const resourcePieces = new Map<string, ResourceSpansDocument>();
    for (const scopeSpans of resourceSpans.scopeSpans) {
      const scopePieces = new Map<string, ScopeSpansDocument>();
      for (const span of scopeSpans.spans) {
        let scopePiece = scopePieces.get(span.traceId);
        if (scopePiece === undefined) {
          let resourcePiece = resourcePieces.get(span.traceId);
          if (resourcePiece === undefined) {
            resourcePiece = { resource: resourceSpans.resource, scopeSpans: [], schemaUrl: resourceSpans.schemaUrl };
            resourcePieces.set(span.traceId, resourcePiece);
            let trace = traces.get(span.traceId);
            if (trace === undefined) {
              trace = { resourceSpans: [] };
              traces.set(span.traceId, trace);
            }
            trace.resourceSpans.push(resourcePiece);
          }
          scopePiece = { scope: scopeSpans.scope, spans: [], schemaUrl: scopeSpans.schemaUrl };
          scopePieces.set(span.traceId, scopePiece);
          resourcePiece.scopeSpans.push(scopePiece);
        }
        scopePiece.spans.push(span);
      }
    }
  }
  return traces;
}
