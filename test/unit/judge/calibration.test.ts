/**
 * Agreement and Cohen's kappa, checked against values worked out by hand.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { calibrationReport, judgeLabelsFromEvaluationResults, type JudgeLabel } from "../../../evaluators/judge/calibration/calibration-report.js";
import { cohenKappa, type RatingPair } from "../../../evaluators/judge/calibration/cohen-kappa.js";
import { newHumanLabel } from "../../../evaluators/judge/calibration/human-label.js";
import { bucketOf } from "../../../evaluators/judge/calibration/ordinal-buckets.js";
import { percentAgreement } from "../../../evaluators/judge/calibration/percent-agreement.js";

const close = (actual: number | null, expected: number) => assert.ok(actual !== null && Math.abs(actual - expected) < 1e-9, `${actual} ≠ ${expected}`);

/**
 * Ten items, human (row) vs judge (column):
 *
 *                judge pass   judge fail   total
 *   human pass        5            1          6
 *   human fail        2            2          4
 *   total             7            3         10
 *
 * p_o   = (5 + 2) / 10                 = 0.7
 * p_e   = (6/10)(7/10) + (4/10)(3/10)  = 0.42 + 0.12 = 0.54
 * kappa = (0.7 − 0.54) / (1 − 0.54)    = 0.16 / 0.46 = 0.347826…
 */
const tenItems: RatingPair[] = [
  ...Array.from({ length: 5 }, (): RatingPair => ["pass", "pass"]),
  ["pass", "fail"],
  ["fail", "pass"],
  ["fail", "pass"],
  ["fail", "fail"],
  ["fail", "fail"],
];

describe("Cohen's kappa and agreement", () => {
  test("pass/fail on ten items, 2×2 table", () => {
    const statistics = cohenKappa(tenItems, ["fail", "pass"]);
    assert.equal(statistics.items, 10);
    assert.deepEqual(statistics.table, [
      [2, 2],
      [1, 5],
    ]);
    close(statistics.percentAgreement, 0.7);
    close(statistics.expectedAgreement, 0.54);
    close(statistics.kappa, 0.16 / 0.46);
    assert.equal(percentAgreement(tenItems), 0.7);
  });

  /**
   * Six items on three ordered buckets low < mid < high (K = 3):
   *
   *            judge low  mid  high   row
   *   low            1     1    0      2
   *   mid            0     1    1      2
   *   high           0     0    2      2
   *   column         1     2    3      6
   *
   * p_o = 4/6, p_e = (2·1 + 2·2 + 2·3) / 36 = 1/3, kappa = (2/3 − 1/3) / (2/3) = 0.5.
   * Expected counts e[i][j] = row_i · col_j / 6 = col_j / 3 → columns 1/3, 2/3, 1.
   * Linear weights |i−j|/2: observed Σw·n = 0.5 + 0.5 = 1;
   *   expected Σw·e = (0.5·2/3 + 1·1) + (0.5·1/3 + 0.5·1) + (1·1/3 + 0.5·2/3) = 4/3 + 2/3 + 2/3 = 8/3;
   *   kappa_linear = 1 − 1 / (8/3) = 0.625.
   * Quadratic weights ((i−j)/2)²: observed = 0.25 + 0.25 = 0.5;
   *   expected = (0.25·2/3 + 1·1) + (0.25·1/3 + 0.25·1) + (1·1/3 + 0.25·2/3) = 7/6 + 1/3 + 1/2 = 2;
   *   kappa_quadratic = 1 − 0.5 / 2 = 0.75.
   */
  test("ordinal buckets: kappa and the weighted kappas", () => {
    const pairs: RatingPair[] = [
      ["low", "low"],
      ["low", "mid"],
      ["mid", "mid"],
      ["mid", "high"],
      ["high", "high"],
      ["high", "high"],
    ];
    const statistics = cohenKappa(pairs, ["low", "mid", "high"]);
    close(statistics.percentAgreement, 4 / 6);
    close(statistics.expectedAgreement, 1 / 3);
    close(statistics.kappa, 0.5);
    close(statistics.linearWeightedKappa, 0.625);
    close(statistics.quadraticWeightedKappa, 0.75);
  });

  test("kappa is null, never NaN, when chance agreement is 1 or there are no items", () => {
    const allPass = cohenKappa([["pass", "pass"], ["pass", "pass"]], ["fail", "pass"]);
    assert.equal(allPass.percentAgreement, 1);
    assert.equal(allPass.kappa, null);
    assert.match(allPass.note ?? "", /undefined/);
    const empty = cohenKappa([], ["fail", "pass"]);
    assert.equal(empty.kappa, null);
    assert.equal(empty.percentAgreement, null);
    assert.equal(percentAgreement([]), null);
  });

  test("perfect disagreement on a balanced set is kappa −1", () => {
    close(cohenKappa([["pass", "fail"], ["fail", "pass"]]).kappa, -1);
  });

  test("value buckets: 0, 1/3, 2/3, 1 fall in four different buckets", () => {
    assert.deepEqual([0, 1 / 3, 2 / 3, 1].map((value) => bucketOf(value)), ["0-0.25", "0.25-0.5", "0.5-0.75", "0.75-1"]);
    assert.throws(() => bucketOf(Number.NaN), RangeError);
  });
});

