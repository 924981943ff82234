/**
 * A number written as people write one in a form or on a command line: decimal digits, an optional leading minus
 * and an optional fraction after a point (0.5, 250, -1, 12.75). `Number` also reads 0x1, 1e3, 0b11, Infinity and
 * "" (as 0), forms no page or flag documents, so a typo or a pasted value was taken as a number nobody meant.
 * The caller checks the range: it knows what the number is for.
 */
const PLAIN_DECIMAL = /^-?\d+(?:\.\d+)?$/;

/** How the accepted form is said in an error, after "give …". */
export const PLAIN_DECIMAL_FORM = "digits with an optional leading minus and fraction, e.g. 0.5 (no exponent, hex, + or Infinity)";

/** The number `text` writes in plain decimal, or null when it is written in any other form (or is too long to be finite). */
export function readPlainDecimal(text: string): number | null {
  if (!PLAIN_DECIMAL.test(text)) return null;
  const value = Number(text);
  return Number.isFinite(value) ? value : null;
}
