/**
 * Whether two answers are the same text: the request span's answer and a generation's output, compared to tell
 * whether the request's answer is one a generation that returned gave (last-generation.ts).
 *
 * The two are recorded by different code — the handler's return value, the provider's completion — and often differ
 * by a trailing newline or the spacing around the text (a handler that trims, a template that appends "\n"). They
 * are compared with surrounding whitespace removed and each run of whitespace inside read as one space. Nothing
 * beyond that is attempted on purpose: a different wording, case, punctuation or a summary of the answer is another
 * text, and a similarity heuristic would decide whether a request failed (and so whether it passes).
 */
export function sameAnswer(left: string, right: string): boolean {
  return comparable(left) === comparable(right);
}

function comparable(text: string): string {
  return text.trim().replace(/\s+/g, " ");
}
