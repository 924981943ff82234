/**
 * A rating beyond 2^53 − 1 either way, or no finite number, is no rating (a unit or encoding mistake): the collector
 * reads its value as not available, with a note on the Case Result, as it reads a count or cost beyond that bound
 * (collector/04-normalize/out-of-range-rating.ts), and the satisfaction mean stands on the believable ratings. Read as
 * sent, two ratings of 1e308 added up beyond the largest number a value can hold in the engine's mean and the request
 * rollups' rating sum (and `inf` and `NaN` are numbers to the engine), and `ragscope report` (as Grafana and the web
 * UI, which read the same aggregates) showed the whole range's User satisfaction as no data.
 *
 * As an operator meets it: OTLP/JSON over HTTP to a running `ragscope serve` (a subprocess of the built CLI), each
 * request with a rating recorded as the SDK records it (a `rag.feedback` span of kind `rating` in the request's trace),
 * then `ragscope report` over its data folder and the stored Case Results. Nine requests rated 1e308, 1e308, -1e308,
 * inf, NaN, nan(1), -nan(ind) (out of range or no finite number: the engine reads C's NaN spellings too), 4 and 2
 * (the mean 3); and one rated "five stars", no number, which no mean reads and which is kept as sent.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import path from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { caseResult as caseResultSchema } from "../../contracts/case-result.js";
import { startCollectorSubprocess, type CollectorSubprocess } from "../support/collector-subprocess.js";
import { sendRatedRequests } from "../support/rated-requests.js";
import { queryRows } from "../support/temporary-store.js";

const ragscope = fileURLToPath(new URL("../../bin/ragscope.js", import.meta.url));
const RATINGS = ["1e308", "1e308", "-1e308", "inf", "NaN", "nan(1)", "-nan(ind)", "4", "2", "five stars"];
const traceIdOf = (index: number) => `c${String(index + 1).padStart(31, "0")}`;

let collector: CollectorSubprocess;
before(async () => (collector = await startCollectorSubprocess({ RAGSCOPE_JUDGE_ENABLED: "false" })));
after(async () => {
  if (collector.alive()) await collector.stop();
  await collector.remove();
});

test("ratings beyond 2^53 − 1 or not finite are not available, with a note, and the report's satisfaction stands on the others", async () => {
  await sendRatedRequests(collector, RATINGS, traceIdOf);

  const report = spawnSync(process.execPath, [ragscope, "report", "--data-dir", collector.dataDir, "--out", path.join(collector.dataDir, "report.html")], { encoding: "utf8", env: { ...process.env, RAGSCOPE_CLICKHOUSE_URL: "" } });
  assert.equal(report.status, 0, report.stderr);
  const satisfaction = report.stdout.split("\n").find((line) => line.includes("User satisfaction")) ?? "";
  assert.equal(satisfaction.trim(), "User satisfaction: Satisfaction 3", "the mean of 4 and 2, not no data");

  const store = await collector.openStore();
  try {
    const rows = await queryRows<{ payload: string }>(store, "SELECT payload FROM {{database}}.case_results FINAL ORDER BY trace_id");
    const results = rows.map((row) => caseResultSchema.parse(JSON.parse(row.payload)));
    assert.deepEqual(
      results.map((result) => result.rag_observation.feedback.map((event) => [event.kind, event.value])),
      [[["rating", null]], [["rating", null]], [["rating", null]], [["rating", null]], [["rating", null]], [["rating", null]], [["rating", null]], [["rating", "4"]], [["rating", "2"]], [["rating", "five stars"]]],
      "every rating event is kept; the values out of range are not available",
    );
    const notes = results.map((result) => result.rag_observation.malformed_attributes.filter((note) => note.attribute === "ragscope.feedback.value").map((note) => [note.span_name, note.kind, note.error]));
    for (const index of [0, 1, 2]) {
      assert.equal(notes[index]!.length, 1, RATINGS[index]);
      assert.deepEqual(notes[index]![0]!.slice(0, 2), ["rag.feedback", "unreadable_value"]);
      assert.match(String(notes[index]![0]![2]), /^is "-?1e308", beyond 9007199254740991 \(2\^53 − 1\) either way, the most ragscope reads as a rating: .* so the rating's value is not available; the event is kept$/);
    }
    for (const index of [3, 4, 5, 6]) assert.match(String(notes[index]![0]?.[2]), /^is "(inf|NaN|nan\(1\)|-nan\(ind\))", which is no finite number: .* not available; the event is kept$/, RATINGS[index]);
    assert.deepEqual(notes.slice(7), [[], [], []], "4, 2 and a rating that is no number are read as sent, without a note");
  } finally {
    await store.close();
  }
});
