/**
 * `--tenant <id>` of the commands that read a tenant's data (gate, report, experiment report), repeatable. A tenant
 * id the collector would never store (a space, a quote, 129 characters: contracts/identifiers.ts, the rule `eval
 * --tenant` and the span check use) matched nothing, silently: `gate --tenant "a b"` read the run as not stored and
 * `report` drew empty panels, as if the tenant had sent nothing. It is now a usage error (exit 2) naming the rule.
 */
import { InvalidArgumentError } from "commander";
import { identifierProblem } from "../../../contracts/identifiers.js";

/** commander's parser of a repeated --tenant: the ids so far, and this one, when the collector could store it. */
export function repeatedTenant(value: string, previous: string[]): string[] {
  const problem = value === "" ? "empty" : identifierProblem(value);
  // commander prints this after "error: option '--tenant <id>' argument '…' is invalid.": a sentence of its own.
  if (problem !== null) throw new InvalidArgumentError(`It is no tenant id the collector stores, so no data could match it: ${problem}.`);
  return [...previous, value];
}
