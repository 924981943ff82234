/** Root-cause attribution: the primary label of a failed case and its stored form. */
export { attributeRootCause, isFailedCase } from "./attribute-root-cause.js";
export { ROOT_CAUSE_EVALUATOR_ID, type AttributionOptions } from "./attribution-facts.js";
export type { RootCauseAttribution, RootCauseEvidence } from "./root-cause-attribution.js";
export { EXECUTION_ROOT_CAUSE_LABELS, QUALITY_ROOT_CAUSE_LABELS, QUALITY_ROOT_CAUSE_MEANINGS, ROOT_CAUSE_LABEL_NAMES, ROOT_CAUSE_LABELS, rootCauseMeaning, UNATTRIBUTED, type PrimaryCause, type RootCauseLabel, type RootCauseMeaning } from "./root-cause-labels.js";
export { ROOT_CAUSE_PROCEDURE } from "./root-cause-procedure.js";
export { ROOT_CAUSE_EVALUATOR_VERSION, rootCauseEvaluationResult } from "./root-cause-evaluation-result.js";
