/**
 * A decimal setting (a rate, a share, a price, a timeout that may hold a fraction), read the one way whether it comes
 * from a flag, an environment variable or a config file: plain decimal (core/decimal-number.ts). `z.coerce.number`
 * took 0x10, 1e3, 0b1 and " 0.5" from a variable or a flag as numbers nobody documented (RAGSCOPE_SAMPLE_RATE=1e-1
 * judged a tenth of the traffic; a pasted 0x1 all of it). A config file's YAML or JSON number is taken when it is finite (a 1e-3 there is a number
 * before ragscope reads it, and means what YAML says). `bounds` checks the range, with the caller's words.
 */
import { z } from "zod";
import { PLAIN_DECIMAL_FORM, readPlainDecimal } from "../../../core/decimal-number.js";

export function decimalSetting(bounds: z.ZodNumber = z.number()) {
  return z
    .unknown()
    .transform((value, context): number => {
      const parsed = typeof value === "string" ? readPlainDecimal(value) : typeof value === "number" && Number.isFinite(value) ? value : null;
      if (parsed !== null) return parsed;
      context.addIssue({ code: "custom", message: `must be a number written as ${PLAIN_DECIMAL_FORM}, not ${JSON.stringify(value)}` });
      return z.NEVER;
    })
    .pipe(bounds);
}
