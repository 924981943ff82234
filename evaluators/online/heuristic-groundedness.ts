/**
 * Heuristic groundedness (issue 6 "Reference-free metrics on every trace"; the
 * rule-based stand-in for faithfulness, seed 004 §五.3): the answer is split
 * into claims (split-claims.ts, Chinese 。！？ included), each claim is checked
 * against what the generator saw (generator-context.ts) by content words,
 * numbers, dates and entities (claim-support.ts), and
 *
 *   heuristic_groundedness = supported claims / claims.
 *
 * The unsupported claims are listed in the reason. Its confidence semantics
 * is "heuristic": it approximates what the LLM judge's faithfulness measures,
 * and overlap of words is not entailment (a negation flipped in a long sentence
 * can still pass). Not applicable — never 0 and never NaN — when there is no
 * answer, the answer abstained (nothing is claimed), no context text was
 * recorded, or the answer holds no checkable claim.
 */
import type { Evaluator, MetricDescriptor } from "../evaluator.js";
import { applicable, notApplicable } from "../metric-value.js";
import { decideAbstention } from "../rules/answer-abstention.js";
import { checkClaim, prepareSupportContext, type ClaimVerdict } from "./claim-support.js";
import { generatorContext } from "./generator-context.js";
import { splitClaims } from "./split-claims.js";
import { chunkLabel } from "../../contracts/case-result.js";

const metrics: MetricDescriptor[] = [
  {
    name: "heuristic_groundedness",
    description: "answer claims (sentences) whose content words, numbers and entities are found in the context / claims",
    range: [0, 1],
    direction: "higher_is_better",
    defaultThreshold: null,
  },
];

export interface GroundednessAssessment {
  verdicts: ClaimVerdict[];
  unsupported: string[];
}

/** Claim verdicts of an answer against a context text. */
export function assessGroundedness(answer: string, context: string): GroundednessAssessment {
  const prepared = prepareSupportContext(context);
  const verdicts = splitClaims(answer)
    .map((claim) => checkClaim(claim, prepared))
    .filter((verdict): verdict is ClaimVerdict => verdict !== null);
  return { verdicts, unsupported: verdicts.filter((verdict) => !verdict.supported).map((verdict) => verdict.claim) };
}

function notApplicableOutput(reason: string) {
  return { values: { heuristic_groundedness: notApplicable(reason) }, reason: `not applicable: ${reason}`, evidence: [] };
}

export const heuristicGroundednessEvaluator: Evaluator = {
  id: "online.groundedness",
  version: "1",
  description: "Heuristic groundedness: share of the answer's sentences whose words, numbers and entities the context contains",
  requires: [],
  costClass: "rule",
  confidence: "heuristic",
  metrics,
  evaluate({ caseResult }) {
    const answer = caseResult.output;
    if (answer === null || answer.trim() === "") return notApplicableOutput("the trace recorded no answer");
    if (decideAbstention(caseResult.rag_observation.abstained, answer)?.abstained === true) return notApplicableOutput("the answer abstained: it claims nothing to ground");
    const context = generatorContext(caseResult);
    if (context === null) return notApplicableOutput("the trace recorded no context text");
    const { verdicts, unsupported } = assessGroundedness(answer, context.text);
    if (verdicts.length === 0) return notApplicableOutput("the answer holds no checkable claim");
    const supported = verdicts.length - unsupported.length;
    const details = verdicts
      .filter((verdict) => !verdict.supported)
      .map((verdict) => `"${verdict.claim}"${verdict.missingFacts.length > 0 ? ` (not in the context: ${verdict.missingFacts.join(", ")})` : ""}`);
    return {
      values: { heuristic_groundedness: applicable(supported / verdicts.length) },
      reason:
        unsupported.length === 0
          ? `all ${verdicts.length} claims are supported by the ${context.source.replace("_", " ")}`
          : `${supported} of ${verdicts.length} claims supported by the ${context.source.replace("_", " ")}; unsupported claims: ${details.join("; ")}`,
      evidence: context.chunks.map(chunkLabel),
    };
  },
};
