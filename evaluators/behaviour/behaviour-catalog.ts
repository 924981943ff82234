/**
 * Every behaviour metric, in the order reports list them (the seed's §十一 order, then §十二's), each observing
 * nothing where the period's requests lack what it is measured from (behaviour-evidence.ts).
 */
import { abandonmentRate } from "./abandonment-rate.js";
import type { BehaviourContext, BehaviourMetricDefinition, BehaviourSummary } from "./behaviour-metric.js";
import { summarize } from "./behaviour-metric.js";
import { citationClickRate } from "./citation-click-rate.js";
import { copyRate } from "./copy-rate.js";
import { dislikeRate } from "./dislike-rate.js";
import { measuredOnlyWithEvidence } from "./behaviour-evidence.js";
import { firstContactResolution } from "./first-contact-resolution.js";
import { followUpRate } from "./follow-up-rate.js";
import { handoffRate } from "./handoff-rate.js";
import { likeRate } from "./like-rate.js";
import { repeatedQuestionRate } from "./repeated-question-rate.js";
import { satisfaction } from "./satisfaction.js";
import { sessionResolutionRate } from "./session-resolution-rate.js";

export const behaviourMetrics: readonly BehaviourMetricDefinition[] = [
  likeRate,
  dislikeRate,
  followUpRate,
  repeatedQuestionRate,
  copyRate,
  citationClickRate,
  handoffRate,
  sessionResolutionRate,
  abandonmentRate,
  firstContactResolution,
  satisfaction,
].map(measuredOnlyWithEvidence);

export function summarizeBehaviour(context: BehaviourContext): BehaviourSummary[] {
  return behaviourMetrics.map((metric) => summarize(metric.id, metric.observe(context)));
}
