/**
 * Where in a dataset file a problem is, written one way for every format:
 * `line 9, [2].id` (YAML), `line 3, question` (JSON Lines: the path inside
 * that line's case), `[2].id` (JSON, which has no line positions), and the
 * order problems are listed in: the order of the file. A user fixes a file
 * from the top down; problems listed in the order a schema checks its fields
 * send them back and forth through it.
 */

export interface PlaceInFile {
  /** Path of the field, e.g. `cases[3].gold_evidence[0].document_id`; in JSON Lines, inside the line's case; "" for the whole case or file. */
  path: string;
  /** 1-based line of the field (or of the nearest mapping or list holding it, when it is missing); absent for JSON. */
  line?: number;
  /** 1-based column on that line: orders problems on one line, and is shown only where there is no path to go by. */
  column?: number;
}

/** `line 9, [2].id`, `line 3, question`, `line 1, column 5`, `[2].id`; "" when the place is the whole file. */
export function describePlace(place: PlaceInFile): string {
  const parts: string[] = [];
  if (place.line !== undefined) parts.push(`line ${place.line}`);
  // With a path the path says where on the line; without one (a syntax error, a case's own unknown field) the column does.
  if (place.line !== undefined && place.column !== undefined && place.path === "") parts.push(`column ${place.column}`);
  if (place.path !== "") parts.push(place.path);
  return parts.join(", ");
}

/** Numeric, so that `[10]` follows `[9]` among places with no line (JSON). */
const pathOrder = new Intl.Collator("en", { numeric: true });

/**
 * File order: by line, then column, then path. Places without a line (the whole file, or a JSON file)
 * come first and are ordered by path, which for JSON follows the cases' order.
 */
export function compareByPlace(left: PlaceInFile, right: PlaceInFile): number {
  return (left.line ?? 0) - (right.line ?? 0) || (left.column ?? 0) - (right.column ?? 0) || pathOrder.compare(left.path, right.path);
}
