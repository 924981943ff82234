/**
 * Answer relevance (seed 004 §五.3): does the answer respond to the question —
 * not off-topic, not padded with unrelated text, not dodging the core of the
 * question, not misreading the intent? Ordinal 0..3, value = score / 3. A
 * score of 3 with irrelevant parts listed contradicts itself and is not a verdict.
 */
import { z } from "zod";
import { failure, success } from "../../../core/result.js";
import { fence } from "../fence-text.js";
import { defineRubric, ordinalValue, selfReportedConfidence, topScoreContradiction } from "./judge-rubric.js";

const output = z.object({
  score: z.number().int().min(0).max(3),
  irrelevant_parts: z.array(z.string()).default([]),
  reason: z.string(),
  confidence: selfReportedConfidence,
});

export const answerRelevanceRubric = defineRubric({
  metric: "answer_relevance",
  layer: "generation",
  version: "answer_relevance@1",
  // Score 2 of 3 or better.
  defaultThreshold: ">= 0.66",
  task: "Decide how directly the ANSWER responds to the QUESTION. Do not judge whether it is true — only whether it addresses what was asked.",
  scale: [
    "3: answers exactly what was asked, with no irrelevant content.",
    "2: addresses the question, with some unneeded content or a minor gap; an explicit, honest statement that the information is unavailable also scores 2.",
    "1: only partly addresses the question, misreads the intent, or is mostly about something else.",
    "0: does not address the question at all.",
    "List the irrelevant parts, if any.",
  ].join("\n"),
  outputExample: '{"score": 0, "irrelevant_parts": ["<text>"], "reason": "<one sentence>", "confidence": "high|medium|low"}',
  outputSchema: output,
  notApplicableReason: (inputs) => (inputs.question === null ? "the trace has no question" : inputs.answer === null ? "the trace has no answer" : null),
  sections: (inputs) => [fence("QUESTION", inputs.question ?? ""), fence("ANSWER", inputs.answer ?? "")],
  score: (answer) => {
    const contradiction = topScoreContradiction(answer.score, 3, { irrelevant_parts: answer.irrelevant_parts });
    if (contradiction !== null) return failure(contradiction);
    return success({
      value: ordinalValue(answer.score, 3),
      reason: `relevance ${answer.score}/3 — ${answer.reason}`,
      details: { score: answer.score, irrelevant_parts: answer.irrelevant_parts, ...(answer.confidence === undefined ? {} : { confidence: answer.confidence }) },
    });
  },
});