describe("calibration report per judge and metric", () => {
  test("human labels paired with judge verdicts give the hand-worked agreement and kappa", () => {
    const human = tenItems.map(([humanVerdict], index) =>
      newHumanLabel({ case_result_id: `cr_${index}`, trace_id: "0af7651916cd43dd8448eb211c80319c", metric: "faithfulness", labeler_id: "alice", verdict: humanVerdict as "pass" | "fail", value: humanVerdict === "pass" ? 1 : 0, labeled_at: "2026-07-08T09:00:00Z" }),
    );
    const judged: JudgeLabel[] = tenItems.map(([, judgeVerdict], index) => ({ judgeId: "openai:gpt-x", metric: "faithfulness", caseResultId: `cr_${index}`, verdict: judgeVerdict as "pass" | "fail", value: judgeVerdict === "pass" ? 1 : 0 }));
    // A second judge that only saw two items, and a judge verdict with no human label.
    judged.push({ judgeId: "heuristic", metric: "faithfulness", caseResultId: "cr_0", verdict: "pass", value: 0.9 });
    judged.push({ judgeId: "heuristic", metric: "faithfulness", caseResultId: "cr_99", verdict: "fail", value: 0.1 });

    const [heuristic, openai] = calibrationReport(human, judged);
    assert.ok(heuristic && openai);
    assert.equal(openai.judgeId, "openai:gpt-x");
    assert.equal(openai.pairs, 10);
    assert.equal(openai.unpairedHumanLabels, 0);
    close(openai.passFail.percentAgreement, 0.7);
    close(openai.passFail.kappa, 0.16 / 0.46);
    // Values 0 and 1 land in the end buckets: the same table, the same kappa.
    close(openai.ordinal.kappa, 0.16 / 0.46);

    assert.equal(heuristic.pairs, 1);
    assert.equal(heuristic.unpairedHumanLabels, 9);
  });

  test("judge verdicts are read back from stored Evaluation Results; errors are not verdicts", () => {
    const base = { case_result_id: "cr_1", evidence_refs: [], confidence: { value: "high" as const, semantics: "judge_self_report" as const }, review_required: false, evaluated_at: "2026-07-08T10:00:00Z", reason: "" };
    const labels = judgeLabelsFromEvaluationResults([
      { ...base, evaluation_result_id: "er_1", evaluator_id: "judge.faithfulness", evaluator_version: "faithfulness@1+openai:gpt-x", metric_values: { faithfulness: 0.5, judge_cost: 0.01 }, outcome: "failed", error_type: "none" },
      { ...base, evaluation_result_id: "er_2", evaluator_id: "judge.answer_relevance", evaluator_version: "answer_relevance@1+openai:gpt-x", metric_values: { answer_relevance: null }, outcome: "error", error_type: "evaluator_error" },
      { ...base, evaluation_result_id: "er_3", evaluator_id: "citation_accuracy", evaluator_version: "1", metric_values: {}, outcome: "passed", error_type: "none" },
    ]);
    assert.deepEqual(labels, [{ judgeId: "openai:gpt-x", metric: "faithfulness", caseResultId: "cr_1", verdict: "fail", value: 0.5 }]);
  });
});
