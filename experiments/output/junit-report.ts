/**
 * JUnit XML with one testcase per case (classname = dataset, name = case id
 * and version), in the shape of the JUnit schema CI systems read: a failed
 * verdict is a <failure>, a failed execution an <error>, a case nothing could
 * judge (unjudged, review_required, not_evaluated) is <skipped> with the
 * reason — it neither passed nor failed. A testcase's time is the request's
 * latency from the trace in seconds (0 when the trace recorded none), the
 * suite's their sum.
 */
import type { CaseRow } from "./case-rows.js";

const escapeXml = (text: string) =>
  text
    // Characters XML 1.0 cannot hold at all.
    .replace(/[^\u0009\u000a\u000d\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/gu, "\ufffd")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;");

/** Seconds with millisecond precision, in the plain decimal both JUnit schemas accept (no exponent, no grouping). */
const seconds = (milliseconds: number | null) => (milliseconds === null ? "0" : (Math.round(milliseconds) / 1000).toFixed(3));

export function junitReport(suiteName: string, className: string, rows: readonly CaseRow[], timestamp: string): string {
  const failures = rows.filter((row) => row.error === null && row.qualityStatus === "failed").length;
  const errors = rows.filter((row) => row.error !== null && row.executionStatus === "failed").length;
  const skipped = rows.filter((row) => !(row.error !== null && row.executionStatus === "failed") && row.qualityStatus !== "failed" && row.qualityStatus !== "passed").length;
  const lines = [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<testsuite name="${escapeXml(suiteName)}" tests="${rows.length}" failures="${failures}" errors="${errors}" skipped="${skipped}" time="${seconds(rows.reduce((sum, row) => sum + (row.latencyMs ?? 0), 0))}" timestamp="${escapeXml(timestamp.replace(/\.\d+Z$/, ""))}" hostname="localhost">`,
    `  <properties/>`,
  ];
  for (const row of rows) {
    const open = `  <testcase name="${escapeXml(`${row.caseId}@${row.caseVersion}`)}" classname="${escapeXml(className)}" time="${seconds(row.latencyMs)}"`;
    if (row.error !== null && row.executionStatus === "failed") {
      lines.push(`${open}>`, `    <error message="${escapeXml(row.error.message ?? row.error.type)}" type="${escapeXml(row.error.type)}">${escapeXml(row.error.message ?? "")}</error>`, `  </testcase>`);
    } else if (row.qualityStatus === "failed") {
      const detail = row.failed.map((item) => `[${item.evaluatorId}] ${item.reason}`).join("\n");
      lines.push(`${open}>`, `    <failure message="${escapeXml(row.rootCause ?? "failed")}" type="failed">${escapeXml(detail)}</failure>`, `  </testcase>`);
    } else if (row.qualityStatus === "passed") {
      lines.push(`${open}/>`);
    } else {
      lines.push(`${open}>`, `    <skipped message="${escapeXml(`verdict ${row.qualityStatus}: not a pass and not a failure`)}"/>`, `  </testcase>`);
    }
  }
  lines.push(`  <system-out/>`, `  <system-err/>`, `</testsuite>`, "");
  return lines.join("\n");
}
