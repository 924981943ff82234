/** One step of the ordered root-cause procedure: a label and the test that assigns it. */
import type { AttributionFacts } from "./attribution-facts.js";
import type { RootCauseFinding } from "./root-cause-attribution.js";
import type { PrimaryCause } from "./root-cause-labels.js";

export interface RootCauseStep {
  label: PrimaryCause;
  /** The condition, in words, for the documented procedure. */
  when: string;
  decide(facts: AttributionFacts): RootCauseFinding | null;
}
