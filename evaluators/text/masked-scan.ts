/**
 * Finding mentions (dates, identifiers, numbers) one family after another:
 * each scan blanks out what it found, so a later family does not read the
 * same characters again ("2026-07-08" is a date, not the numbers 2026, 7, 8).
 * Blanking keeps every offset, so spans stay valid in the original text.
 */

export interface Span {
  start: number;
  end: number;
}

export interface Scan<T> {
  found: (T & Span & { text: string })[];
  /** The text with every found span replaced by spaces. */
  rest: string;
}

/** Every match of a global pattern that `convert` accepts, and the text with those matches blanked. */
export function scanAndMask<T>(text: string, pattern: RegExp, convert: (match: RegExpExecArray) => T | null): Scan<T> {
  if (!pattern.global) throw new Error(`pattern ${pattern} must be global`);
  const found: (T & Span & { text: string })[] = [];
  let rest = text;
  for (const match of text.matchAll(pattern)) {
    const value = convert(match as RegExpExecArray);
    if (value === null) continue;
    const start = match.index;
    const end = start + match[0].length;
    found.push({ ...value, start, end, text: match[0] });
    rest = rest.slice(0, start) + " ".repeat(end - start) + rest.slice(end);
  }
  return { found, rest };
}
