/**
 * `ragscope experiment report` as a subprocess over stored experiments whose
 * judged metric (faithfulness) the heuristic judge scored — the stand-in when
 * no language-model judge is configured or sampled, whose values the release
 * gate, the boards and the rollups never decide on. 30 users per arm, one
 * request each, written through the store's own write port with the
 * evaluator_version the judge stage writes (`…+heuristic`).
 * - every value from the heuristic judge, falling from ~0.95 to ~0.3: the
 *   metric is shown as the heuristic judge's measurement and decides nothing
 *   (it used to be decided "worse", as if a language-model judge had said so);
 * - a language-model judge on two requests of three, the same in both arms,
 *   the heuristic judge on the third, falling as above: decided on the
 *   language-model judge's values alone (no difference), saying how many of
 *   the heuristic judge's were left out (together they read "worse").
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { caseResult } from "../../../contracts/case-result.js";
import { evaluationResult, type EvaluationResult } from "../../../contracts/evaluation-result.js";
import type { ExperimentReport } from "../../../evaluators/experiments/experiment-report.js";
import { measured, plannedCaseResult, writeToFolder } from "../../support/stored-requests.js";

const ragscope = fileURLToPath(new URL("../../../bin/ragscope.js", import.meta.url));
const PER_ARM = 30;
const start = Date.parse("2026-11-01T09:00:00.000Z");

/** A faithfulness verdict as the judge stage stores it: the heuristic judge's version ends with "+heuristic". */
function faithfulness(caseResultId: string, value: number, judge: "heuristic" | "language model", evaluatedAtMs: number): EvaluationResult {
  const base = measured(caseResultId, "judge.faithfulness", { faithfulness: value }, evaluatedAtMs);
  return evaluationResult.parse({
    ...base,
    evaluator_version: judge === "heuristic" ? "faithfulness@3+heuristic" : "faithfulness@3+openai:gpt-4o-mini",
    outcome: value >= 0.7 ? "passed" : "failed",
    confidence: judge === "heuristic" ? { value: 0.5, semantics: "heuristic" } : { value: 0.9, semantics: "judge_self_report" },
  });
}

/** The heuristic judge's score of request `index`: ~0.95 in the control, ~0.3 in the treatment. */
const heuristicScore = (variant: "control" | "treatment", index: number) => (variant === "control" ? 0.95 : 0.3) + ((index % 5) - 2) / 100;

async function writeExperiment(dataDir: string, experimentId: string, firstNumber: number, judgeOf: (index: number) => "heuristic" | "language model") {
  const batch = (["control", "treatment"] as const).flatMap((variant, arm) =>
    Array.from({ length: PER_ARM }, (_, index) => {
      const number = firstNumber + arm * PER_ARM + index;
      const caseResultId = `cr_judge_${number}`;
      const planned = plannedCaseResult({ caseResultId, traceId: (number + 1).toString(16).padStart(32, "0"), sessionId: `session-${number}`, startedAtMs: start + number * 1_000 });
      const stored = caseResult.parse({ ...planned, rag_observation: { ...planned.rag_observation, user_id: `user-${number}`, experiment_id: experimentId, experiment_variant: variant } });
      const judge = judgeOf(index);
      // The language-model judge scores both arms alike; the heuristic judge's scores fall.
      const value = judge === "heuristic" ? heuristicScore(variant, index) : 0.8 + ((index % 5) - 2) / 100;
      return { caseResult: stored, evaluationResults: [faithfulness(caseResultId, value, judge, start + number * 1_000 + 3_000)] };
    }),
  );
  await writeToFolder(dataDir, batch);
}

function run(dataDir: string, experimentId: string, ...flags: string[]) {
  const result = spawnSync(process.execPath, [ragscope, "experiment", "report", "--id", experimentId, "--data-dir", dataDir, ...flags], { encoding: "utf8", env: { ...process.env, RAGSCOPE_CLICKHOUSE_URL: "" } });
  assert.equal(result.status, 0, result.stderr);
  return result.stdout;
}

describe("ragscope experiment report on a metric the heuristic judge scored", () => {
  let dataDir: string;

  before(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), "ragscope-experiment-heuristic-judge-"));
    await writeExperiment(dataDir, "exp-heuristic-judge", 0, () => "heuristic");
    await writeExperiment(dataDir, "exp-mixed-judges", 2 * PER_ARM, (index) => (index % 3 === 0 ? "heuristic" : "language model"));
  });

  after(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  const faithfulnessOf = (report: ExperimentReport) => {
    const metric = report.metrics.find((item) => item.metric === "faithfulness");
    assert.ok(metric, "faithfulness is in the report");
    return { metric, comparison: metric.comparisons.find((item) => item.variant === "treatment")! };
  };

  test("only the heuristic judge's values: a measurement labelled as the heuristic judge's, not decided worse", () => {
    const report = JSON.parse(run(dataDir, "exp-heuristic-judge", "--json")) as ExperimentReport;
    const { metric, comparison } = faithfulnessOf(report);
    assert.notEqual(comparison.verdict, "worse", "the heuristic judge's scores decide nothing");
    assert.equal(comparison.verdict, "heuristic_not_decided");
    assert.equal(comparison.indication, "worse", "what its numbers alone say is kept");
    assert.deepEqual([metric.heuristicJudge, metric.decides], [true, false]);
    assert.deepEqual(metric.values.map((item) => [item.variant, item.observations]), [["control", 30], ["treatment", 30]]);
    const decision = report.decisions[0]!;
    assert.doesNotMatch(decision.split("; heuristics")[0]!, /faithfulness/, "faithfulness is not among the decided metrics");
    assert.match(decision, /heuristics, not decided \(a reason to look, never a verdict\): worse on faithfulness \(heuristic judge, measurement\)/);

    const text = run(dataDir, "exp-heuristic-judge");
    assert.match(text, /  faithfulness \(heuristic judge, measurement\) \[judge, mean\]: control 0\.9500 \(n 30\) · treatment 0\.3000 \(n 30\)\n {4}treatment − control: [^\n]*→ not decided \(heuristic\); its numbers alone: worse/);
    assert.match(text, /note: an arm has only the heuristic judge's values[^\n]*a measurement that decides nothing/);
  });

  test("a language-model judge beside the heuristic judge: decided on the language-model judge's values, the heuristic judge's counted as left out", () => {
    const report = JSON.parse(run(dataDir, "exp-mixed-judges", "--json")) as ExperimentReport;
    const { metric, comparison } = faithfulnessOf(report);
    assert.deepEqual([metric.heuristicJudge, metric.decides], [false, true]);
    assert.deepEqual(
      metric.values.map((item) => [item.variant, item.observations, item.valuesLeftOut]),
      [["control", 20, 10], ["treatment", 20, 10]],
      "20 language-model judge values compared per arm, the heuristic judge's 10 left out",
    );
    assert.equal(comparison.verdict, "no_difference", "the language-model judge scores both arms alike");
    assert.doesNotMatch(report.decisions[0]!, /worse on [^;]*faithfulness/);

    const text = run(dataDir, "exp-mixed-judges");
    assert.match(text, /  faithfulness \[judge, mean\]: control 0\.8000 \(n 20\) · treatment 0\.8000 \(n 20\)\n[^\n]*→ no significant difference/);
    assert.match(text, /note: decided on the language-model judge's values only; the heuristic judge's left out, as the release gate leaves them out \(control 10, treatment 10\)/);
  });
});
