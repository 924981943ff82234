/**
 * A stat panel's values with each rate's basis folded in (dashboards/source/rate-basis.ts): the columns
 * `<label> · <part>` that count what the rate `<label>` stands on are not values of their own but its basis, so
 * `ragscope report` prints "Task success 0.0% (of 4 judged; 14 not judged)" — never a bare 0.0% whose
 * denominator is 4 of 18 requests — and "no data (0 judged; 18 not judged)" when nothing was judged. A count of
 * one names its part in the singular ("of 1 request"), rate-basis.ts countedPart.
 */
import { BASIS_SEPARATOR, countedPart } from "../dashboards/source/rate-basis.js";
import type { Frame } from "./panel-data.js";

type Field = Frame["fields"][number];

export interface StatValue {
  field: Field;
  /** "of 4 judged; 14 not judged", or null when the panel has no basis for this value. */
  basis: string | null;
}

/** The field's count, null when it is none (shown "?"). */
const count = (field: Field): number | null => {
  const value = field.values[0];
  return typeof value === "number" && Number.isFinite(value) ? value : null;
};

/** The panel's fields without its basis columns, each with the basis counted for it. */
export function statValues(fields: readonly Field[]): StatValue[] {
  const names = new Set(fields.map((field) => field.name));
  const basisOf = (field: Field): string | null => {
    const separator = field.name.lastIndexOf(BASIS_SEPARATOR);
    if (separator <= 0) return null;
    const label = field.name.slice(0, separator);
    return names.has(label) ? label : null;
  };
  return fields
    .filter((field) => basisOf(field) === null)
    .map((field) => {
      const counts = fields.filter((candidate) => basisOf(candidate) === field.name).map((candidate) => countedPart(count(candidate), candidate.name.slice(field.name.length + BASIS_SEPARATOR.length)));
      if (counts.length === 0) return { field, basis: null };
      const measured = typeof field.values[0] === "number" && Number.isFinite(field.values[0]);
      // "0.0% of 4 judged" reads as what it is; a missing value is over nothing: its counts stand alone.
      return { field, basis: measured ? `of ${counts.join("; ")}` : counts.join("; ") };
    });
}
