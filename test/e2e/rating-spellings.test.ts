/**
 * A rating's value reads as the same number, or as none, on every surface (core/rating-value.ts): Grafana and
 * `ragscope report`'s business row read case_results.last_rating, which the engine materializes with
 * toFloat64OrNull when the result is written; the web UI's Quality page and the report's behaviour table read the
 * stored events in JavaScript. `Number` read " 5" and "\t1\n" (surrounding whitespace), 0x5, 0b101 and 0o5 as numbers
 * and "" as 0, where the engine read no number: the same ratings gave User satisfaction 4 in the behaviour table and 5
 * in the business row. Now the collector trims a rating's whitespace before storing it and JavaScript reads a rating
 * as the engine does: both read 4.2, the mean of the five ratings spelled as decimal numbers.
 *
 * As an operator meets it: OTLP/JSON over HTTP to a running `ragscope serve` (a subprocess of the built CLI), each
 * request with a rating recorded as a browser posts one (a `rag.feedback` span of kind `rating`), then
 * `ragscope report` over its data folder (its printed business row and its HTML behaviour table) and the stored
 * Case Results.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { caseResult as caseResultSchema } from "../../contracts/case-result.js";
import { startCollectorSubprocess, type CollectorSubprocess } from "../support/collector-subprocess.js";
import { sendRatedRequests } from "../support/rated-requests.js";
import { queryRows } from "../support/temporary-store.js";

const ragscope = fileURLToPath(new URL("../../bin/ragscope.js", import.meta.url));
// Each rating as sent, and the value stored: trimmed; the spellings the engine reads no number in are kept as sent.
const RATINGS: readonly (readonly [sent: string, stored: string])[] = [
  [" 5", "5"],
  ["5.0", "5.0"],
  ["+5", "+5"],
  ["5e0", "5e0"],
  ["\t1\n", "1"],
  ["0x5", "0x5"],
  ["0b101", "0b101"],
  ["0o5", "0o5"],
  ["", ""],
];
const traceIdOf = (index: number) => `d${String(index + 1).padStart(31, "0")}`;

let collector: CollectorSubprocess;
before(async () => (collector = await startCollectorSubprocess({ RAGSCOPE_JUDGE_ENABLED: "false" })));
after(async () => {
  if (collector.alive()) await collector.stop();
  await collector.remove();
});

test("a rating reads as the same number or none in the report's business row (the engine) and its behaviour table (JavaScript)", async () => {
  await sendRatedRequests(collector, RATINGS.map(([sent]) => sent), traceIdOf);

  const file = path.join(collector.dataDir, "report.html");
  const report = spawnSync(process.execPath, [ragscope, "report", "--data-dir", collector.dataDir, "--out", file], { encoding: "utf8", env: { ...process.env, RAGSCOPE_CLICKHOUSE_URL: "" } });
  assert.equal(report.status, 0, report.stderr);
  // The mean of 5, 5.0, +5, 5e0 and 1; 0x5, 0b101, 0o5 and "" are no ratings on either side.
  const businessRow = report.stdout.split("\n").find((line) => line.includes("User satisfaction")) ?? "";
  assert.equal(businessRow.trim(), "User satisfaction: Satisfaction 4.2", "the engine's reading");
  const html = readFileSync(file, "utf8");
  const behaviour = /<tr data-behaviour="satisfaction"[\s\S]*?data-value="([^"]*)"[^>]*>[^<]*<\/td><td class="number">(\d+) requests/.exec(html);
  assert.deepEqual(behaviour?.slice(1), ["4.2", "5"], "JavaScript's reading: the same mean over the same five ratings");

  const store = await collector.openStore();
  try {
    const rows = await queryRows<{ payload: string; last_rating: number | null }>(store, "SELECT payload, last_rating FROM {{database}}.case_results FINAL ORDER BY trace_id");
    const results = rows.map((row) => caseResultSchema.parse(JSON.parse(row.payload)));
    assert.deepEqual(
      results.map((result) => result.rag_observation.feedback.map((event) => [event.kind, event.value])),
      RATINGS.map(([, stored]) => [["rating", stored]]),
      "a rating's surrounding whitespace is trimmed; every other spelling is kept as sent",
    );
    assert.deepEqual(
      rows.map((row) => row.last_rating),
      [5, 5, 5, 5, 1, null, null, null, null],
    );
  } finally {
    await store.close();
  }
});
