/**
 * RAGSCOPE_DEBUG: print the stack trace of an unexpected error (describe-failure.ts) and the retries behind a
 * failure to start. Read as every boolean setting is (core/boolean-words.ts): `0`, `false`, `no`, `off` are off —
 * any text was on before, so RAGSCOPE_DEBUG=0 turned it on — unset or empty is off, and another word is refused at
 * the start of every command rather than guessed, as a boolean setting's variable is.
 */
import { BOOLEAN_WORDS, parseBooleanWord } from "../../../core/boolean-words.js";
import { failure, success, type Result } from "../../../core/result.js";

export const DEBUG_VARIABLE = "RAGSCOPE_DEBUG";

/** Whether debug output is asked for, or what is wrong with the variable (it names the variable and the words). */
export function readDebugVariable(environment: Readonly<Record<string, string | undefined>>): Result<boolean, string> {
  const text = environment[DEBUG_VARIABLE];
  if ((text ?? "").trim() === "") return success(false);
  const value = parseBooleanWord(text ?? "");
  if (value !== null) return success(value);
  return failure(`environment variable ${DEBUG_VARIABLE}: must be ${BOOLEAN_WORDS}, not ${JSON.stringify(text)}; set it to 1 for the stack trace of an unexpected error, or unset it`);
}

/** For the places that read it after the command's start refused a bad value (main.ts): only an accepted true is on. */
export function debugRequested(environment: Readonly<Record<string, string | undefined>> | undefined): boolean {
  const read = readDebugVariable(environment ?? {});
  return read.ok && read.value;
}
