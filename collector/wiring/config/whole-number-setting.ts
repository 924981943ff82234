/**
 * A whole-number setting (a count, a size, a port, a duration in milliseconds), read the one way whether it comes
 * from a flag, an environment variable or a config file: decimal digits only (core/whole-number.ts). `z.coerce.number`
 * took 0x10, 1e3, " 8" and 8.0 from a flag or a variable as numbers nobody documented. A config file's YAML or
 * JSON number is taken when it is a whole number (a 1e3 there is a number before ragscope reads it, and means what
 * YAML says).
 */
import { z } from "zod";
import { describeWholeNumber, readWholeNumber, wholeNumberRangeProblem, type WholeNumberRange } from "../../../core/whole-number.js";

/** `value` from a flag, a variable or a file as a whole number, or null when it is written in another form. */
function readSetting(value: unknown): number | null {
  if (typeof value === "string") return readWholeNumber(value);
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0 ? value : null;
}

/**
 * The range checked after the form, as a check of its own: a value in the wrong form stops the combination checks
 * (they would compare against nothing), a number out of range does not, so every problem is listed at once.
 */
function inRange(range: WholeNumberRange) {
  return z.number().superRefine((value, context) => {
    const problem = wholeNumberRangeProblem(value, range);
    if (problem !== null) context.addIssue({ code: "custom", message: problem });
  });
}

/** A whole-number setting within `range`; a value in another form is refused quoting it, with what is accepted. */
export function wholeNumberSetting(range: WholeNumberRange) {
  return z
    .unknown()
    .transform((value, context): number => {
      const parsed = readSetting(value);
      if (parsed !== null) return parsed;
      context.addIssue({ code: "custom", message: `must be ${describeWholeNumber(range)}, not ${JSON.stringify(value)}` });
      return z.NEVER;
    })
    .pipe(inRange(range));
}

/** A whole-number setting that also takes `off` (the gRPC port: no gRPC receiver). */
export function wholeNumberOrOffSetting(range: WholeNumberRange) {
  return z
    .unknown()
    .transform((value, context): number | "off" => {
      if (value === "off") return "off";
      const parsed = readSetting(value);
      if (parsed !== null) return parsed;
      context.addIssue({ code: "custom", message: `must be off or ${describeWholeNumber(range)}, not ${JSON.stringify(value)}` });
      return z.NEVER;
    })
    .pipe(z.union([z.literal("off"), inRange(range)]));
}
