/**
 * Turns zod issues into one line each: `cases[3].gold_evidence[0].document_id: required`.
 * Evaluation engineers read these in a terminal or a CI log, so the path is
 * written the way they would index the file, and zod's generic wording is
 * replaced where a plainer one exists.
 */
import type { z } from "zod";

export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let text = "";
  for (const segment of path) {
    if (typeof segment === "number") text += `[${segment}]`;
    else text += text === "" ? String(segment) : `.${String(segment)}`;
  }
  return text;
}

export function describeIssue(issue: z.core.$ZodIssue): string {
  if (issue.code === "invalid_type" && issue.input === undefined) return "required";
  if (issue.code === "unrecognized_keys") {
    return `unknown field${issue.keys.length > 1 ? "s" : ""} ${issue.keys.map((key) => `"${key}"`).join(", ")} (check the spelling against the Eval Case template)`;
  }
  if (issue.code === "invalid_value" && "values" in issue) {
    return `must be one of ${issue.values.map((value) => JSON.stringify(value)).join(", ")}`;
  }
  return issue.message;
}
