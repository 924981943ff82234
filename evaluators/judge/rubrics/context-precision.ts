/**
 * Judged context precision (seed 004 §四.1): how much of the context given to
 * the generator is relevant to the question.
 *
 *   context_precision_judged = relevant documents / documents in the context
 *
 * Every document must be rated exactly once; an answer that skips or invents
 * a document does not validate.
 */
import { z } from "zod";
import { failure, success } from "../../../core/result.js";
import { fence, fenceDocuments } from "../fence-text.js";
import { checkAllRated, defineRubric, selfReportedConfidence } from "./judge-rubric.js";

const output = z.object({
  documents: z.array(z.object({ id: z.string().trim(), relevant: z.boolean() })),
  reason: z.string(),
  confidence: selfReportedConfidence,
});

export const contextPrecisionRubric = defineRubric({
  metric: "context_precision_judged",
  layer: "context",
  version: "context_precision_judged@1",
  defaultThreshold: ">= 0.5",
  task: "For each DOCUMENT decide whether it is relevant to answering the QUESTION.",
  scale: [
    "relevant = true when the document contains information that helps answer the question (a fact, rule, condition or exception the answer needs).",
    "relevant = false when it is about another topic, or only shares words with the question.",
    "Rate every document exactly once, by its id (D1, D2, …).",
  ].join("\n"),
  outputExample: '{"documents": [{"id": "D1", "relevant": true}], "reason": "<one sentence>", "confidence": "high|medium|low"}',
  outputSchema: output,
  notApplicableReason: (inputs) => (inputs.question === null ? "the trace has no question" : inputs.documents.length === 0 ? "the trace recorded no context text" : null),
  sections: (inputs) => [fence("QUESTION", inputs.question ?? ""), fenceDocuments(inputs.documents).text],
  score(answer, inputs) {
    const { idByLabel, labels } = fenceDocuments(inputs.documents);
    const problem = checkAllRated(labels, answer.documents.map((document) => document.id), "documents");
    if (problem !== null) return failure(problem);
    const relevant = answer.documents.filter((document) => document.relevant).map((document) => idByLabel.get(document.id) as string);
    const irrelevant = answer.documents.filter((document) => !document.relevant).map((document) => idByLabel.get(document.id) as string);
    return success({
      value: relevant.length / labels.length,
      reason: `${relevant.length} of ${labels.length} context documents are relevant${irrelevant.length > 0 ? `; not relevant: ${irrelevant.join(", ")}` : ""} — ${answer.reason}`,
      details: { relevant_ids: relevant, irrelevant_ids: irrelevant, evidence_ids: relevant, ...(answer.confidence === undefined ? {} : { confidence: answer.confidence }) },
    });
  },
});
