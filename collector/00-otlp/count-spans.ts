import type { TracesDocument } from "./traces-document.js";

/** How many spans a document holds, across all its resources and scopes. */
export function countSpans(document: TracesDocument): number {
  let count = 0;
  for (const resourceSpans of document.resourceSpans) {
    for (const scopeSpans of resourceSpans.scopeSpans) count += scopeSpans.spans.length;
  }
  return count;
}
