/**
 * Reading the web UI's query parameters, for every page and API route that takes them (the traces list and its rows,
 * the review queue, the Quality and Failures boards): an address is typed, edited and shared, so each value is
 * untrusted text, read in exactly the forms ui/README.md documents and otherwise refused with an error that names
 * the parameter and says what to write. Before this, `Date.parse` rolled 2026-02-30 over to March 2 and read `0` as
 * the year 2000, and `Number` read limit=0x3 and limit=1e2, all answered 200 as if they had been meant.
 */
import { PLAIN_DECIMAL_FORM, readPlainDecimal } from "../../core/decimal-number.js";
import { parseIsoTime } from "../../core/iso-time.js";
import { failure, success, type Result } from "../../core/result.js";

/**
 * Parameters a route reads every value of: the experiment report's `weight=variant=w`, one per variant (the CLI's
 * repeated --weight). Any other parameter is read once, so a second value would be dropped without a word.
 */
export const REPEATABLE_QUERY_PARAMETERS: ReadonlySet<string> = new Set(["weight"]);

/** How much of a parameter's name or value an error quotes: an address may be kilobytes long. */
const QUOTED_LENGTH = 100;
const quoted = (text: string) => (text.length > QUOTED_LENGTH ? `${text.slice(0, QUOTED_LENGTH)}…` : text);

/**
 * Why the address gives a parameter more than once, or null. `limit=1&limit=500` listed one row and
 * `service=a&service=b` filtered by a: whichever came first won, silently, so neither is taken.
 */
export function repeatedQueryParameter(parameters: URLSearchParams, repeatable: ReadonlySet<string> = REPEATABLE_QUERY_PARAMETERS): string | null {
  const seen = new Set<string>();
  for (const name of parameters.keys()) {
    if (repeatable.has(name)) continue;
    if (seen.has(name)) {
      const values = parameters.getAll(name).map((value) => `${quoted(name)}=${quoted(value)}`);
      return `${quoted(name)} is given ${values.length} times (${values.slice(0, 3).join(", ")}${values.length > 3 ? ", …" : ""}): give ${quoted(name)} once`;
    }
    seen.add(name);
  }
  return null;
}

/** A parameter's value, trimmed; undefined when it is absent or blank (a form's empty field means "any"). */
export function queryText(parameters: URLSearchParams, name: string): string | undefined {
  const value = parameters.get(name)?.trim();
  return value === undefined || value === "" ? undefined : value;
}

/**
 * A whole number from `minimum` to `maximum`, in decimal digits only. `Number` also reads 0x3, 1e2, 0b11 and " 7 ",
 * which the error ("a whole number") never offered.
 */
export function parseWholeNumber(name: string, text: string, minimum: number, maximum: number): Result<number, string> {
  const value = /^\d{1,16}$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < minimum || value > maximum) return failure(`${name}=${quoted(text)}: give a whole number from ${minimum} to ${maximum} in decimal digits`);
  return success(value);
}

/**
 * A number from `minimum` to `maximum` in plain decimal (core/decimal-number.ts): 0.5, 250, -1. `Number` also read
 * below=0x1 as 1 and below=1e3 as 1000, forms the traces list never offered.
 */
export function parseDecimalNumber(name: string, text: string, minimum: number, maximum: number): Result<number, string> {
  const value = readPlainDecimal(text);
  if (value === null || value < minimum || value > maximum) return failure(`${name}=${quoted(text)}: give a number from ${minimum} to ${maximum} in ${PLAIN_DECIMAL_FORM}`);
  return success(value);
}

/**
 * A time as the pages take it (core/iso-time.ts), to epoch milliseconds. A date or time that does not exist —
 * 2026-02-30, 25:00, a zone of +24:00 — is refused, naming what does not exist, never rolled over into the next
 * month or day. Epoch numbers (0, -1, 1e3) are not a form the pages write or document: refused like any other text.
 */
export function parseQueryTime(name: string, text: string): Result<number, string> {
  const given = `${name}=${quoted(text)}`;
  const parsed = parseIsoTime(text);
  if (parsed.ok) return parsed;
  return failure(parsed.error.kind === "unreadable" ? `${given} is not a time: write 2026-07-08T09:30 (UTC), or an ISO 8601 date and time with a zone such as 2026-07-08T09:30:00Z or 2026-07-08T11:30+02:00` : `${given}: ${parsed.error.why}`);
}
