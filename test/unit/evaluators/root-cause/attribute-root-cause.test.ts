import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { evaluationResult } from "../../../../contracts/evaluation-result.js";
import { createDefaultRegistry } from "../../../../evaluators/default-registry.js";
import { evaluateCaseResult } from "../../../../evaluators/evaluate-case-result.js";
import { assessGroundedness } from "../../../../evaluators/online/heuristic-groundedness.js";
import { attributeRootCause } from "../../../../evaluators/root-cause/attribute-root-cause.js";
import { EXECUTION_ROOT_CAUSE_LABELS, QUALITY_ROOT_CAUSE_LABELS, ROOT_CAUSE_LABEL_NAMES, ROOT_CAUSE_LABELS, UNATTRIBUTED, type RootCauseLabel } from "../../../../evaluators/root-cause/root-cause-labels.js";
import { ROOT_CAUSE_PROCEDURE } from "../../../../evaluators/root-cause/root-cause-procedure.js";
import { rootCauseEvaluationResult } from "../../../../evaluators/root-cause/root-cause-evaluation-result.js";
import { seedExample } from "../../../support/case-results.js";
import { caseResultWith } from "../rules/build-case-result.js";
import { storedResult } from "../aggregate/evaluated-cases.js";
import { EVIDENCE_TEXT, SCENARIOS, failedCase, failedResult, gold, leaveCase, noise, type Scenario } from "./root-cause-scenarios.js";

function attribute(scenario: Scenario) {
  return attributeRootCause(scenario.caseResult, scenario.evalCase, scenario.results, scenario.options);
}

describe("the 18 labels and the 3 execution labels", () => {
  test("the seed's labels with their Chinese descriptions, the execution error types; the procedure can reach every one, and ends UNATTRIBUTED", () => {
    assert.equal(Object.keys(QUALITY_ROOT_CAUSE_LABELS).length, 18);
    assert.deepEqual(Object.keys(EXECUTION_ROOT_CAUSE_LABELS), ["SYSTEM_ERROR", "TIMEOUT", "ENVIRONMENT_ERROR"]);
    assert.equal(ROOT_CAUSE_LABEL_NAMES.length, 21);
    assert.equal(ROOT_CAUSE_LABELS.CONTEXT_TRUNCATED, "关键证据被截断");
    assert.deepEqual(new Set(ROOT_CAUSE_PROCEDURE.map((step) => step.label)), new Set([...ROOT_CAUSE_LABEL_NAMES, UNATTRIBUTED]));
    assert.equal(ROOT_CAUSE_PROCEDURE.at(-1)!.label, UNATTRIBUTED);
    assert.deepEqual(Object.keys(SCENARIOS).sort(), [...ROOT_CAUSE_LABEL_NAMES].sort());
  });

  for (const label of Object.keys(SCENARIOS) as RootCauseLabel[]) {
    test(`${label}: its minimal case gets exactly that label`, () => {
      const attribution = attribute(SCENARIOS[label]());
      assert.ok(attribution, "a failed case always gets a label");
      assert.equal(attribution.label, label, attribution.reason);
      assert.ok(attribution.reason.length > 0);
    });
  }
});

describe("several reference answers", () => {
  test("REASONING_ERROR only when the answer misses a stated fact of every reference", () => {
    const scenario = SCENARIOS.REASONING_ERROR();
    const allMissed = { ...scenario, evalCase: leaveCase({ reference_answer: ["每年5天年假", "带薪年假5天"] }) };
    assert.equal(attribute(allMissed)?.label, "REASONING_ERROR");
    const oneAgrees = { ...scenario, evalCase: leaveCase({ reference_answer: ["每年5天年假", "员工每年享有10天年假"] }) };
    assert.notEqual(attribute(oneAgrees)?.label, "REASONING_ERROR");
  });
});

