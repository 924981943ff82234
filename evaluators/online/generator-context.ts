/**
 * What the generator saw, as far as the trace tells:
 * 1. the recorded context text (`rag_observation.context`, the seed's `context`);
 * 2. else the texts of the chunks packed into the context;
 * 3. else the texts of every retrieved chunk (the generator saw at most these;
 *    traces read from OpenInference retriever and LLM spans often carry no
 *    prompt text).
 * Null when none of these holds any text: reference-free checks against the
 * context are then not applicable.
 */
import type { CaseResult, RetrievedChunk } from "../../contracts/case-result.js";
import { packedChunks } from "../evidence/packed-chunks.js";

export type GeneratorContextSource = "context" | "packed_chunks" | "retrieved_chunks";

export interface GeneratorContext {
  text: string;
  source: GeneratorContextSource;
  /** Chunks that make up the context, with text when the trace recorded it. */
  chunks: RetrievedChunk[];
}

const withText = (chunks: readonly RetrievedChunk[]) => chunks.filter((chunk) => chunk.text !== null && chunk.text.trim() !== "");

/** The chunks the generator saw: packed ones when recorded, else every retrieved chunk. */
export function chunksSeenByGenerator(caseResult: CaseResult): RetrievedChunk[] {
  const packed = packedChunks(caseResult);
  if (packed !== null) return packed;
  return caseResult.rag_observation.retrieved_chunks ?? [];
}

export function generatorContext(caseResult: CaseResult): GeneratorContext | null {
  const observation = caseResult.rag_observation;
  const seen = chunksSeenByGenerator(caseResult);
  if (observation.context !== null && observation.context.trim() !== "") return { text: observation.context, source: "context", chunks: seen };
  const packed = packedChunks(caseResult);
  if (packed !== null && withText(packed).length > 0) return { text: withText(packed).map((chunk) => chunk.text).join("\n"), source: "packed_chunks", chunks: packed };
  const retrieved = withText(observation.retrieved_chunks ?? []);
  if (retrieved.length > 0) return { text: retrieved.map((chunk) => chunk.text).join("\n"), source: "retrieved_chunks", chunks: retrieved };
  return null;
}
