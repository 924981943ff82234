/** `rag.cite`: the chunk ids the answer cites, in answer order (OpenInference CHAIN). */
import { OpenInferenceSpanKind, RagStage, Ragscope } from "../../contracts/span-attributes.js";
import { readChunkIds } from "../records/string-list.js";
import { runInSpan, type StageDefinition } from "../run-in-span.js";

/** Traces citation extraction. Chunk ids are read with `toChunkIds`, or are the value itself. */
export function traceCite<T = string[]>(fn: () => Promise<T> | T, toChunkIds?: (value: T) => string[]): Promise<T> {
  return runInSpan(citeStage(toChunkIds), fn);
}

/** The span description of this stage, shared by the wrapper and the framework adapters. */
export function citeStage<T>(toChunkIds?: (value: T) => string[]): StageDefinition<T> {
  return {
    stage: RagStage.cite,
    spanKind: OpenInferenceSpanKind.chain,
    recordResult: (recorder, value) => {
      const chunkIds = readChunkIds(toChunkIds !== undefined ? toChunkIds(value) : value);
      if (!chunkIds.ok) {
        recorder.problem(chunkIds.error);
        return;
      }
      recorder.set(Ragscope.citationChunkIds, chunkIds.value);
    },
  };
}