describe("misreading, omission and an answer about something else", () => {
  const keyPoints = ["连续工作满12个月", "每年5天年假"];
  test("an answer that leaves the reference's numbers out states no wrong one: INCOMPLETE_ANSWER when key points were missed, not REASONING_ERROR", () => {
    const omission: Scenario = {
      caseResult: failedCase({ retrieved: [gold], packed: ["g"], context: `连续工作满12个月后，${EVIDENCE_TEXT}`, output: "员工每年享有年假。" }),
      evalCase: leaveCase({ reference_answer: "连续工作满12个月后每年5天年假", key_points: keyPoints }),
      results: [failedResult("answer.fact_agreement", { number_agreement: 0 }), failedResult("answer.completeness", { completeness: 0 })],
    };
    const attribution = attribute(omission)!;
    assert.equal(attribution.label, "INCOMPLETE_ANSWER", attribution.reason);
    assert.match(attribution.reason, /^heuristic reading of the texts, not a verdict — completeness 0/);
  });

  test("REASONING_ERROR names the value the answer states instead of the context's", () => {
    const attribution = attribute(SCENARIOS.REASONING_ERROR())!;
    assert.equal(attribution.label, "REASONING_ERROR");
    assert.match(attribution.reason, /the context states "5天" \(the answer says "10天"\) as the reference does/);
  });

  test("an LLM judge's failed completeness_judged is an INCOMPLETE_ANSWER, without the heuristic's opening", () => {
    const scenario = SCENARIOS.INCOMPLETE_ANSWER();
    const judged: Scenario = {
      ...scenario,
      results: [
        storedResult("cr_test", "answer.completeness", { completeness: 1 }, "passed"),
        { ...failedResult("judge.completeness_judged", { completeness_judged: 0.5 }), confidence: { value: "high", semantics: "judge_self_report" } },
      ],
    };
    const attribution = attribute(judged)!;
    assert.equal(attribution.label, "INCOMPLETE_ANSWER", attribution.reason);
    assert.equal(attribution.reason, "an LLM judge found key points missing (completeness_judged 0.5)");
  });

  test("SHOULD_ABSTAIN read from the answer's words (no trace flag) opens as a heuristic reading; with the flag it does not", () => {
    const flagged = attribute(SCENARIOS.SHOULD_ABSTAIN())!;
    assert.deepEqual([flagged.label, flagged.confidence], ["SHOULD_ABSTAIN", "deterministic_rule"]);
    assert.equal(flagged.reason, "the case is unanswerable but the system answered (the trace flags no abstention)");
    const scenario = SCENARIOS.SHOULD_ABSTAIN();
    const unflagged = attribute({ ...scenario, caseResult: failedCase({ retrieved: [noise("n")], packed: ["n"], output: "年假可以折现" }) })!;
    assert.deepEqual([unflagged.label, unflagged.confidence], ["SHOULD_ABSTAIN", "heuristic"]);
    assert.equal(unflagged.reason, "heuristic reading of the texts, not a verdict — the case is unanswerable but the system answered (the answer holds no refusal phrase)");
  });
});

