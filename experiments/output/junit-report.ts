/**
 * JUnit XML documents: a <testsuites> document of suites (experiment-junit.ts
 * puts an eval's cases and its release gate in one), in the shape of the
 * JUnit schemas CI systems read (Ant's requires `package` and `id` on a suite
 * inside <testsuites>, and nothing on <testsuites> itself).
 *
 * The cases' suite has one testcase per case (classname = dataset, name = case
 * id and version). A case is, in order:
 * - <error type="<execution error type>"> when its task failed (threw, timed
 *   out, returned nothing);
 * - <failure type="failed"> when its verdict is failed, the root cause as the
 *   message and the failed evaluations as the text;
 * - <error type="<error type>"> when its verdict is review_required because an
 *   evaluator errored (a judge's grader error such as `timeout`, or
 *   `invalid_evidence`: an input the evaluator refused) — the case could not
 *   be judged, a problem to fix, never a pass;
 * - <failure type="review_required"> when its verdict is review_required
 *   because a heuristic signal is against it: a person must look, so it is
 *   not a pass, and CI must not read the file as green;
 * - a plain testcase when it passed;
 * - <skipped> when nothing could judge it (unjudged, not_evaluated): it
 *   neither passed nor failed.
 * So a run with a case that needs review never reads as all green. A
 * testcase's time is the request's latency from the trace in seconds (0 when
 * the trace recorded none), the suite's their sum.
 */
import type { CaseRow } from "./case-rows.js";

export const escapeXml = (text: string) =>
  text
    // Characters XML 1.0 cannot hold at all.
    .replace(/[^\u0009\u000a\u000d\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/gu, "\ufffd")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;");

/** Seconds with millisecond precision, in the plain decimal both JUnit schemas accept (no exponent, no grouping). */
export const seconds = (milliseconds: number | null) => (milliseconds === null ? "0" : (Math.round(milliseconds) / 1000).toFixed(3));

/** What the testcase element of a row is. */
type Kind = "task_error" | "failed" | "evaluator_error" | "needs_review" | "passed" | "skipped";

function kindOf(row: CaseRow): Kind {
  if (row.error !== null && row.executionStatus === "failed") return "task_error";
  if (row.qualityStatus === "failed") return "failed";
  if (row.qualityStatus === "passed") return "passed";
  if (row.qualityStatus === "review_required") return row.errored.length > 0 ? "evaluator_error" : "needs_review";
  return "skipped";
}

const listed = (items: readonly { evaluatorId: string; reason: string }[]) => items.map((item) => `[${item.evaluatorId}] ${item.reason}`).join("\n");

/** The distinct error types of a row's errored evaluations, e.g. "invalid_evidence" or "timeout, invalid_evidence". */
const errorTypes = (row: CaseRow) => [...new Set(row.errored.map((item) => item.errorType))].join(", ");

/** One suite of the document: its testcase elements written, and their counts. */
export interface JunitSuite {
  name: string;
  tests: number;
  failures: number;
  errors: number;
  skipped: number;
  /** Seconds, as `seconds` writes them. */
  time: string;
  /** The testcase elements, each line indented by two spaces. */
  testcases: string[];
}

/** The document: every suite under <testsuites>, `package` and `id` as Ant's schema requires them there. */
export function junitDocument(suites: readonly JunitSuite[], timestamp: string): string {
  const lines = [`<?xml version="1.0" encoding="UTF-8"?>`, `<testsuites>`];
  suites.forEach((suite, index) => {
    lines.push(
      `  <testsuite name="${escapeXml(suite.name)}" package="${escapeXml(suite.name)}" id="${index}" tests="${suite.tests}" failures="${suite.failures}" errors="${suite.errors}" skipped="${suite.skipped}" time="${suite.time}" timestamp="${escapeXml(timestamp.replace(/\.\d+Z$/, ""))}" hostname="localhost">`,
      `    <properties/>`,
      ...suite.testcases.map((line) => `  ${line}`),
      `    <system-out/>`,
      `    <system-err/>`,
      `  </testsuite>`,
    );
  });
  lines.push(`</testsuites>`, "");
  return lines.join("\n");
}

/** The cases' suite: one testcase per case. */
export function caseSuite(suiteName: string, className: string, rows: readonly CaseRow[]): JunitSuite {
  const kinds = rows.map(kindOf);
  const count = (...wanted: Kind[]) => kinds.filter((kind) => wanted.includes(kind)).length;
  const lines: string[] = [];
  rows.forEach((row, index) => {
    const open = `  <testcase name="${escapeXml(`${row.caseId}@${row.caseVersion}`)}" classname="${escapeXml(className)}" time="${seconds(row.latencyMs)}"`;
    const element = (tag: "error" | "failure", message: string, type: string, text: string) => [`${open}>`, `    <${tag} message="${escapeXml(message)}" type="${escapeXml(type)}">${escapeXml(text)}</${tag}>`, `  </testcase>`];
    switch (kinds[index]!) {
      case "task_error":
        lines.push(...element("error", row.error!.message ?? row.error!.type, row.error!.type, row.error!.message ?? ""));
        break;
      case "failed":
        lines.push(...element("failure", row.rootCause ?? "failed", "failed", listed(row.failed)));
        break;
      case "evaluator_error": {
        const types = errorTypes(row);
        const message = `review required: ${row.errored.length} evaluation(s) errored (${types}), so the case could not be judged`;
        lines.push(...element("error", message, types, listed([...row.errored, ...row.reviewSignals])));
        break;
      }
      case "needs_review":
        lines.push(...element("failure", "review required: a heuristic signal is against the case and no LLM judge has judged it; a person must look", "review_required", listed(row.reviewSignals)));
        break;
      case "passed":
        lines.push(`${open}/>`);
        break;
      case "skipped":
        lines.push(`${open}>`, `    <skipped message="${escapeXml(`verdict ${row.qualityStatus}: nothing able to judge the case did — not a pass and not a failure`)}"/>`, `  </testcase>`);
        break;
    }
  });
  return { name: suiteName, tests: rows.length, failures: count("failed", "needs_review"), errors: count("task_error", "evaluator_error"), skipped: count("skipped"), time: seconds(rows.reduce((sum, row) => sum + (row.latencyMs ?? 0), 0)), testcases: lines };
}
