/**
 * How a reader names a value it could not read, for the Case Result's
 * `malformed_attributes` (kind `unreadable_value`): what the value is, quoted
 * in part, and how many such notes one span may add. Every span's notes are
 * bounded here so a span with thousands of unreadable items (a long retrieval,
 * every score written as a word) adds a few lines, not thousands, to its result.
 */
import type { MalformedAttribute } from "./find-malformed-json.js";

/** How much of a value a reason quotes: enough to recognise it (a Python repr begins with its type), bounded for any span. */
const QUOTED_CHARACTERS = 120;
/** How many of an object's keys a reason names. */
const NAMED_KEYS = 8;
/** How many values one span's reader names; past it, one more note counts the rest. */
const NOTES_PER_SPAN = 5;

/** What the value is, in words: its type, and its text or keys in part. */
export function describeValue(value: unknown): string {
  if (typeof value === "string") return `the text ${JSON.stringify(quoted(value))}`;
  if (value === null) return "null";
  if (value === undefined) return "missing";
  if (Array.isArray(value)) return `a list of ${value.length} items`;
  if (typeof value === "object") {
    const keys = Object.keys(value);
    if (keys.length === 0) return "an empty object";
    return `an object with the keys ${quoted(keys.slice(0, NAMED_KEYS).map((key) => JSON.stringify(key)).join(", "))}${keys.length > NAMED_KEYS ? ` and ${keys.length - NAMED_KEYS} more` : ""}`;
  }
  if (typeof value === "number" && !Number.isFinite(value)) return `${value}, no finite number`;
  return `the ${typeof value} ${quoted(String(value))}`;
}

/** The text cut to QUOTED_CHARACTERS code points, marked when cut. */
export function quoted(text: string): string {
  const characters = [...text];
  return characters.length <= QUOTED_CHARACTERS ? text : `${characters.slice(0, QUOTED_CHARACTERS).join("")}…`;
}

/**
 * The observation's `unreadable` field: absent when nothing was left unread, else the notes, at most
 * NOTES_PER_SPAN of them and one that counts the others (named by the first of them).
 */
export function unreadableField(notes: readonly MalformedAttribute[]): { unreadable?: MalformedAttribute[] } {
  if (notes.length === 0) return {};
  if (notes.length <= NOTES_PER_SPAN + 1) return { unreadable: [...notes] };
  const rest = notes.slice(NOTES_PER_SPAN);
  return {
    unreadable: [
      ...notes.slice(0, NOTES_PER_SPAN),
      { attribute: rest[0]!.attribute, error: `and ${rest.length} more values of this span that could not be read (only the first ${NOTES_PER_SPAN} are described)` },
    ],
  };
}
