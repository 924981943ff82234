/**
 * Option defaults in `--help` as a user would type them. commander prints a
 * default as JSON: `(default: "0.05")` for a number the command parses later
 * (it reads like a text that must be quoted), `(default: [])` for a repeatable
 * option (noise beside "repeat for several"). Here a text or number default is
 * shown as written on the command line, `(default: 0.05)`, like the defaults
 * the descriptions state themselves (`default .ragscope/chdb`), and an empty
 * list not at all. Set on the program, so every command's help has it.
 */
import { Help, type Option } from "commander";

export const readableDefaults: Partial<Help> = {
  optionDescription(option: Option): string {
    return Help.prototype.optionDescription.call(this, withReadableDefault(option));
  },
};

/** The option as its help shows it: a copy, so the value commander parses with stays as declared. */
function withReadableDefault(option: Option): Option {
  const value: unknown = option.defaultValue;
  // A description given with the default (`.default(value, description)`) is already what the author wants shown.
  if (value === undefined || option.defaultValueDescription !== undefined) return option;
  const shown = Object.assign(Object.create(Object.getPrototypeOf(option) as object) as Option, option);
  if (Array.isArray(value) && value.length === 0) shown.defaultValue = undefined;
  else if (typeof value === "string" || typeof value === "number") shown.defaultValueDescription = String(value);
  return shown;
}
