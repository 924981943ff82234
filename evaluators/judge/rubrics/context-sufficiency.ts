/**
 * Judged context sufficiency (seed 004 §四.3): is the context enough to answer
 * the question? The seed's own scale — 0 完全不足, 1 只能回答少部分,
 * 2 基本足够但缺少次要信息, 3 完全足够 — value = score / 3. When the case has a
 * reference answer it is shown as what a complete answer contains. A score
 * of 3 with missing information listed contradicts itself and is not a verdict.
 */
import { z } from "zod";
import { failure, success } from "../../../core/result.js";
import { fence, fenceDocuments } from "../fence-text.js";
import { defineRubric, ordinalValue, selfReportedConfidence, topScoreContradiction } from "./judge-rubric.js";

const output = z.object({
  score: z.number().int().min(0).max(3),
  missing_information: z.array(z.string()).default([]),
  reason: z.string(),
  confidence: selfReportedConfidence,
});

export const contextSufficiencyRubric = defineRubric({
  metric: "context_sufficiency_judged",
  layer: "context",
  version: "context_sufficiency_judged@1",
  // "Basically sufficient" (2 of 3) or better.
  defaultThreshold: ">= 0.66",
  task: "Decide whether the DOCUMENTS together contain enough information to answer the QUESTION completely. Do not answer the question yourself.",
  scale: [
    "3: fully sufficient — everything a complete answer needs is in the documents.",
    "2: basically sufficient — the main answer is there, some secondary information is missing.",
    "1: answers only a small part of the question.",
    "0: not sufficient at all.",
    "When a REFERENCE ANSWER is given, it shows what a complete answer contains. List the missing information.",
  ].join("\n"),
  outputExample: '{"score": 0, "missing_information": ["<what is missing>"], "reason": "<one sentence>", "confidence": "high|medium|low"}',
  outputSchema: output,
  notApplicableReason: (inputs) => (inputs.question === null ? "the trace has no question" : inputs.documents.length === 0 ? "the trace recorded no context text" : null),
  sections: (inputs) => [
    fence("QUESTION", inputs.question ?? ""),
    fenceDocuments(inputs.documents).text,
    ...(inputs.referenceAnswer === null ? [] : [fence("REFERENCE ANSWER", inputs.referenceAnswer)]),
  ],
  score: (answer) => {
    const contradiction = topScoreContradiction(answer.score, 3, { missing_information: answer.missing_information });
    if (contradiction !== null) return failure(contradiction);
    return success({
      value: ordinalValue(answer.score, 3),
      reason: `context sufficiency ${answer.score}/3${answer.missing_information.length > 0 ? `; missing: ${answer.missing_information.join("; ")}` : ""} — ${answer.reason}`,
      details: { score: answer.score, missing_points: answer.missing_information, ...(answer.confidence === undefined ? {} : { confidence: answer.confidence }) },
    });
  },
});
