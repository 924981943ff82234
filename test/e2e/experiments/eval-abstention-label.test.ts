/**
 * `ragscope eval` labels answer.abstention's metrics "(heuristic)" only for values a heuristic read. The catalog
 * declares the evaluator a heuristic (it reads refusal phrases), but a value the trace itself carried — the
 * application's `ragscope.answer.abstained` — is recorded as read exactly (confidence deterministic_rule), as the trace
 * page already shows it. Before, eval printed `abstained (heuristic)` and listed both metrics in `--output`'s
 * heuristic_metrics for a task that flags every answer. A task that records no flag still reads them heuristically, and
 * a run with both kinds says how many are the heuristic's.
 *
 * Built CLI as a subprocess (the scripted task records the flag only when the case's metadata gives it), the printed
 * metric table and the `--output` JSON read back.
 */
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { runRagscope, tasksFolder } from "./support/run-ragscope.js";

const ENVIRONMENT = { RAGSCOPE_CLICKHOUSE_URL: "", RAGSCOPE_JUDGE_BASE_URL: "" };

interface Results {
  metric_semantics: Record<string, { semantics: string; values: number; heuristic_values: number; decide_with?: string }>;
  heuristic_metrics: string[];
}

interface Script {
  answer: string;
  abstained?: boolean;
}

const UNANSWERABLE_REFUSAL_BESIDE_CLAIM = { case_id: "u_refusal_beside_claim", input: "公司有几个食堂？", answerable: false, answer: "资料中没有相关信息，但食堂有三个。" };
const ANSWERABLE = { case_id: "a_answer", input: "年假有几天？", answerable: true, answer: "年假是15天。" };

/** One case of the scripted task, carrying the abstention flag when `abstained` is given. */
function scriptedCase(item: { case_id: string; input: string; answerable: boolean; answer: string }, abstained?: boolean) {
  const metadata: Script = { answer: item.answer, ...(abstained === undefined ? {} : { abstained }) };
  return { case_id: item.case_id, case_version: "1", input: item.input, answerable: item.answerable, metadata };
}

describe("eval labels abstention metrics heuristic only for the values a heuristic read", () => {
  let folder: string;
  const runs = new Map<string, { stdout: string; results: Results }>();

  async function evaluate(runId: string, cases: unknown[]): Promise<void> {
    const dataset = path.join(folder, `${runId}.json`);
    const output = path.join(folder, `${runId}-results.json`);
    await writeFile(dataset, JSON.stringify({ dataset_id: runId, dataset_version: "1", cases }));
    const evaluated = await runRagscope(["eval", "--dataset", dataset, "--task", path.join(tasksFolder, "scripted-rag-task.ts"), "--run-id", runId, "--data-dir", path.join(folder, runId), "--output", output], ENVIRONMENT);
    assert.notEqual(evaluated.status, 2, evaluated.stdout + evaluated.stderr);
    runs.set(runId, { stdout: evaluated.stdout, results: JSON.parse(await readFile(output, "utf8")) as Results });
  }

  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-eval-abstention-label-"));
    // The application flags every answer, a refusal beside a claim included: each value is the trace's.
    await evaluate("flagged", [scriptedCase(UNANSWERABLE_REFUSAL_BESIDE_CLAIM, true), scriptedCase(ANSWERABLE, false)]);
    // No flag: both are read from the answer's words, the refusal phrase beside a claim and the answer without one.
    await evaluate("unflagged", [scriptedCase(UNANSWERABLE_REFUSAL_BESIDE_CLAIM), scriptedCase(ANSWERABLE)]);
    await evaluate("mixed", [scriptedCase(UNANSWERABLE_REFUSAL_BESIDE_CLAIM, true), scriptedCase(ANSWERABLE)]);
  });
  after(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  test("every value from the trace's flag: the metric table and --output call neither metric heuristic", () => {
    const { stdout, results } = runs.get("flagged")!;
    assert.match(stdout, /^ {4}abstained {2,}0\.5000 {2}n=2$/m, stdout);
    assert.match(stdout, /^ {4}abstention_correct {2,}1\.0000 {2}n=2$/m, stdout);
    assert.doesNotMatch(stdout, /abstain\w* \(heuristic/, stdout);
    assert.ok(!results.heuristic_metrics.includes("abstained"), results.heuristic_metrics.join(", "));
    assert.ok(!results.heuristic_metrics.includes("abstention_correct"), results.heuristic_metrics.join(", "));
    assert.deepEqual(results.metric_semantics.abstained, { semantics: "heuristic", values: 2, heuristic_values: 0, decide_with: results.metric_semantics.abstained!.decide_with! });
  });

  test("no flag on the trace: both metrics are still the heuristic's, on the table and in --output", () => {
    const { stdout, results } = runs.get("unflagged")!;
    assert.match(stdout, /^ {4}abstained \(heuristic\) {2,}\S+ {2}n=2$/m, stdout);
    assert.match(stdout, /^ {4}abstention_correct \(heuristic\) {2,}\S+ {2}n=2$/m, stdout);
    assert.ok(results.heuristic_metrics.includes("abstained"), results.heuristic_metrics.join(", "));
    assert.ok(results.heuristic_metrics.includes("abstention_correct"), results.heuristic_metrics.join(", "));
    assert.equal(results.metric_semantics.abstained!.heuristic_values, 2);
  });

  test("one flagged, one not: the label says how many of the values are the heuristic's", () => {
    const { stdout, results } = runs.get("mixed")!;
    assert.match(stdout, /^ {4}abstained \(heuristic for 1 of 2\) {2,}\S+ {2}n=2$/m, stdout);
    assert.match(stdout, /^ {4}abstention_correct \(heuristic for 1 of 2\) {2,}\S+ {2}n=2$/m, stdout);
    assert.ok(results.heuristic_metrics.includes("abstained"), results.heuristic_metrics.join(", "));
    assert.equal(results.metric_semantics.abstained!.heuristic_values, 1);
  });
});
