/**
 * A filter on an identifier (service, tenant, route, run, dataset) that names a value the collector never stores
 * (contracts/identifiers.ts refuses it at ingestion) could match no trace: the page answered "no data", which reads
 * as a run that measured nothing rather than a mistyped id, and echoed the value. Such a filter is refused (400) with
 * the rule it breaks.
 */
import { identifierProblem } from "../../contracts/identifiers.js";

/** Why the filter `name=value` can match nothing the collector stores, or null when it can match. */
export function identifierFilterProblem(name: string, value: string | undefined): string | null {
  if (value === undefined) return null;
  const problem = identifierProblem(value, name === "route" ? "route" : "identifier");
  return problem === null ? null : `${name}= ${problem}: the collector stores no such ${name}, so nothing could match it; correct or clear it`;
}
