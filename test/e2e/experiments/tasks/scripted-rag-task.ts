/**
 * A traced task whose every stage the case scripts in its metadata:
 * `retrieve` (the chunks the retriever returns, in order, duplicates kept),
 * `answer`, `abstained` (the generator's refusal flag, recorded only when
 * given) and `cite` (the chunk ids the answer cites). A chunk without a
 * `document` is recorded without a document id, as a retriever that does not
 * give one. `baseline_answer`, when
 * given, is the answer of the baseline variant (scripted-rag-baseline-task.ts).
 */
import type { EvalCase } from "../../../../contracts/eval-case.js";
import { traceCite, traceGenerate, traceRetrieve } from "../../../../instrumentation/index.js";

interface Script {
  retrieve?: { chunk: string; document?: string; text: string }[];
  answer: string;
  baseline_answer?: string;
  abstained?: boolean;
  cite?: string[];
}

export async function scriptedRag(evalCase: EvalCase, variant: "candidate" | "baseline"): Promise<string> {
  const script = evalCase.metadata as unknown as Script;
  const chunks = (script.retrieve ?? []).map((chunk, index) => ({ chunkId: chunk.chunk, ...(chunk.document === undefined ? {} : { documentId: chunk.document }), text: chunk.text, score: 1 - index / 10 }));
  await traceRetrieve({ query: evalCase.input, topK: 5, retriever: "scripted" }, () => chunks);
  const text = variant === "baseline" ? (script.baseline_answer ?? script.answer) : script.answer;
  const generated = await traceGenerate({ model: "scripted-model" }, () => ({ text, inputTokens: 50, outputTokens: 10, ...(script.abstained === undefined ? {} : { abstained: script.abstained }) }));
  if (script.cite !== undefined) await traceCite(() => script.cite!);
  return generated.text;
}

export default async function scriptedRagTask(evalCase: EvalCase): Promise<string> {
  return scriptedRag(evalCase, "candidate");
}
