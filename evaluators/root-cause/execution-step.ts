/**
 * A request that did not complete: its task threw or passed its timeout, so
 * no answer reached the user, and no label of seed 004 §十 (what went wrong
 * in an answer) explains that. The
 * cause is the Case Result's own `execution_error.type` (seed 000), with the
 * stage whose span failed and the error message the trace recorded — the
 * same test (reliability-summary.ts) that counts the request in error_rate
 * and timeout_rate, so the label and those rates never disagree.
 */
import type { CaseResult } from "../../contracts/case-result.js";
import { isError, isTimeout } from "../aggregate/reliability-summary.js";
import type { ExecutionRootCauseLabel } from "./root-cause-labels.js";
import type { RootCauseStep } from "./root-cause-step.js";

/** The execution label of a request that did not complete, or null when it completed (or is only partial). */
export function executionFailureLabel(caseResult: CaseResult): ExecutionRootCauseLabel | null {
  if (isTimeout(caseResult)) return "TIMEOUT";
  if (!isError(caseResult)) return null;
  return caseResult.execution_error.type === "environment_error" ? "ENVIRONMENT_ERROR" : "SYSTEM_ERROR";
}

/** The stages whose spans ended in error, innermost last (the request span itself is left out: it always fails with them). */
function failedStages(caseResult: CaseResult): string[] {
  return caseResult.rag_observation.stage_timings.filter((timing) => timing.status === "error" && timing.stage !== "request").map((timing) => timing.span_name);
}

function executionStep(label: ExecutionRootCauseLabel): RootCauseStep {
  return {
    label,
    when: `the request did not complete: execution_error.type ${label.toLowerCase()}${label === "SYSTEM_ERROR" ? " (or execution_status failed)" : label === "TIMEOUT" ? " (or execution_status timeout)" : ""}`,
    decide(facts) {
      if (executionFailureLabel(facts.caseResult) !== label) return null;
      const stages = failedStages(facts.caseResult);
      const message = facts.caseResult.execution_error.message;
      const where = stages.length > 0 ? ` in ${stages.join(", ")}` : "";
      return {
        reason: `the request did not complete (${facts.caseResult.execution_error.type === "none" ? `execution_status ${facts.caseResult.execution_status}` : facts.caseResult.execution_error.type}${where})${message ? `: ${message}` : ""}`,
        confidence: "deterministic_rule",
      };
    },
  };
}

export const systemErrorStep = executionStep("SYSTEM_ERROR");
export const timeoutStep = executionStep("TIMEOUT");
export const environmentErrorStep = executionStep("ENVIRONMENT_ERROR");
