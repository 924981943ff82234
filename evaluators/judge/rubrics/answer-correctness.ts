/**
 * Answer correctness (seed 004 §五.2): does the answer agree with the reference
 * answer — facts, meaning, key points, numbers, dates and entities? Only when
 * the case has a reference answer. Ordinal 0..3, value = score / 3; the wrong
 * statements and the missing points are listed. A score of 3 with wrong
 * statements or missing points listed contradicts itself and is not a verdict.
 */
import { z } from "zod";
import { failure, success } from "../../../core/result.js";
import { fence } from "../fence-text.js";
import { defineRubric, ordinalValue, quoteList, selfReportedConfidence, topScoreContradiction } from "./judge-rubric.js";

const output = z.object({
  score: z.number().int().min(0).max(3),
  incorrect_statements: z.array(z.string()).default([]),
  missing_points: z.array(z.string()).default([]),
  reason: z.string(),
  confidence: selfReportedConfidence,
});

export const answerCorrectnessRubric = defineRubric({
  metric: "answer_correctness",
  layer: "generation",
  version: "answer_correctness@1",
  // Score 2 of 3 or better.
  defaultThreshold: ">= 0.66",
  task: "Compare the ANSWER with the REFERENCE ANSWER to the QUESTION. Judge agreement in facts and meaning, not wording.",
  scale: [
    "3: agrees with the reference in every key fact — numbers, dates, entities, conditions — and in meaning.",
    "2: correct in substance, with a minor omission or imprecision.",
    "1: partly correct, with a significant error or omission.",
    "0: wrong, or contradicts the reference.",
    "List the statements of the answer that contradict the reference, and the points of the reference the answer misses.",
  ].join("\n"),
  outputExample: '{"score": 0, "incorrect_statements": ["<text>"], "missing_points": ["<text>"], "reason": "<one sentence>", "confidence": "high|medium|low"}',
  outputSchema: output,
  notApplicableReason: (inputs) => (inputs.answer === null ? "the trace has no answer" : inputs.referenceAnswer === null ? "the case has no reference answer" : null),
  sections: (inputs) => [
    ...(inputs.question === null ? [] : [fence("QUESTION", inputs.question)]),
    fence("REFERENCE ANSWER", inputs.referenceAnswer ?? ""),
    fence("ANSWER", inputs.answer ?? ""),
  ],
  score: (answer) => {
    const contradiction = topScoreContradiction(answer.score, 3, { incorrect_statements: answer.incorrect_statements, missing_points: answer.missing_points });
    if (contradiction !== null) return failure(contradiction);
    return success({
      value: ordinalValue(answer.score, 3),
      reason: [
        `correctness ${answer.score}/3`,
        answer.incorrect_statements.length > 0 ? `incorrect: ${quoteList(answer.incorrect_statements)}` : null,
        answer.missing_points.length > 0 ? `missing: ${quoteList(answer.missing_points)}` : null,
      ]
        .filter((part) => part !== null)
        .join("; ") + ` — ${answer.reason}`,
      details: {
        score: answer.score,
        incorrect_statements: answer.incorrect_statements,
        missing_points: answer.missing_points,
        ...(answer.confidence === undefined ? {} : { confidence: answer.confidence }),
      },
    });
  },
});
