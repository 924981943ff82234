/**
 * Characters in untrusted text (span attributes, chunk text, answers, ids) that are shown by their code instead of
 * applied: the C0 controls, DEL and the C1 controls (Unicode general category Cc), and the bidirectional formatting
 * characters (Unicode property Bidi_Control: U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069). Applied, a
 * right-to-left override reverses what a reviewer reads after it, and a NUL or a backspace breaks copy and paste;
 * shown as `\u202E`, the text reads as what was sent.
 *
 * A surface names the few it keeps applied (`kept`): the web UI keeps tab, newline and carriage return, which are
 * white space in HTML and which a `<pre>` needs.
 */
const SHOWN_AS_CODE = /([\p{Cc}\p{Bidi_Control}])/u;

/** The character's code as a JavaScript escape, `\u202E`: every character shown so is in the Basic Multilingual Plane. */
export function controlCharacterCode(character: string): string {
  return `\\u${character.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`;
}

/**
 * The text split at each character shown by its code: plain runs as they are, each such character as `shown` makes
 * it from its code. A text without one comes back as itself, alone (the common case, one regular-expression test).
 */
export function withControlCharactersShown<Shown>(text: string, kept: string, shown: (code: string) => Shown): (string | Shown)[] {
  if (!SHOWN_AS_CODE.test(text)) return [text];
  // split() with a capturing group: odd places hold the characters matched.
  return text.split(SHOWN_AS_CODE).map((part, index) => (index % 2 === 1 && !kept.includes(part) ? shown(controlCharacterCode(part)) : part));
}

/** The text with each character shown by its code written as that code (`\u001B`), for a surface without markup. */
export function controlCharactersAsCodes(text: string, kept: string): string {
  return withControlCharactersShown(text, kept, (code) => code).join("");
}

/** Whether the text holds a character shown by its code, other than those `kept`. */
export function holdsControlCharacters(text: string, kept: string): boolean {
  return withControlCharactersShown(text, kept, () => null).length > 1;
}