describe("the evidence that decided", () => {
  test("PERMISSION_LEAK names the chunk and the stored violation rate", () => {
    const attribution = attribute(SCENARIOS.PERMISSION_LEAK())!;
    assert.deepEqual(attribution.evidence.chunkIds, ["g"]);
    assert.deepEqual(attribution.evidence.metricValues, { permission_violation_rate: 1 });
    assert.deepEqual(attribution.evidence.evaluationResultIds, ["er_cr_test_retrieval.permission"]);
    // The scenario retrieves g (no rerank) and packs it: the reason says where it appeared.
    assert.match(attribution.reason, /g \(acl hr; retrieved, packed into the context\)/);
  });

  test("CONTEXT_TRUNCATED on the seed's example: the evidence chunk retrieved at rank 2 was not packed", () => {
    const attribution = attribute(SCENARIOS.CONTEXT_TRUNCATED())!;
    assert.deepEqual(attribution.evidence.chunkIds, ["refund_member_points_02"]);
    assert.deepEqual(attribution.evidence.metricValues, { context_recall: 0 });
    assert.equal(attribution.confidence, "deterministic_rule");
  });

  test("RERANK_BAD names the first-stage rank and the rerank uplift", () => {
    const attribution = attribute(SCENARIOS.RERANK_BAD())!;
    assert.match(attribution.reason, /rank 1 before the rerank and at rank 6 after/);
    assert.equal(attribution.evidence.metricValues.rerank_uplift, -0.61);
  });

  test("HALLUCINATION quotes the unsupported sentence", () => {
    const attribution = attribute(SCENARIOS.HALLUCINATION())!;
    assert.match(attribution.reason, /"未使用的年假可以折现"/);
    assert.equal(attribution.confidence, "heuristic");
  });

  test("RETRIEVAL_MISS without a corpus index says a missing document cannot be told apart", () => {
    assert.match(attribute(SCENARIOS.RETRIEVAL_MISS())!.reason, /no chunk of leave was retrieved — without a corpus index/);
  });

  test("FORMAT_ERROR also when the case asks for JSON and the answer does not parse", () => {
    const scenario = SCENARIOS.FORMAT_ERROR();
    const caseResult = { ...scenario.caseResult, output: "年假5天" };
    const attribution = attributeRootCause(caseResult, leaveCase({ context: { output_format: "json" } }), scenario.results);
    assert.equal(attribution?.label, "FORMAT_ERROR");
    assert.equal(attributeRootCause({ ...caseResult, output: '{"days": 5}' }, leaveCase({ context: { output_format: "json" } }), scenario.results)?.label === "FORMAT_ERROR", false);
  });
});

describe("ordering: when two conditions hold, the earlier step wins", () => {
  test("PERMISSION_LEAK before SHOULD_ABSTAIN", () => {
    const scenario = SCENARIOS.SHOULD_ABSTAIN();
    const caseResult = failedCase({ retrieved: [{ ...noise("n"), tenant_id: "other" }], packed: ["n"], tenant_id: "mine", output: "年假可以折现", abstained: false });
    assert.equal(attributeRootCause(caseResult, scenario.evalCase, scenario.results)?.label, "PERMISSION_LEAK");
  });

  test("RETRIEVAL_MISS before HALLUCINATION: the evidence was never there to support the answer", () => {
    const caseResult = failedCase({ retrieved: [noise("n")], packed: ["n"], context: "加班费按小时工资的1.5倍计算", output: "未使用的年假可以折现。" });
    assert.equal(attributeRootCause(caseResult, leaveCase(), [])?.label, "RETRIEVAL_MISS");
  });

  test("REASONING_ERROR before HALLUCINATION: the wrong number is unsupported, but the context held the right one", () => {
    const scenario = SCENARIOS.REASONING_ERROR();
    assert.deepEqual(assessGroundedness(scenario.caseResult.output!, EVIDENCE_TEXT).unsupported, ["员工每年享有10天年假"]);
    assert.equal(attribute(scenario)?.label, "REASONING_ERROR");
    assert.equal(attributeRootCause(scenario.caseResult, leaveCase(), scenario.results)?.label, "HALLUCINATION", "without the reference answer only the unsupported claim remains");
  });

  test("CONTEXT_TRUNCATED before CITATION_ERROR on the seed's example", () => {
    const scenario = SCENARIOS.CONTEXT_TRUNCATED();
    const results = [...scenario.results, failedResult("citation.accuracy", { citation_accuracy: 0 })];
    assert.equal(attributeRootCause(scenario.caseResult, scenario.evalCase, results)?.label, "CONTEXT_TRUNCATED");
  });

  test("a never-retrieved gold document is DATA_MISSING only when a corpus index lacks it; otherwise RETRIEVAL_MISS", () => {
    const scenario = SCENARIOS.DATA_MISSING();
    assert.equal(attributeRootCause(scenario.caseResult, scenario.evalCase, scenario.results)?.label, "RETRIEVAL_MISS");
    assert.equal(attributeRootCause(scenario.caseResult, scenario.evalCase, scenario.results, { corpusDocumentIds: new Set(["leave", "payroll"]) })?.label, "RETRIEVAL_MISS");
  });

  test("OVER_ABSTAIN with the evidence in the context before anything else downstream; without it, the upstream cause wins", () => {
    const caseResult = failedCase({ retrieved: [noise("n")], packed: ["n"], output: "资料不足，无法回答", abstained: true });
    assert.equal(attributeRootCause(caseResult, leaveCase(), [])?.label, "RETRIEVAL_MISS");
  });
});

