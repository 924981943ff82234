/**
 * `ragscope help <command>...` as the command line it stands for. Commander's
 * own help command printed the general help for a name it does not know
 * (`ragscope help nosuch`), saying nothing of the mistake, and showed only the
 * group's help for `ragscope help dataset push`. Rewritten before parsing:
 * - every name known: `<command>... --help`, that command's help (exit 0);
 * - a name unknown: the names up to it, so commander refuses it exactly as it
 *   refuses `ragscope nosuch` — "unknown command 'nosuch'", its "Did you mean"
 *   suggestion, the help after it, exit 2 (README "Exit codes").
 * Names after a command without subcommands are left out (`help validate x`
 * is validate's help). Anything else is returned as it was.
 */
import type { Command } from "commander";

/** @param argv process.argv: the node executable and the script first */
export function helpRequestArguments(program: Command, argv: readonly string[]): string[] {
  const [executable = "", script = "", first, ...names] = argv;
  if (first !== "help" || names.length === 0 || names.some((name) => name.startsWith("-"))) return [...argv];
  let command = program;
  const commandNames: string[] = [];
  for (const name of names) {
    // A command without subcommands takes arguments, not names: `help validate x` is validate's help, never `validate x`.
    if (command.commands.length === 0) break;
    const next = command.commands.find((candidate) => candidate.name() === name || candidate.aliases().includes(name));
    if (next === undefined) return [executable, script, ...commandNames, name];
    command = next;
    commandNames.push(name);
  }
  return [executable, script, ...commandNames, "--help"];
}
