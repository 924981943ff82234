/**
 * `JSON.parse` that keeps 64-bit integers exact.
 *
 * OTLP/JSON writes 64-bit integers as decimal strings, but receivers must also
 * accept plain numbers (shared/reference/interop.md §5), and a nanosecond time
 * such as 1544712660000000001 does not survive `JSON.parse` as a number. Node 20
 * has no reviver access to the source text, so integer literals too long to be
 * exact (16 digits or more) are turned into strings before parsing; the codec
 * accepts int64 fields as strings anyway, and reads doubles from numeric strings.
 *
 * The rewrite only runs when a cheap test finds a long digit run, and it steps
 * over string literals so their content is never touched. Outside strings, a
 * digit or `-` can only start a number token, so tokens are read whole.
 *
 * JSON may escape a lone UTF-16 surrogate (`"\ud800"`), which no UTF-8 text
 * can hold: re-encoded for the bus it would become bytes the evaluator cannot
 * decode, after the client was told the request was accepted. Such strings
 * (values and keys) are repaired here, each lone surrogate replaced by U+FFFD,
 * before anything is acknowledged. Only text with a surrogate escape pays for it.
 */
const longDigitRun = /\d{16}/;
const minimumInexactDigits = 16;
const surrogateEscape = /\\u[dD][89a-fA-F]/;

export function parseJsonPreservingIntegers(text: string): unknown {
  const source = longDigitRun.test(text) ? quoteLongIntegers(text) : text;
  return surrogateEscape.test(source) ? JSON.parse(source, wellFormed) : JSON.parse(source);
}

/** A JSON.parse reviver that leaves every string, key included, well-formed UTF-16. */
function wellFormed(_key: string, value: unknown): unknown {
  if (typeof value === "string") return value.isWellFormed() ? value : value.toWellFormed();
  if (value === null || typeof value !== "object" || Array.isArray(value)) return value;
  const keys = Object.keys(value);
  if (keys.every((key) => key.isWellFormed())) return value;
  return Object.fromEntries(keys.map((key) => [key.toWellFormed(), (value as Record<string, unknown>)[key]]));
}

function quoteLongIntegers(text: string): string {
  const pieces: string[] = [];
  let copiedUpTo = 0;
  let index = 0;
  while (index < text.length) {
    const code = text.charCodeAt(index);
    if (code === 0x22 /* " */) {
      index = endOfString(text, index);
      continue;
    }
    if (code === 0x2d /* - */ || isDigit(code)) {
      let end = code === 0x2d ? index + 1 : index;
      const digitsStart = end;
      while (end < text.length && isDigit(text.charCodeAt(end))) end += 1;
      const digitCount = end - digitsStart;
      const next = text.charCodeAt(end);
      const isInteger = next !== 0x2e /* . */ && next !== 0x65 /* e */ && next !== 0x45; /* E */
      if (isInteger && digitCount >= minimumInexactDigits) {
        pieces.push(text.slice(copiedUpTo, index), '"', text.slice(index, end), '"');
        copiedUpTo = end;
      }
      // Step over a fraction or exponent whole, so its digits are not taken
      // for an integer of their own.
      while (end < text.length && isNumberCharacter(text.charCodeAt(end))) end += 1;
      index = end === index ? index + 1 : end;
      continue;
    }
    index += 1;
  }
  if (copiedUpTo === 0) return text;
  pieces.push(text.slice(copiedUpTo));
  return pieces.join("");
}

/** Index just past the string literal that opens at `start`; the text's end when it never closes. */
function endOfString(text: string, start: number): number {
  let search = start + 1;
  for (;;) {
    const quote = text.indexOf('"', search);
    if (quote === -1) return text.length;
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === 0x5c /* \ */) backslashes += 1;
    if (backslashes % 2 === 0) return quote + 1;
    search = quote + 1;
  }
}

function isNumberCharacter(code: number): boolean {
  return isDigit(code) || code === 0x2e || code === 0x65 || code === 0x45 || code === 0x2b || code === 0x2d;
}

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}
