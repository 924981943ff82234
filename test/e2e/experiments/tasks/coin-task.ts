/** A deliberately nondeterministic task on the cases whose id ends in "coin": its answer changes with each repeat. */
import type { EvalCase } from "../../../../contracts/eval-case.js";

export default async function coinTask(evalCase: EvalCase, context: { repeat: number }): Promise<string> {
  return evalCase.case_id.endsWith("coin") ? `Answer number ${context.repeat}.` : "The same answer.";
}
