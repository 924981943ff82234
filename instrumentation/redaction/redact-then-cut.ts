/**
 * A text over the length limit is redacted first and cut second. Cut first,
 * a secret straddling the limit lost the end that made it recognisable — a
 * card number's last digits (Luhn), a phone number's last four, an e-mail's
 * domain — and its beginning was exported in clear (`Call 13812`). Redacted
 * first, the cut only ever falls in text that is already safe; it is moved
 * back to the start of a replacement it would split, so no half
 * `[REDACTED:…` marker is left either.
 *
 * The work is bounded by the application's own string, which it already
 * holds in memory, and is done only for the few texts over the limit.
 */
import { cutText } from "../../core/cut-text.js";

/** Redacts one attribute's text; the attribute key lets kept keys (ids) stay as they are. */
export type RedactBeforeCut = (key: string, text: string) => string;

const MARKER_START = "[REDACTED:";

export interface RedactedCut {
  readonly text: string;
  /** False when the redacted text fits whole (replacements can make a text shorter). */
  readonly cut: boolean;
}

export function redactThenCut(key: string, text: string, maxLength: number, redact: RedactBeforeCut): RedactedCut {
  const redacted = redact(key, text);
  if (redacted.length <= maxLength) return { text: cutText(redacted, maxLength), cut: false };
  const kept = cutText(redacted, maxLength);
  // The last replacement that starts before the cut: when it ends after it, the cut moves to its start.
  const marker = redacted.lastIndexOf(MARKER_START, kept.length - 1);
  if (marker >= 0 && redacted.indexOf("]", marker) >= kept.length) return { text: kept.slice(0, marker), cut: true };
  return { text: kept, cut: true };
}
