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

/**
 * Every match of a global pattern that `convert` accepts, and the text with those matches blanked.
 *
 * Why not `text.matchAll`: it clones the pattern and walks an iterator, which
 * cost more than the scan itself on most texts (a fact extraction runs a dozen
 * patterns, nearly all of which find nothing). The pattern's own `exec` is
 * used instead, from position 0, and its `lastIndex` is put back to 0 after,
 * so the shared pattern keeps no state between calls. The blanked text is put
 * together once from the pieces between the matches, not rebuilt after each.
 */
export function scanAndMask<T>(text: string, pattern: RegExp, convert: (match: RegExpExecArray) => T | null): Scan<T> {
  if (!pattern.global) throw new Error(`pattern ${pattern} must be global`);
  const found: (T & Span & { text: string })[] = [];
  const pieces: string[] = [];
  let kept = 0;
  pattern.lastIndex = 0;
  try {
    for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
      // An empty match would be found again at the same place: step over one character (a code point with the u flag), as matchAll does.
      if (match[0] === "") pattern.lastIndex += pattern.unicode && (text.codePointAt(match.index) ?? 0) > 0xffff ? 2 : 1;
      const value = convert(match);
      if (value === null) continue;
      const start = match.index;
      const end = start + match[0].length;
      found.push({ ...value, start, end, text: match[0] });
      pieces.push(text.slice(kept, start), " ".repeat(end - start));
      kept = end;
    }
  } finally {
    pattern.lastIndex = 0;
  }
  if (found.length === 0) return { found, rest: text };
  pieces.push(text.slice(kept));
  return { found, rest: pieces.join("") };
}
