/**
 * Where a quoted YAML value that is never closed starts. The YAML library reports the missing quote where it gave up,
 * at the end of the file, which may be hundreds of lines below the typo; its document still holds the quoted scalar,
 * whose range starts at the opening quote and ends where the error is.
 */
import { visit, type Document, type LineCounter, type YAMLError } from "yaml";

/** The line of the opening quote of the value `error` finds unclosed, or null when `error` is about something else. */
export function unclosedQuoteLine(document: Document.Parsed, error: YAMLError, lineCounter: LineCounter): number | null {
  if (error.code !== "MISSING_CHAR" || !/quote/i.test(error.message)) return null;
  let start: number | null = null;
  visit(document, {
    Scalar(_key, node) {
      if ((node.type === "QUOTE_DOUBLE" || node.type === "QUOTE_SINGLE") && node.range?.[1] === error.pos[0]) start = node.range[0];
    },
  });
  return start === null ? null : lineCounter.linePos(start).line;
}

/** The YAML library's `message` for `error`, saying first where an unclosed quoted value starts when that is the problem. */
export function sayUnclosedQuote(message: string, document: Document.Parsed, error: YAMLError, lineCounter: LineCounter): string {
  const quoteLine = unclosedQuoteLine(document, error, lineCounter);
  return quoteLine === null ? message : `the quoted value that starts at line ${quoteLine} is not closed (${message}); close it with its quote character`;
}
