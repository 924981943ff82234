/**
 * `ragscope eval --output` says which metrics' values are a heuristic's
 * (experiments/README.md "metric_semantics"): the catalog's semantics per
 * metric with its value counts, and the list of metrics any of whose values
 * in the run are a heuristic's — the rule heuristics (completeness,
 * number_agreement) and, with no LLM judge configured, the judged metrics the
 * heuristic judge scored. An exact rule's metric is neither. The existing
 * fields are unchanged.
 *
 * Built CLI as a subprocess, the JSON read back from the file.
 */
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { runRagscope, tasksFolder } from "./support/run-ragscope.js";

const ENVIRONMENT = { RAGSCOPE_CLICKHOUSE_URL: "", RAGSCOPE_JUDGE_BASE_URL: "" };

interface Results {
  evaluation_results: { metric_values: Record<string, number | null> }[];
  metric_semantics: Record<string, { semantics: string; values: number; heuristic_values: number; judged_as?: string; rule_in_seed?: string; decide_with?: string }>;
  heuristic_metrics: string[];
}

describe("eval --output: metric_semantics and heuristic_metrics", () => {
  let folder: string;
  let results: Results;

  before(async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), "ragscope-eval-semantics-"));
    const dataset = path.join(folder, "cases.json");
    const output = path.join(folder, "results.json");
    const answer = "Points expire after 12 months.";
    await writeFile(
      dataset,
      JSON.stringify({
        dataset_id: "semantics",
        dataset_version: "1",
        cases: [{ case_id: "case_points", case_version: "1", input: "When do points expire?", reference_answer: answer, key_points: ["points expire after 12 months"], metadata: { answer } }],
      }),
    );
    const evaluated = await runRagscope(["eval", "--dataset", dataset, "--task", path.join(tasksFolder, "retrieving-task.ts"), "--run-id", "semantics", "--data-dir", path.join(folder, "store"), "--output", output], ENVIRONMENT);
    assert.notEqual(evaluated.status, 2, evaluated.stdout + evaluated.stderr);
    results = JSON.parse(await readFile(output, "utf8")) as Results;
  });
  after(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  test("each metric of the evaluation results has its semantics; the heuristic ones are listed", () => {
    const named = new Set(results.evaluation_results.flatMap((result) => Object.keys(result.metric_values)));
    assert.deepEqual(Object.keys(results.metric_semantics).sort(), [...named].sort());

    assert.deepEqual(results.metric_semantics.completeness, {
      semantics: "heuristic",
      values: 1,
      heuristic_values: 1,
      decide_with: "configure an LLM judge (LOCAL-JUDGE.md): the rule then reads its completeness_judged",
      judged_as: "completeness_judged",
    });
    assert.equal(results.metric_semantics.number_agreement!.semantics, "heuristic");
    assert.equal(results.metric_semantics.number_agreement!.rule_in_seed, "004 §九.1 规则评测: 数字、日期、实体匹配");
    assert.deepEqual(results.metric_semantics.exact_match, { semantics: "deterministic_rule", values: 1, heuristic_values: 0 });
    // No LLM judge: the in-process eval's heuristic judge scored faithfulness; a judged metric, its values a heuristic's.
    assert.deepEqual(results.metric_semantics.faithfulness, { semantics: "judge", values: 1, heuristic_values: 1 });

    assert.ok(results.heuristic_metrics.includes("completeness"));
    assert.ok(results.heuristic_metrics.includes("number_agreement"));
    assert.ok(results.heuristic_metrics.includes("faithfulness"));
    assert.ok(!results.heuristic_metrics.includes("exact_match"));
    assert.deepEqual(results.heuristic_metrics, [...results.heuristic_metrics].sort());
  });
});
