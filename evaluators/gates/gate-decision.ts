/**
 * A run's decision from its release gate and veto cases, and the decision over an eval's repeats: one that blocked
 * blocks; else one that could not decide leaves the whole undecided. `ragscope eval --repeat N` and `ragscope gate`
 * on that run decide alike (a gate that passes only sometimes is not a pass).
 */
import type { ReleaseGateResult } from "./release-gate.js";

export type GateDecision = "passed" | "blocked" | "undecided";

export function gateDecision(gate: ReleaseGateResult, vetoed: readonly string[]): GateDecision {
  return gate.counts.failed > 0 || vetoed.length > 0 ? "blocked" : gate.undecided ? "undecided" : !gate.passed ? "blocked" : "passed";
}

export function worstDecision(decisions: readonly GateDecision[]): GateDecision {
  return decisions.includes("blocked") ? "blocked" : decisions.includes("undecided") ? "undecided" : "passed";
}

/** Repeat k > 1 of an eval run is the run `<run id>.repeat-k` (experiments/run-experiment.ts). */
export const repeatRunId = (runId: string, repeat: number): string => (repeat === 1 ? runId : `${runId}.repeat-${repeat}`);

/** What a decision over repeats stands on: " (the worst of 3 repeats decides: repeat 2 blocked)", every repeat counted, the first too. */
export function describeRepeatDecisions(decisions: readonly { repeat: number; decision: GateDecision }[]): string {
  const notPassed = decisions.filter((item) => item.decision !== "passed").map((item) => `repeat ${item.repeat} ${item.decision}`);
  return ` (the worst of ${decisions.length} repeats decides${notPassed.length > 0 ? `: ${notPassed.join(", ")}` : ": every repeat passed"})`;
}
