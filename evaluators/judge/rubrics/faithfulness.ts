/**
 * Faithfulness (seed 004 §五.1): are the answer's statements supported by the
 * context the generator was given?
 *
 *   faithfulness = claims supported by the context / all claims of the answer
 *
 * The judge first splits the answer into atomic claims and rates each one
 * (§九.3 "要求先拆分原子事实再评分"); the value is counted from those verdicts.
 * The unsupported claims are listed in details and in the reason. An answer
 * that makes no factual claim (an abstention) makes no unsupported one: value 1.
 * But the judge's "no claims" is believed only when the project's claim
 * splitter (text/answer-sentences.ts, which sets refusing pieces aside) finds
 * no claim in the answer either. A refusal phrase somewhere in the answer is
 * not enough: "I'm not sure, but refunds take 30 days" refuses and then states
 * a fact, which is what faithfulness checks. For an answer that states facts,
 * an empty claim list is not a verdict (unparseable: a repair turn, then a
 * grader error — never a pass). A claim marked supported by a document label
 * that was not in the prompt (D7 of three documents) rests on a document that
 * does not exist: the verdict is not believed either (a repair turn naming the
 * labels, then a grader error), so a judge's invented support never raises
 * the value. A supported claim that names no document is taken as rated.
 */
import { z } from "zod";
import { failure, success } from "../../../core/result.js";
import { splitClaims } from "../../text/answer-sentences.js";
import { fence, fenceDocuments } from "../fence-text.js";
import { defineRubric, quoteList, selfReportedConfidence } from "./judge-rubric.js";

const output = z.object({
  claims: z.array(
    z.object({
      claim: z.string().trim().min(1),
      supported: z.boolean(),
      documents: z.array(z.string()).default([]),
    }),
  ),
  reason: z.string(),
  confidence: selfReportedConfidence,
});

export const faithfulnessRubric = defineRubric({
  metric: "faithfulness",
  layer: "generation",
  version: "faithfulness@1",
  defaultThreshold: ">= 0.92",
  task: [
    "1. Split the ANSWER into atomic claims: each claim states exactly one checkable fact (a number, a date, a condition, a rule, an entity and what is said of it).",
    "   Greetings, restatements of the question and statements that information is unavailable are not claims.",
    "2. For each claim decide whether the DOCUMENTS support it.",
  ].join("\n"),
  scale: [
    "supported = true only when a document states the claim or it follows directly from what a document states.",
    "supported = false when no document states it, when a document contradicts it, or when it adds conditions, numbers or consequences the documents do not give — even if it is true in general.",
    "List the ids (D1, D2, …) of the documents that support each supported claim.",
    "Example: document \"Employees have 5 days of annual leave.\"; answer \"Employees have 5 days of annual leave, and unused leave is paid out.\" → two claims, the second unsupported.",
  ].join("\n"),
  outputExample: '{"claims": [{"claim": "<one fact>", "supported": true, "documents": ["D1"]}], "reason": "<one sentence>", "confidence": "high|medium|low"}',
  outputSchema: output,
  notApplicableReason: (inputs) => (inputs.answer === null ? "the trace has no answer" : inputs.documents.length === 0 ? "the trace recorded no context text" : null),
  sections: (inputs) => [fenceDocuments(inputs.documents).text, fence("ANSWER", inputs.answer ?? "")],
  score(answer, inputs) {
    if (answer.claims.length === 0) {
      const text = inputs.answer ?? "";
      const found = splitClaims(text);
      if (found.length > 0) {
        return failure(`the judge listed no claims, but the answer states ${found.length === 1 ? "a claim" : `${found.length} claims`} (${quoteList(found, 3)}); split the answer into its claims and rate each one`);
      }
    }
    const { idByLabel, labels } = fenceDocuments(inputs.documents);
    const invented = inventedSupport(answer.claims, idByLabel);
    if (invented.length > 0) {
      const named = [...new Set(invented.flatMap((claim) => claim.labels))].join(", ");
      return failure(`the judge marked ${invented.length === 1 ? "a claim" : `${invented.length} claims`} (${quoteList(invented.map((claim) => claim.claim), 3)}) supported by ${named}, which ${named.includes(",") ? "are" : "is"} not among the documents (${labels.join(", ")}); name the documents that state each supported claim, or mark it unsupported`);
    }
    const claims = answer.claims.map((claim) => ({
      claim: claim.claim,
      supported: claim.supported,
      evidence_ids: claim.supported ? claim.documents.flatMap((label) => idByLabel.get(label.trim()) ?? []) : [],
    }));
    const unsupported = claims.filter((claim) => !claim.supported).map((claim) => claim.claim);
    const supportedCount = claims.length - unsupported.length;
    const value = claims.length === 0 ? 1 : supportedCount / claims.length;
    const summary =
      claims.length === 0
        ? "the answer makes no factual claim"
        : unsupported.length === 0
          ? `all ${claims.length} claims are supported by the context`
          : `${supportedCount} of ${claims.length} claims are supported by the context; unsupported: ${quoteList(unsupported)}`;
    return success({
      value,
      reason: `${summary} — ${answer.reason}`,
      details: {
        claims,
        unsupported_claims: unsupported,
        supported_claims: supportedCount,
        total_claims: claims.length,
        evidence_ids: [...new Set(claims.flatMap((claim) => claim.evidence_ids))],
        ...(answer.confidence === undefined ? {} : { confidence: answer.confidence }),
      },
    });
  },
});

type RatedClaim = z.infer<typeof output>["claims"][number];

/** Supported claims that name a document label the prompt did not have, with those labels. */
function inventedSupport(claims: readonly RatedClaim[], idByLabel: ReadonlyMap<string, string>): Array<{ claim: string; labels: string[] }> {
  return claims.flatMap((claim) => {
    if (!claim.supported) return [];
    const labels = claim.documents.map((label) => label.trim()).filter((label) => !idByLabel.has(label));
    return labels.length === 0 ? [] : [{ claim: claim.claim, labels }];
  });
}
