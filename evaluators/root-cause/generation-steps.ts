/**
 * Generation steps: the evidence was in front of the model and the answer
 * still failed — no usable output, a refusal, unsupported content, a wrong
 * conclusion from right facts, missing key points.
 */
import { referenceAnswers } from "../../contracts/reference-answers.js";
import { assessGroundedness } from "../online/heuristic-groundedness.js";
import { compareFacts, dateIsStated, numberIsStated } from "../text/fact-agreement.js";
import { extractFacts } from "../text/fact-mentions.js";
import { abstained, answerLayerFailed, HEURISTIC_READING, layerOf } from "./attribution-facts.js";
import { UNATTRIBUTED } from "./root-cause-labels.js";
import type { EvaluationResult } from "../../contracts/evaluation-result.js";
import type { RootCauseStep } from "./root-cause-step.js";
import { isMetricName, METRIC } from "../metric-catalog.js";
import type { EvalCase } from "../../contracts/eval-case.js";
import { thresholdFor } from "../judge/judge-thresholds.js";
import { satisfies, type Threshold } from "../threshold.js";

/**
 * The faithfulness pass rule the judge applies, and the gate file checks
 * (dashboards/gates/ragscope-gates.yaml, `>= 0.92`): the faithfulness
 * rubric's default threshold, or the case rubric's entry for faithfulness
 * (judge/judge-thresholds.ts) — one rule, not a floor of its own.
 */
export function faithfulnessThreshold(evalCase: EvalCase | null): Threshold {
  return thresholdFor(METRIC.faithfulness, evalCase);
}

/**
 * The answer is empty while not abstaining, or the case asks for JSON
 * (`context.output_format: json` on the Eval Case) and the answer does not
 * parse as JSON.
 */
export const formatErrorStep: RootCauseStep = {
  label: "FORMAT_ERROR",
  when: "the answer is empty without abstaining, or the case's context.output_format is json and the answer does not parse",
  decide(facts) {
    if (abstained(facts)) return null;
    if (!facts.answered) return { reason: "the answer is empty", confidence: "deterministic_rule" };
    const format = facts.evalCase?.context.output_format;
    if (typeof format !== "string" || format.toLowerCase() !== "json") return null;
    try {
      JSON.parse(facts.caseResult.output ?? "");
      return null;
    } catch (error) {
      return { reason: `the case asks for JSON and the answer does not parse: ${error instanceof Error ? error.message : String(error)}`, confidence: "deterministic_rule" };
    }
  },
};

/** Reached only when no retrieval or context step explained the refusal. */
export const overAbstainStep: RootCauseStep = {
  label: "OVER_ABSTAIN",
  when: "the case is answerable and the answer abstained, with no retrieval or context cause found above",
  decide(facts) {
    if (facts.evalCase?.answerable !== true || !abstained(facts)) return null;
    const flagged = facts.abstention?.source === "trace_flag";
    return { reason: `${flagged ? "" : `${HEURISTIC_READING} `}the answer abstained on an answerable case and no retrieval or context problem explains it`, metrics: [METRIC.abstained, METRIC.abstention_correct], confidence: flagged ? "deterministic_rule" : "heuristic" };
  },
};

/**
 * Content the context does not hold: a stored judge faithfulness below the
 * faithfulness pass rule (faithfulnessThreshold), or — when no language-model
 * judge scored faithfulness — claims the heuristic groundedness check
 * (online/heuristic-groundedness.ts: content words, numbers, dates and
 * entities of each sentence looked up in what the generator saw) finds
 * unsupported. A faithfulness an LLM judge found held is not overruled by the
 * heuristic: heuristics decide nothing.
 *
 * The overlap reading explains only a failure of the answer itself (an
 * answer-layer evaluation failed: a wrong number, a judge's verdict): it is a
 * measurement that fails nothing, so when the case failed on something else —
 * a citation outside the context, say — that failure's own step names the
 * cause, not this heuristic. When it does decide, the reason says it is a
 * heuristic reading.
 */
