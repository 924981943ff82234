/** The baseline variant of scripted-rag-task.ts: each case's `baseline_answer` where it gives one. */
import type { EvalCase } from "../../../../contracts/eval-case.js";
import { scriptedRag } from "./scripted-rag-task.js";

export default async function scriptedRagBaselineTask(evalCase: EvalCase): Promise<string> {
  return scriptedRag(evalCase, "baseline");
}
