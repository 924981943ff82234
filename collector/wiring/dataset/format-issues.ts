/**
 * Turns zod issues into one line each: `cases[3].gold_evidence[0].document_id: required`.
 * Evaluation engineers read these in a terminal or a CI log, so the path is
 * written the way they would index the file, and zod's generic wording is
 * replaced where a plainer one exists.
 */
import type { z } from "zod";
import { closestNames } from "../closest-names.js";

export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let text = "";
  for (const segment of path) {
    if (typeof segment === "number") text += `[${segment}]`;
    else text += text === "" ? String(segment) : `.${String(segment)}`;
  }
  return text;
}

/**
 * One issue in plain words. The issues must come from a parse with `reportInput: true` (parseReporting): only then
 * does an issue carry the value it was about, which tells a missing field ("required") from one of the wrong type
 * ("must be a list, not a text"). The value itself is never printed: a blind case's gold data stays out of the log.
 */
/**
 * The case format an issue was found in: its name as a message says it, and the fields its object takes where the
 * issue is (schema-fields.ts), for "did you mean …?" on an unknown one.
 */
export interface CaseFormat {
  name: string;
  fields: readonly string[];
  /** Whether a message lists the fields when none is close: the simple format's are few, the template documents its own. */
  listFields: boolean;
}

/** Without a format, an unknown field is told to be checked against the Eval Case template, naming none. */
const EVAL_CASE_TEMPLATE: CaseFormat = { name: "the Eval Case template", fields: [], listFields: false };

export function describeIssue(issue: z.core.$ZodIssue, format: CaseFormat = EVAL_CASE_TEMPLATE): string {
  const given = (issue as { input?: unknown }).input;
  if ((issue.code === "invalid_type" || issue.code === "invalid_union") && given === undefined) return "required";
  // A schema's own message says more than the generic one ("must be a text, or a list of texts with …").
  const generic = issue.message.startsWith("Invalid input");
  if (issue.code === "invalid_type" && generic) return `must be ${kindNames[issue.expected] ?? issue.expected}, not ${kindOf(given)}`;
  if (issue.code === "invalid_union" && generic) {
    const expected = [...new Set(issue.errors.flatMap((branch) => branch.filter((inner) => inner.code === "invalid_type").map((inner) => kindNames[inner.expected] ?? inner.expected)))];
    if (expected.length > 0) return `must be ${expected.join(" or ")}, not ${kindOf(given)}`;
  }
  if (issue.code === "too_small" && issue.origin === "string" && Number(issue.minimum) === 1) return "must not be empty";
  // An empty list where one is optional is most often meant as "none": say so, rather than zod's "Too small".
  if (issue.code === "too_small" && issue.origin === "array" && issue.message.startsWith("Too small")) return `must list at least ${Number(issue.minimum)} item${Number(issue.minimum) === 1 ? "" : "s"}; leave the field out when there is none`;
  if (issue.code === "unrecognized_keys") {
    const unknown = `unknown field${issue.keys.length > 1 ? "s" : ""} ${issue.keys.map((key) => `"${key}"`).join(", ")}`;
    // A misspelling is named with the field meant, of the format the case is in (a simple case's `questoin` is its
    // `question`, not anything of the Eval Case template), among those the object does not have already: a
    // `risk_levle` beside a `risk_level` is no misspelling of it.
    const absent = format.fields.filter((field) => !(isPlainRecord(given) && Object.hasOwn(given, field)));
    const meant = issue.keys.length === 1 ? closestNames(issue.keys[0]!, absent) : [];
    if (meant.length > 0) return `${unknown} — did you mean ${meant.map((field) => `"${field}"`).join(" or ")}? (a field of ${format.name})`;
    if (format.listFields && format.fields.length > 0) return `${unknown} (check the spelling against ${format.name}: ${format.fields.join(", ")})`;
    return `${unknown} (check the spelling against ${format.name})`;
  }
  if (issue.code === "invalid_value" && "values" in issue) {
    const allowed = `must be one of ${issue.values.map((value) => JSON.stringify(value)).join(", ")}`;
    // The seed's simple format takes `difficulty: easy` in any letter case, the Eval Case format only as the
    // template writes it: name the spelling meant (an allowed value, never the input itself).
    const meant = typeof given === "string" ? issue.values.find((value) => typeof value === "string" && value.toLowerCase() === given.trim().toLowerCase()) : undefined;
    return meant === undefined ? allowed : `${allowed} — write ${JSON.stringify(meant)}: letter case counts here`;
  }
  return issue.message;
}

/** safeParse with every issue carrying the value it was about, as describeIssue needs. */
export function parseReporting<Schema extends z.ZodType>(schema: Schema, value: unknown): ReturnType<Schema["safeParse"]> {
  return schema.safeParse(value, { reportInput: true }) as ReturnType<Schema["safeParse"]>;
}

/** zod's type names as a dataset's author reads them (YAML or JSON). */
const kindNames: Record<string, string> = {
  string: "a text",
  number: "a number",
  int: "a whole number",
  boolean: "true or false",
  array: "a list",
  object: "a mapping of fields",
  record: "a mapping of fields",
  date: "a date",
  null: "empty (null)",
};

function kindOf(value: unknown): string {
  if (value === null) return "empty (null)";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a mapping of fields";
  return kindNames[typeof value] ?? typeof value;
}

function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
