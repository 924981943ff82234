/**
 * The repeatable filter flags of the commands that read stored data: `--tenant` (gate, report, experiment report),
 * and report's `--service`, `--dataset` and `--run`. A value the collector would never store (a space, a quote, 129
 * characters: contracts/identifiers.ts, the rule the collector applies to the stored fields) matched nothing,
 * silently: `gate --tenant "a b"` read the run as not stored and `report --service "checkout api"` drew empty panels,
 * as if nothing had been sent. It is a usage error (exit 2) naming the rule.
 */
import { InvalidArgumentError } from "commander";
import { identifierProblem } from "../../../contracts/identifiers.js";

/** commander's parser of a repeated filter flag whose values are stored identifiers; `what` names them: "tenant id". */
export function repeatedStoredIdentifier(what: string): (value: string, previous: string[]) => string[] {
  return (value, previous) => {
    const problem = value === "" ? "empty" : identifierProblem(value);
    // commander prints this after "error: option '--tenant <id>' argument '…' is invalid.": a sentence of its own.
    if (problem !== null) throw new InvalidArgumentError(`It is no ${what} the collector stores, so no data could match it: ${problem}.`);
    return [...previous, value];
  };
}

/** commander's parser of a repeated --tenant: the ids so far, and this one, when the collector could store it. */
export const repeatedTenant = repeatedStoredIdentifier("tenant id");
