/**
 * `ragscope report` folds a rate's basis columns (`<label> · <part>`) into its line: one of a part reads in the
 * singular ("of 1 request"), any other count in the plural, while the columns — Grafana's tiles — keep their names.
 * Every part the boards count is known as a noun with a singular or as a part that reads the same for one, so a part
 * added to a board without either fails here.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { readDashboards } from "../../../report/dashboard-files.js";
import type { Field } from "../../../report/panel-data.js";
import { statValues } from "../../../report/rate-basis-fields.js";
import { BASIS_SEPARATOR, INVARIANT_PARTS, SINGULAR_PARTS } from "../../../dashboards/source/rate-basis.js";

const number = (name: string, value: number | null): Field => ({ name, clickhouseType: "Nullable(Float64)", type: "number", values: [value] });

describe("a rate's basis in the report's line", () => {
  test("one request, one value, one session in the singular; none or several in the plural", () => {
    const fields = [
      number("Dislike rate", null),
      number("Dislike rate · requests", 1),
      number("Dislike rate · with a thumbs", 0),
      number("Correctness", 0.5),
      number("Correctness · values", 2),
      number("First-contact resolution", 1),
      number("First-contact resolution · sessions", 1),
      number("Citation clicks", 0),
      number("Citation clicks · cited answers", 1),
      number("Citation clicks · with a click", 0),
      number("Task success", 1),
      number("Task success · judged", 1),
      number("Task success · not judged", 1),
    ];
    assert.deepEqual(
      statValues(fields).map(({ field, basis }) => [field.name, basis]),
      [
        ["Dislike rate", "1 request; 0 with a thumbs"],
        ["Correctness", "of 2 values"],
        ["First-contact resolution", "of 1 session"],
        ["Citation clicks", "of 1 cited answer; 0 with a click"],
        ["Task success", "of 1 judged; 1 not judged"],
      ],
    );
  });

  test("a count that is none reads ?, in the plural", () => {
    assert.deepEqual(statValues([number("Correctness", null), number("Correctness · values", null)]).map(({ basis }) => basis), ["? values"]);
  });

  test("every basis part of the boards is known: a noun with its singular, or a part that reads the same for one", async () => {
    const parts = new Set<string>();
    for (const board of await readDashboards()) {
      for (const panel of board.rows.flatMap((row) => row.panels)) {
        for (const target of panel.targets) {
          for (const match of target.rawSql.matchAll(/ AS "([^"]+)"/g)) {
            const name = match[1]!;
            const separator = name.lastIndexOf(BASIS_SEPARATOR);
            if (separator > 0) parts.add(name.slice(separator + BASIS_SEPARATOR.length));
          }
        }
      }
    }
    assert.ok(parts.has("requests") && parts.has("not judged"), `the boards' basis parts: ${[...parts].join(", ")}`);
    const unknown = [...parts].filter((part) => !(part in SINGULAR_PARTS) && !INVARIANT_PARTS.includes(part));
    assert.deepEqual(unknown, [], "add each to SINGULAR_PARTS or INVARIANT_PARTS in dashboards/source/rate-basis.ts");
  });
});
