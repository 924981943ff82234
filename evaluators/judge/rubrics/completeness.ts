/**
 * Judged completeness (seed 004 §五.4): which of the case's key points the
 * answer covers.
 *
 *   completeness_judged = key points covered / all key points
 *
 * Only for cases with key points. Every key point must be rated exactly once.
 */
import { z } from "zod";
import { failure, success } from "../../../core/result.js";
import { fence } from "../fence-text.js";
import { checkAllRated, defineRubric, quoteList, selfReportedConfidence } from "./judge-rubric.js";

const output = z.object({
  key_points: z.array(z.object({ id: z.string().trim(), covered: z.boolean() })),
  reason: z.string(),
  confidence: selfReportedConfidence,
});

function keyPointLabels(count: number): string[] {
  return Array.from({ length: count }, (_, index) => `K${index + 1}`);
}

export const completenessRubric = defineRubric({
  metric: "completeness_judged",
  layer: "generation",
  version: "completeness_judged@1",
  // The seed's completeness gate (004 §十三).
  defaultThreshold: ">= 0.82",
  task: "For each KEY POINT decide whether the ANSWER states it.",
  scale: [
    "covered = true when the answer states the key point, in any wording, with the same numbers, dates, conditions and entities.",
    "covered = false when it is missing, only hinted at, or stated with a different number, date or condition.",
    "Rate every key point exactly once, by its id (K1, K2, …).",
  ].join("\n"),
  outputExample: '{"key_points": [{"id": "K1", "covered": true}], "reason": "<one sentence>", "confidence": "high|medium|low"}',
  outputSchema: output,
  notApplicableReason: (inputs) => (inputs.answer === null ? "the trace has no answer" : inputs.keyPoints.length === 0 ? "the case has no key points" : null),
  sections: (inputs) => [
    ...(inputs.question === null ? [] : [fence("QUESTION", inputs.question)]),
    ...inputs.keyPoints.map((point, index) => fence("KEY POINT", point, `K${index + 1}`)),
    fence("ANSWER", inputs.answer ?? ""),
  ],
  score(answer, inputs) {
    const labels = keyPointLabels(inputs.keyPoints.length);
    const problem = checkAllRated(labels, answer.key_points.map((point) => point.id), "key points");
    if (problem !== null) return failure(problem);
    const coveredLabels = new Set(answer.key_points.filter((point) => point.covered).map((point) => point.id));
    const missing = inputs.keyPoints.filter((_, index) => !coveredLabels.has(`K${index + 1}`));
    const covered = inputs.keyPoints.length - missing.length;
    return success({
      value: covered / inputs.keyPoints.length,
      reason: `${covered} of ${inputs.keyPoints.length} key points covered${missing.length > 0 ? `; missing: ${quoteList(missing)}` : ""} — ${answer.reason}`,
      details: { covered_points: covered, total_points: inputs.keyPoints.length, missing_points: missing, ...(answer.confidence === undefined ? {} : { confidence: answer.confidence }) },
    });
  },
});
