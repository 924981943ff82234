/** A task that throws, hangs past the timeout or returns nothing, chosen by the case id's suffix. */
import type { EvalCase } from "../../../../contracts/eval-case.js";

export default async function failingTask(evalCase: EvalCase): Promise<string> {
  if (evalCase.case_id.endsWith("throws")) throw new Error("the pipeline is down");
  if (evalCase.case_id.endsWith("hangs")) return await new Promise<string>(() => setInterval(() => undefined, 60_000));
  if (evalCase.case_id.endsWith("empty")) return undefined as unknown as string;
  return "An answer.";
}