export const hallucinationStep: RootCauseStep = {
  label: "HALLUCINATION",
  when: "a stored faithfulness below the faithfulness pass rule (the rubric's >= 0.92, or the case rubric's), or — with no LLM judge's faithfulness, and an answer-layer evaluation failed — an answer claim the heuristic groundedness check finds unsupported by the context",
  decide(facts) {
    if (abstained(facts) || !facts.answered) return null;
    const faithfulness = facts.metric(METRIC.faithfulness);
    const threshold = faithfulnessThreshold(facts.evalCase);
    if (faithfulness !== null && !satisfies(faithfulness.value, threshold)) return { reason: `faithfulness ${faithfulness.value} misses ${threshold.source}`, metrics: [METRIC.faithfulness], confidence: "heuristic" };
    // A judge's faithfulness that held decides: the overlap heuristic does not overrule it.
    if (faithfulness !== null && faithfulness.semantics !== "heuristic") return null;
    if (facts.contextText === null || answerLayerFailed(facts).length === 0) return null;
    const { unsupported } = assessGroundedness(facts.caseResult.output ?? "", facts.contextText);
    if (unsupported.length === 0) return null;
    return {
      reason: `${HEURISTIC_READING} not supported by the context: ${unsupported.map((claim) => `"${claim}"`).join(", ")}; failed: ${answerLayerFailed(facts).map((result) => result.evaluator_id).join(", ")}`,
      metrics: [METRIC.faithfulness, METRIC.heuristic_groundedness],
      confidence: "heuristic",
    };
  },
};

/**
 * Right facts, wrong conclusion: the answer states a different value for a
 * number or date of the reference answer that the context states as the
 * reference does (text/fact-agreement.ts: same unit, another value; a date in
 * the answer where the reference's is missing), or a stored answer_correctness
 * failed while faithfulness held (a judge's, not a heuristic's, faithfulness
 * met faithfulnessThreshold). Tried before HALLUCINATION: the wrong number
 * such an answer states is unsupported too, but the context held the right
 * one — a misreading, not an invention. A reference number the answer merely
 * leaves out is no misreading: the answer is incomplete (INCOMPLETE_ANSWER),
 * and an answer about something else entirely is unsupported (HALLUCINATION).
 */
export const reasoningErrorStep: RootCauseStep = {
  label: "REASONING_ERROR",
  when: "the answer states another value for a number or date of the reference answer that the context states, or answer_correctness failed while faithfulness held",
  decide(facts) {
    const references = referenceAnswers(facts.evalCase);
    const answer = facts.caseResult.output ?? "";
    if (references.length > 0 && facts.answered && facts.contextText !== null) {
      const context = extractFacts(facts.contextText);
      const stated = extractFacts(answer);
      // With several acceptable answers, agreeing with any one of them is no reasoning error.
      const misread = references.map((reference) => {
        const agreement = compareFacts(answer, extractFacts(reference), stated);
        const numbers = agreement.contradictions
          .filter((contradiction) => numberIsStated(contradiction.reference, context))
          .map((contradiction) => `"${contradiction.reference.text}" (the answer says ${contradiction.answer.map((mention) => `"${mention.text}"`).join(" / ")})`);
        const dates = stated.dates.length === 0 ? [] : agreement.missingDates.filter((mention) => dateIsStated(mention, context)).map((mention) => `"${mention.text}" (the answer says ${stated.dates.map((date) => `"${date.text}"`).join(" / ")})`);
        return [...numbers, ...dates];
      });
      // Read from the texts, so it explains only a failure of the answer itself (as HALLUCINATION's overlap reading).
      if (misread.every((mentions) => mentions.length > 0) && answerLayerFailed(facts).length > 0) {
        return { reason: `${HEURISTIC_READING} the context states ${misread[0]!.join(", ")} as the reference does`, metrics: [METRIC.number_agreement, METRIC.date_agreement], confidence: "heuristic" };
      }
    }
    const correctness = facts.metric(METRIC.answer_correctness);
    const faithfulness = facts.metric(METRIC.faithfulness);
    if (correctness !== null && correctness.outcome === "failed" && faithfulness !== null && faithfulness.semantics !== "heuristic" && satisfies(faithfulness.value, faithfulnessThreshold(facts.evalCase))) {
      return { reason: `answer_correctness ${correctness.value} failed while faithfulness ${faithfulness.value} held`, metrics: [METRIC.answer_correctness, METRIC.faithfulness], confidence: "heuristic" };
    }
    return null;
  },
};

