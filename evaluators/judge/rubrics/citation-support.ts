/**
 * Citation support (seed 004 §五.5 "引用内容是否支持对应陈述", citation
 * entailment): does each cited chunk support the statement that cites it?
 *
 *   citation_support = cited chunks that support their statement / cited chunks
 *
 * Only cited chunks whose text the trace recorded are judged (the rule
 * evaluators check that cited ids exist and were retrieved). Each cited chunk
 * must be rated exactly once.
 */
import { z } from "zod";
import { failure, success } from "../../../core/result.js";
import { fence, fenceDocuments } from "../fence-text.js";
import { checkAllRated, defineRubric, selfReportedConfidence } from "./judge-rubric.js";

const output = z.object({
  citations: z.array(z.object({ id: z.string().trim(), statement: z.string().default(""), supported: z.boolean() })),
  reason: z.string(),
  confidence: selfReportedConfidence,
});

export const citationSupportRubric = defineRubric({
  metric: "citation_support",
  layer: "generation",
  version: "citation_support@1",
  // The seed's citation accuracy gate (004 §十三).
  defaultThreshold: ">= 0.95",
  task: "The ANSWER cites the CITED DOCUMENTS. For each cited document, find the statement of the answer that relies on it and decide whether the document supports that statement.",
  scale: [
    "supported = true when the cited document states the statement or it follows directly from it.",
    "supported = false when the document does not state it, contradicts it, or no statement of the answer relies on it (then leave the statement empty).",
    "Rate every cited document exactly once, by its id (C1, C2, …).",
  ].join("\n"),
  outputExample: '{"citations": [{"id": "C1", "statement": "<the statement that cites it>", "supported": true}], "reason": "<one sentence>", "confidence": "high|medium|low"}',
  outputSchema: output,
  notApplicableReason: (inputs) => (inputs.answer === null ? "the trace has no answer" : inputs.citedDocuments.length === 0 ? "the answer cites no chunk whose text was recorded" : null),
  sections: (inputs) => [fenceDocuments(inputs.citedDocuments, "CITED DOCUMENT", "C").text, fence("ANSWER", inputs.answer ?? "")],
  score(answer, inputs) {
    const { idByLabel, labels } = fenceDocuments(inputs.citedDocuments, "CITED DOCUMENT", "C");
    const problem = checkAllRated(labels, answer.citations.map((citation) => citation.id), "cited documents");
    if (problem !== null) return failure(problem);
    const verdicts = answer.citations.map((citation) => ({ chunk_id: idByLabel.get(citation.id) as string, statement: citation.statement, supported: citation.supported }));
    const unsupported = verdicts.filter((verdict) => !verdict.supported);
    const supported = verdicts.length - unsupported.length;
    return success({
      value: supported / verdicts.length,
      reason: `${supported} of ${verdicts.length} cited chunks support their statement${unsupported.length > 0 ? `; not supporting: ${unsupported.map((verdict) => (verdict.statement === "" ? verdict.chunk_id : `${verdict.chunk_id} for "${verdict.statement}"`)).join("; ")}` : ""} — ${answer.reason}`,
      details: {
        citations: verdicts,
        unsupported_citations: unsupported.map((verdict) => verdict.chunk_id),
        evidence_ids: verdicts.filter((verdict) => verdict.supported).map((verdict) => verdict.chunk_id),
        ...(answer.confidence === undefined ? {} : { confidence: answer.confidence }),
      },
    });
  },
});