describe("with the default registry's real Evaluation Results", () => {
  test("the seed's example: the registry fails it, attribution says CONTEXT_TRUNCATED", () => {
    const { caseResult, evalCase } = seedExample();
    const evaluation = evaluateCaseResult(createDefaultRegistry(), caseResult, evalCase, "2026-07-08T09:32:01Z");
    assert.equal(evaluation.caseResult.quality_status, "failed");
    const attribution = attributeRootCause(evaluation.caseResult, evalCase, evaluation.evaluationResults);
    assert.equal(attribution?.label, "CONTEXT_TRUNCATED");
    assert.equal(attribution?.evidence.metricValues.evidence_truncated, 1);
  });

  test("an expired version cited and packed: DATA_OUTDATED", () => {
    const scenario = SCENARIOS.DATA_OUTDATED();
    const evaluation = evaluateCaseResult(createDefaultRegistry(), { ...scenario.caseResult, quality_status: "not_evaluated" }, scenario.evalCase, "2026-07-08T09:32:01Z");
    assert.equal(evaluation.caseResult.quality_status, "failed");
    assert.equal(attributeRootCause(evaluation.caseResult, scenario.evalCase, evaluation.evaluationResults)?.label, "DATA_OUTDATED");
  });
});

describe("passed cases and the stored result", () => {
  test("a passed or unevaluated case has no root cause", () => {
    const passed = caseResultWith({ retrieved: [gold], packed: ["g"], context: EVIDENCE_TEXT, output: EVIDENCE_TEXT }, { quality_status: "passed" });
    assert.equal(attributeRootCause(passed, leaveCase(), []), null);
    assert.equal(attributeRootCause(caseResultWith(), null, []), null);
  });

  test("a failed Evaluation Result alone marks the case failed; online traffic without a cause found is UNATTRIBUTED", () => {
    const online = caseResultWith({ output: "x" });
    const attribution = attributeRootCause(online, null, [failedResult("answer.reference_match", { token_f1: 0 })]);
    assert.equal(attribution?.label, UNATTRIBUTED);
    // It names what failed and claims no cause (it was "QUERY_UNDERSTANDING: … read as a misunderstood question").
    assert.equal(attribution?.reason, "no step of the procedure found a cause; failed: answer.reference_match: stored for the test");
  });

  test("stored as an Evaluation Result: evaluator root_cause, no metric values, reason '<LABEL>: …', refs to chunks and results", () => {
    const scenario = SCENARIOS.CONTEXT_TRUNCATED();
    const attribution = attribute(scenario)!;
    const stored = evaluationResult.parse(rootCauseEvaluationResult(scenario.caseResult, attribution, "2026-07-08T09:32:01Z"));
    assert.equal(stored.evaluator_id, "root_cause");
    assert.deepEqual(stored.metric_values, {});
    assert.match(stored.reason, /^CONTEXT_TRUNCATED: gold #1 in refund_member_points_02 dropped/);
    assert.deepEqual(stored.evidence_refs, ["chunk://refund_member_points_02", "evaluation://er_cr_test_context.coverage"]);
    assert.equal(stored.outcome, "failed");
    assert.deepEqual(stored.confidence, { value: 1, semantics: "deterministic_rule" });
    const again = rootCauseEvaluationResult(scenario.caseResult, attribution, "2026-07-09T00:00:00Z");
    assert.equal(again.evaluation_result_id, stored.evaluation_result_id, "deterministic id");
    // A stored root cause is ignored when the attribution runs again.
    assert.equal(attributeRootCause(scenario.caseResult, scenario.evalCase, [...scenario.results, stored])?.label, "CONTEXT_TRUNCATED");
  });

  test("UNATTRIBUTED asks for review and is stored under no label of the seed", () => {
    const caseResult = failedCase({ output: "x" });
    const stored = rootCauseEvaluationResult(caseResult, attributeRootCause(caseResult, null, [failedResult("answer.reference_match", { token_f1: 0 })])!, "2026-07-08T09:32:01Z");
    assert.equal(stored.review_required, true);
    assert.match(stored.reason, /^UNATTRIBUTED: no step of the procedure found a cause/);
    assert.ok(!(ROOT_CAUSE_LABEL_NAMES as readonly string[]).includes(UNATTRIBUTED));
    // A label a judge's answer relevance decided is a cause, not a fallback.
    const understood = SCENARIOS.QUERY_UNDERSTANDING();
    assert.equal(rootCauseEvaluationResult(understood.caseResult, attribute(understood)!, "2026-07-08T09:32:01Z").review_required, false);
  });
});


describe("HALLUCINATION and a judge's faithfulness", () => {
  // The answer adds a claim the context lacks: the overlap heuristic finds it unsupported.
  const scenario = SCENARIOS.HALLUCINATION();
  const judgeFaithfulness = (value: number, semantics: "judge_self_report" | "heuristic") => ({
    ...storedResult("cr_test", "judge.faithfulness", { faithfulness: value }, semantics === "heuristic" ? "measured" : "passed"),
    confidence: { value: semantics === "heuristic" ? 0.5 : ("high" as const), semantics },
  });

  test("an LLM judge found the answer faithful: the heuristic overlap check does not make it a hallucination", () => {
    // Failed on relevance, not correctness (a failed correctness with faithfulness held is a REASONING_ERROR, tried first).
    const results = [failedResult("judge.answer_relevance", { answer_relevance: 0.3 }), judgeFaithfulness(1, "judge_self_report")];
    const attribution = attributeRootCause(scenario.caseResult, scenario.evalCase, results);
    assert.ok(attribution);
    assert.notEqual(attribution.label, "HALLUCINATION", attribution.reason);
    // The same case without the judge's faithfulness: the heuristic is all there is, and it names the claim.
    assert.equal(attributeRootCause(scenario.caseResult, scenario.evalCase, results.slice(0, 1))?.label, "HALLUCINATION");
  });

  test("the faithfulness rule is the judge's and the gate's (>= 0.92), not a floor of 0.9", () => {
    const attribution = attributeRootCause(scenario.caseResult, scenario.evalCase, [...scenario.results, judgeFaithfulness(0.91, "judge_self_report")]);
    assert.equal(attribution?.label, "HALLUCINATION");
    assert.match(attribution!.reason, /faithfulness 0\.91 misses >= 0\.92/);
    // A case rubric's faithfulness rule replaces the default, as it does for the judge.
    const lenient = attributeRootCause(scenario.caseResult, leaveCase({ rubric: { faithfulness: ">= 0.9" } }), [...scenario.results, judgeFaithfulness(0.91, "judge_self_report")]);
    assert.notEqual(lenient?.label, "HALLUCINATION", lenient?.reason);
  });

  test("only a heuristic faithfulness, or none: the overlap check still names the unsupported claim", () => {
    for (const results of [scenario.results, [...scenario.results, judgeFaithfulness(1, "heuristic")]]) {
      const attribution = attributeRootCause(scenario.caseResult, scenario.evalCase, results);
      assert.equal(attribution?.label, "HALLUCINATION");
      assert.match(attribution!.reason, /not supported by the context/);
    }
  });
});