/**
 * Key points missing: an LLM judge's completeness_judged that failed, or the
 * rule's completeness (key points matched by their words) that failed — the
 * latter a heuristic reading, and said to be one.
 */
export const incompleteAnswerStep: RootCauseStep = {
  label: "INCOMPLETE_ANSWER",
  when: "an LLM judge's completeness_judged failed, or the rule's completeness (key points matched by their words) failed",
  decide(facts) {
    const judged = facts.metric(METRIC.completeness_judged);
    if (judged !== null && judged.outcome === "failed" && judged.semantics !== "heuristic") {
      return { reason: `an LLM judge found key points missing (completeness_judged ${judged.value})`, metrics: [METRIC.completeness_judged], confidence: "heuristic" };
    }
    const completeness = facts.metric(METRIC.completeness);
    if (completeness === null || completeness.outcome !== "failed") return null;
    return { reason: `${HEURISTIC_READING} completeness ${completeness.value}: key points missing by their words`, metrics: [METRIC.completeness], confidence: "heuristic" };
  },
};

export const citationErrorStep: RootCauseStep = {
  label: "CITATION_ERROR",
  when: "a citation evaluator failed and nothing above explained the failure",
  decide(facts) {
    const failed = facts.failed.filter((result) => layerOf(result.evaluator_id) === "citation");
    if (failed.length === 0) return null;
    const metrics = failed.flatMap((result) => Object.entries(result.metric_values).filter(([, value]) => value !== null).map(([name]) => name)).filter(isMetricName);
    const cited = facts.caseResult.rag_observation.citations ?? [];
    return { reason: `failed: ${failed.map((result) => result.evaluator_id).join(", ")}`, chunkIds: cited, metrics, confidence: "deterministic_rule" };
  },
};

/**
 * QUERY_UNDERSTANDING (问题理解错误) needs something that saw the question
 * misread: a language-model judge's answer_relevance that failed its pass
 * rule (the rubric asks whether the answer "misreads the intent" or is about
 * something else). Nothing else here looks at the question's intent, so no
 * other failure is read as a misunderstanding.
 */
export const queryUnderstandingStep: RootCauseStep = {
  label: "QUERY_UNDERSTANDING",
  when: "an LLM judge's answer_relevance failed its pass rule (the rubric's >= 0.66, or the case rubric's): the answer does not respond to what was asked",
  decide(facts) {
    const relevance = facts.metric(METRIC.answer_relevance);
    if (relevance === null || relevance.outcome !== "failed" || relevance.semantics === "heuristic") return null;
    const threshold = thresholdFor(METRIC.answer_relevance, facts.evalCase);
    return { reason: `an LLM judge found the answer does not respond to the question (answer_relevance ${relevance.value} misses ${threshold.source})`, metrics: [METRIC.answer_relevance], confidence: "heuristic" };
  },
};

/**
 * The end of the procedure: no step found a cause. The seed's labels are
 * causes; none of them is "unknown", and guessing one (this was a
 * QUERY_UNDERSTANDING fallback) would count a cause nothing showed. The case
 * is stored UNATTRIBUTED, with the failures that made it fail, for review.
 */
export const unattributedStep: RootCauseStep = {
  label: UNATTRIBUTED,
  when: "no step above found a cause: no label, the failed evaluations listed for review",
  decide(facts) {
    const failed = facts.failed.map((result) => `${result.evaluator_id}: ${failedMetrics(result)}`);
    return { reason: `no step of the procedure found a cause${failed.length > 0 ? `; failed: ${failed.join(", ")}` : ""}`, confidence: "heuristic" };
  },
};

/** What failed, as the result's reason opens ("number_agreement = 0.5 (needs >= 1) — …", evaluate-case-result.ts). */
function failedMetrics(result: EvaluationResult): string {
  return result.reason.split(" — ")[0]!;
}
