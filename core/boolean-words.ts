/**
 * The words a boolean setting takes, in an environment variable or a config
 * file: true or false, and the spellings operators already write in other
 * tools' settings (1/0, yes/no, on/off), in any case — `TRUE` from a shell
 * script or `Off` from a Helm value means what it says, so refusing it only
 * costs a restart. Anything else is refused with this list, never guessed:
 * a typo such as `flase` must not switch a feature on or off.
 */

const TRUE_WORDS = ["true", "1", "yes", "on"];
const FALSE_WORDS = ["false", "0", "no", "off"];

/** The accepted words, for a message: "must be " + this. */
export const BOOLEAN_WORDS = "true or false (also accepted, in any case: 1/0, yes/no, on/off)";

/** `text` read as a boolean setting's value, or null when it is none of the accepted words. */
export function parseBooleanWord(text: string): boolean | null {
  const word = text.trim().toLowerCase();
  if (TRUE_WORDS.includes(word)) return true;
  if (FALSE_WORDS.includes(word)) return false;
  return null;
}
