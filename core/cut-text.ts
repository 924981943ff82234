/**
 * A text cut to a length in UTF-16 code units (a JavaScript string's length,
 * and what a browser's `maxlength` counts) without splitting a character: a
 * cut that fell between the two halves of a surrogate pair (an emoji, a rare
 * CJK character) left a lone half, which no UTF-8 text can hold — ClickHouse
 * refused the whole insert ("missing second part of surrogate pair"). Lone
 * halves already in the text are replaced by U+FFFD for the same reason.
 */

/** `value` with lone surrogates replaced by U+FFFD (the same string when it has none). */
export function wellFormed(value: string): string {
  return value.isWellFormed() ? value : value.toWellFormed();
}

/** At most `maxLength` UTF-16 code units, ending on a whole code point, well-formed. */
export function cutText(value: string, maxLength: number): string {
  if (value.length <= maxLength) return wellFormed(value);
  let end = maxLength;
  const last = value.charCodeAt(end - 1);
  // A high surrogate as the last unit kept: its low half would be cut off.
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return value.slice(0, end).toWellFormed();
}
