/**
 * Required options checked after unknown ones. Commander checks a
 * `requiredOption` before it looks for unknown options, so a misspelled
 * required flag (`ragscope eval --datset cases.yaml …`) was reported as
 * "required option '--dataset <file>' not specified", which hides the typo the
 * user made. These options are declared as plain ones and checked in the
 * program's preAction hook, which commander runs only after it has refused
 * unknown options (with its "Did you mean --dataset?").
 */
import { Option, type Command } from "commander";

/** Each required option, with where a user finds its value when that is not obvious (null when it is). */
const requiredOptions = new WeakMap<Option, string | null>();

/**
 * An option the command cannot run without; `checkRequiredOptions` refuses a command line without it.
 * @param whereToFind said after the refusal: a first `ragscope gate` does not know that the run id is the one eval printed.
 */
export function requiredOption(flags: string, description: string, whereToFind: string | null = null): Option {
  const option = new Option(flags, description);
  requiredOptions.set(option, whereToFind);
  return option;
}

/** Refuses, as commander would (usage error, exit 2, the help after it), a command line missing one of its required options. */
export function checkRequiredOptions(command: Command): void {
  for (const option of command.options) {
    if (requiredOptions.has(option) && command.getOptionValue(option.attributeName()) === undefined) {
      const whereToFind = requiredOptions.get(option);
      command.error(`error: required option '${option.flags}' not specified${whereToFind ? `; ${whereToFind}` : ""}`, { code: "commander.missingMandatoryOptionValue", exitCode: 2 });
    }
  }
}
