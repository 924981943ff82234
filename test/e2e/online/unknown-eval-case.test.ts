/**
 * A trace that names an Eval Case the store does not hold — a dataset run
 * sent with `case_version` "v1" against cases of version "1" — is evaluated
 * without gold data. serve (a subprocess) says so on stderr, once per case,
 * naming the case, its version and what to do, and counts every such trace in
 * ragscope_unknown_cases_total; a trace naming a stored case is not counted.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { startCollectorSubprocess, type CollectorSubprocess } from "../../support/collector-subprocess.js";
import { postTraces, syntheticRequestBody, syntheticSpan, text } from "../../support/synthetic-otlp-requests.js";

const ragscope = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../bin/ragscope.js");

let folder: string;
let collector: CollectorSubprocess;

before(async () => {
  folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-unknown-case-"));
  const dataDir = path.join(folder, "store");
  // The seed's simple format: case_version defaults to "1".
  const dataset = path.join(folder, "cases.jsonl");
  await writeFile(dataset, `${JSON.stringify({ id: "refund_days", question: "How fast is a refund?", reference_answer: "7 days", relevant_document_ids: ["refund"], relevant_chunk_ids: ["refund-1"] })}\n`);
  const pushed = spawnSync(process.execPath, [ragscope, "dataset", "push", dataset, "--data-dir", dataDir], { encoding: "utf8", env: { ...process.env, RAGSCOPE_CLICKHOUSE_URL: "", RAGSCOPE_DATA_DIR: "" } });
  assert.equal(pushed.status, 0, pushed.stderr);
  collector = await startCollectorSubprocess({ RAGSCOPE_QUIET_PERIOD_MS: "200" }, { dataDir });
});
after(async () => {
  await collector.stop();
  await rm(folder, { recursive: true, force: true });
});

const linked = (trace: number, caseVersion: string) =>
  syntheticSpan(trace, 0, [text("ragscope.run_id", "run-1"), text("ragscope.case_id", "refund_days"), text("ragscope.case_version", caseVersion)]);

test("traces naming a case version the store lacks: one stderr line per case with the fix, every trace counted; the stored version is not", async () => {
  const answer = await postTraces(collector.receiverUrl, syntheticRequestBody([linked(1, "v1"), linked(2, "v1"), linked(3, "1")]));
  assert.equal(answer.status, 200, answer.body);
  for (let attempt = 0; attempt < 200 && (await collector.counter("ragscope_traces_written_total")) < 3; attempt += 1) await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(await collector.counter("ragscope_traces_written_total"), 3);
  assert.equal(await collector.counter("ragscope_unknown_cases_total"), 2);
  const lines = collector.output().split("\n").filter((line) => line.includes("which the store does not hold"));
  assert.equal(lines.length, 1, collector.output());
  assert.match(lines[0]!, /names Eval Case "refund_days" version "v1", which the store does not hold, so it is evaluated without gold data .*serve --dataset FILE, or ragscope dataset push FILE.*the simple format's default is "1"/);
});
