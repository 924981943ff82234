/**
 * Claim overlap with the context — a heuristic overlap measure, stored under
 * the stable metric key `heuristic_groundedness` (issue 6 "Reference-free
 * metrics on every trace"). The answer is split into claims
 * (text/answer-sentences.ts: sentences cut at clause breaks; preambles and
 * pieces that abstain are set aside, the rest is still checked), each claim's
 * content words, numbers, dates and entities are looked up in what the
 * generator saw (generator-context.ts, claim-support.ts), and
 *
 *   heuristic_groundedness = claims whose words and facts overlap the context / claims.
 *
 * What it is not: a verdict. Word overlap is not entailment — on
 * human-labelled hallucination data it separates faithful from unfaithful
 * answers no better than answer length (balanced accuracy ≈ 0.57), and a
 * negation flipped in a long sentence still overlaps. So it has no threshold
 * (outcome `measured`, never a pass) and a review rule instead: any claim
 * without overlap ("< 1") marks the result review_required, which forces the
 * trace into the judge sample and puts the case in the review queue
 * (evaluators/case-verdict.ts). The claims without overlap are listed in the
 * reason for the reviewer.
 *
 * Not applicable — never 0 and never NaN — when there is no answer, no
 * context text was recorded, or the answer holds no checkable claim (for
 * instance when it only abstains).
 */
import type { Evaluator, MetricDescriptor } from "../evaluator.js";
import { applicable, notApplicable } from "../metric-value.js";
import { answerClaims } from "../text/answer-sentences.js";
import { checkClaim, prepareSupportContext, type ClaimVerdict } from "./claim-support.js";
import { generatorContext } from "./generator-context.js";
import { chunkLabel } from "../../contracts/case-result.js";
import { metricKeys } from "../metric-keys.js";

const metrics: MetricDescriptor[] = [
  {
    name: "heuristic_groundedness",
    description: "claim overlap (heuristic, routes to the judge, not a verdict): answer claims whose content words, numbers, dates and entities are found in the context / claims",
    range: [0, 1],
    direction: "higher_is_better",
    defaultThreshold: null,
    reviewWhen: "< 1",
    decideWith: "configure an LLM judge (LOCAL-JUDGE.md) and gate on faithfulness or hallucination_rate",
  },
];

export interface GroundednessAssessment {
  verdicts: ClaimVerdict[];
  unsupported: string[];
  /** Pieces set aside as abstentions (they claim nothing). */
  abstentions: string[];
}

/** Claim verdicts of an answer against a context text. */
export function assessGroundedness(answer: string, context: string): GroundednessAssessment {
  const prepared = prepareSupportContext(context);
  const { claims, abstentions } = answerClaims(answer);
  const verdicts = claims.map((claim) => checkClaim(claim, prepared)).filter((verdict): verdict is ClaimVerdict => verdict !== null);
  return { verdicts, unsupported: verdicts.filter((verdict) => !verdict.supported).map((verdict) => verdict.claim), abstentions };
}

function notApplicableOutput(reason: string) {
  return { values: { heuristic_groundedness: notApplicable(reason) }, reason: `not applicable: ${reason}`, evidence: [] };
}

/** The metrics this evaluator produces (generation layer). */
export const heuristicGroundednessMetrics = metricKeys(["heuristic_groundedness"]);

export const heuristicGroundednessEvaluator: Evaluator = {
  id: "online.groundedness",
  version: "2",
  layer: "generation",
  description: "Claim overlap with the context (heuristic overlap measure): share of the answer's claims whose words, numbers, dates and entities the context contains; routes traces to the judge and review, decides no verdict",
  requires: [],
  costClass: "rule",
  confidence: "heuristic",
  metrics,
  evaluate({ caseResult }) {
    const answer = caseResult.output;
    if (answer === null || answer.trim() === "") return notApplicableOutput("the trace recorded no answer");
    const context = generatorContext(caseResult);
    if (context === null) return notApplicableOutput("the trace recorded no context text");
    const { verdicts, unsupported, abstentions } = assessGroundedness(answer, context.text);
    if (verdicts.length === 0) return notApplicableOutput(abstentions.length > 0 ? "the answer abstained: it claims nothing to check" : "the answer holds no checkable claim");
    const supported = verdicts.length - unsupported.length;
    const details = verdicts
      .filter((verdict) => !verdict.supported)
      .map((verdict) => `"${verdict.claim}"${verdict.missingFacts.length > 0 ? ` (not in the context: ${verdict.missingFacts.join(", ")})` : ""}`);
    return {
      values: { heuristic_groundedness: applicable(supported / verdicts.length) },
      reason:
        unsupported.length === 0
          ? `all ${verdicts.length} claims overlap the ${context.source.replace("_", " ")} (heuristic overlap, not entailment)`
          : `${supported} of ${verdicts.length} claims overlap the ${context.source.replace("_", " ")} (heuristic overlap, not entailment); claims without overlap: ${details.join("; ")}`,
      evidence: context.chunks.map(chunkLabel),
    };
  },
};
