/**
 * A whole number written as people write a count, a port or a duration on a command line or in an environment
 * variable: decimal digits and nothing else (4318, 0, 250). `Number` also reads 0x10, 1e3, 0b11, " 8", "8.0" and
 * "" (as 0), forms no flag or variable documents, so a typo or a pasted value was taken as a number nobody meant.
 * Decimals with a fraction or a sign are read by decimal-number.ts.
 */
import { failure, success, type Result } from "./result.js";

const DIGITS = /^\d+$/;

/** How the accepted form is said in an error, after "give …" or "in …". */
export const WHOLE_NUMBER_FORM = "decimal digits only (no sign, point, exponent, hex or spaces)";

/** The number `text` writes in decimal digits, or null when it is written in any other form or is too large to be exact. */
export function readWholeNumber(text: string): number | null {
  if (!DIGITS.test(text)) return null;
  const value = Number(text);
  // Past 2^53 the digits no longer name one number: 9007199254740993 would be read as …992.
  return Number.isSafeInteger(value) ? value : null;
}

/** The range a whole number must fall in; `why` says what bounds it, for the error. */
export interface WholeNumberRange {
  minimum: number;
  maximum?: number;
  why?: string;
}

/** What is accepted, for an error after "must be …": "a whole number from 1 to 1000 (…) in decimal digits only, …". */
export function describeWholeNumber(range: WholeNumberRange): string {
  const bounds = range.maximum === undefined ? `of at least ${range.minimum}` : `from ${range.minimum} to ${range.maximum}`;
  return `a whole number ${bounds}${range.why === undefined ? "" : ` (${range.why})`} in ${WHOLE_NUMBER_FORM}`;
}

/** What is wrong with `value` for `range` ("must be at least 1 (…)"), or null when it falls in it. */
export function wholeNumberRangeProblem(value: number, range: WholeNumberRange): string | null {
  const why = range.why === undefined ? "" : ` (${range.why})`;
  if (value < range.minimum) return `must be at least ${range.minimum}${why}`;
  if (range.maximum !== undefined && value > range.maximum) return `must be at most ${range.maximum}${why}`;
  return null;
}

/**
 * `text` read as a whole number within `range`. The error says what is accepted and, for text in another form,
 * quotes it; the caller adds where the text came from (the flag or variable).
 */
export function parseWholeNumber(text: string, range: WholeNumberRange): Result<number, string> {
  const value = readWholeNumber(text);
  if (value === null) return failure(`must be ${describeWholeNumber(range)}, not ${JSON.stringify(text)}`);
  const problem = wholeNumberRangeProblem(value, range);
  return problem === null ? success(value) : failure(problem);
}
