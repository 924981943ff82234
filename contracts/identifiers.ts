/**
 * What an identifier that arrives in a span may look like: run, case and
 * dataset ids and versions, tenant, service name and route. They are stored,
 * grouped by, offered as dashboard variables and shown in reports, so a value
 * that could change a query's shape (quotes, backslashes, `$`, comment
 * markers, control or separator characters) or swamp a page is refused at
 * ingestion rather than escaped everywhere later.
 *
 * Allowed: 1 to 128 characters; letters and digits of any script, and
 * `_ - . : / @ +`; a route may also hold `{ }` (path templates such as
 * `/orders/{id}`). A refused value is not stored (the field is empty), and the
 * Case Result notes which attribute was refused and why, without the value.
 */
export const IDENTIFIER_MAX_LENGTH = 128;

const identifier = /^[\p{L}\p{N}_\-.:/@+]+$/u;
const route = /^[\p{L}\p{N}_\-.:/@+{}]+$/u;

export type IdentifierKind = "identifier" | "route";

/** Why `value` is not a valid identifier, or null when it is. */
export function identifierProblem(value: string, kind: IdentifierKind = "identifier"): string | null {
  if (value.length > IDENTIFIER_MAX_LENGTH) return `longer than ${IDENTIFIER_MAX_LENGTH} characters (${value.length})`;
  if (!(kind === "route" ? route : identifier).test(value)) {
    return `holds characters outside letters, digits and _ - . : / @ +${kind === "route" ? " { }" : ""}`;
  }
  return null;
}
