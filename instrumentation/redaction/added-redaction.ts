/**
 * Redaction that can be added after start, in front of ragscope's export path.
 * A second `setupRagscope` call (the application's own, after the
 * `ragscope/register` preload) may ask for redaction the running export path
 * does not do; that path cannot be rebuilt (its queue, sockets and worker are
 * live), so the stricter redactors are added here, and a RedactingSpanExporter
 * in front of the path applies them.
 *
 * Added redaction only ever removes more: the running path's own redaction
 * still runs on what this leaves, so the result is the union of both. With
 * nothing added, every span passes as it is (no copy). Spans already queued
 * are redacted too, as they are exported.
 */
import type { Attributes } from "@opentelemetry/api";
import type { Redactor } from "./redactor.js";

export interface AddedRedaction extends Redactor {
  /** Redacts with `redactor` from now on, after the redactors added before. */
  add(redactor: Redactor): void;
}

export function createAddedRedaction(): AddedRedaction {
  const redactors: Redactor[] = [];
  return {
    add: (redactor) => void redactors.push(redactor),
    redact: (text: string) => redactors.reduce((redacted, redactor) => redactor.redact(redacted), text),
    redactAttributes: (attributes: Attributes) => redactors.reduce((redacted, redactor) => redactor.redactAttributes(redacted), attributes),
    counts() {
      const counts: Record<string, number> = {};
      for (const redactor of redactors) for (const [name, count] of Object.entries(redactor.counts())) counts[name] = (counts[name] ?? 0) + count;
      return counts;
    },
  };
}
