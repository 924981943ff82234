/**
 * A trace's document cut into parts of at most `maxSpans` spans, each part
 * keeping the resource and scope of its spans, in the input's order.
 *
 * Why: the evaluation loop decodes each message on the main thread, one
 * message per slice (collector/07-evaluate/evaluation-worker.ts). A message
 * per trace made the slice as long as the trace was large — a 2,000-span
 * trace took a few hundred milliseconds of decoding during which no other
 * client was answered. Parts bound that slice by construction; the assembler
 * joins them as it joins a trace sent in several requests.
 */
import type { ResourceSpansDocument, TracesDocument } from "./traces-document.js";

export function splitIntoParts(trace: TracesDocument, maxSpans: number): TracesDocument[] {
  const parts: TracesDocument[] = [];
  let part: TracesDocument = { resourceSpans: [] };
  let spansInPart = 0;
  for (const resourceSpans of trace.resourceSpans) {
    let resourcePiece: ResourceSpansDocument | null = null;
    for (const scopeSpans of resourceSpans.scopeSpans) {
      for (let start = 0; start < scopeSpans.spans.length; ) {
        if (spansInPart === maxSpans) {
          parts.push(part);
          part = { resourceSpans: [] };
          spansInPart = 0;
          resourcePiece = null;
        }
        if (resourcePiece === null) {
          resourcePiece = { resource: resourceSpans.resource, scopeSpans: [], schemaUrl: resourceSpans.schemaUrl };
          part.resourceSpans.push(resourcePiece);
        }
        const taken = scopeSpans.spans.slice(start, start + (maxSpans - spansInPart));
        resourcePiece.scopeSpans.push({ scope: scopeSpans.scope, spans: taken, schemaUrl: scopeSpans.schemaUrl });
        spansInPart += taken.length;
        start += taken.length;
      }
    }
  }
  if (spansInPart > 0) parts.push(part);
  return parts;
}
