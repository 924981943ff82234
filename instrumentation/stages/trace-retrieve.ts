/**
 * `rag.retrieve`: the chunks the retriever returned, in its order
 * (OpenInference RETRIEVER; chunk flattening in chunk-attributes.ts).
 */
import { OpenInference, OpenInferenceSpanKind, RagStage, Ragscope } from "../../contracts/span-attributes.js";
import { recordChunkList } from "../chunk-attributes.js";
import type { ChunkRecord } from "../records/chunk-record.js";
import { runInSpan, type StageDefinition } from "../run-in-span.js";

export interface RetrieveOptions {
  query: string;
  topK?: number;
  /** Name of the retriever (index, strategy) for per-retriever breakdowns. */
  retriever?: string;
}

/** Traces a retrieval. Chunks are read with `toChunks`, or are the value itself. */
export function traceRetrieve<T = ChunkRecord[]>(
  options: RetrieveOptions,
  fn: () => Promise<T> | T,
  toChunks?: (value: T) => ChunkRecord[],
): Promise<T> {
  return runInSpan(retrieveStage(options, toChunks), fn);
}

/** The span description of this stage, shared by the wrapper and the framework adapters. */
export function retrieveStage<T>(options: RetrieveOptions, toChunks?: (value: T) => ChunkRecord[]): StageDefinition<T> {
  return {
    stage: RagStage.retrieve,
    spanKind: OpenInferenceSpanKind.retriever,
    recordStart: (recorder) => {
      recorder.set(OpenInference.inputValue, options.query);
      recorder.set(Ragscope.retrievalTopK, recorder.number("topK", options.topK));
      recorder.set(Ragscope.retrieverName, options.retriever);
    },
    recordResult: (recorder, value, configuration) => {
      const chunks: unknown = toChunks !== undefined ? toChunks(value) : value;
      recordChunkList(
        recorder,
        chunks,
        { openInference: OpenInference.retrievalDocumentsPrefix, ragscope: Ragscope.documentsPrefix, count: Ragscope.retrievalDocumentCount, unrecorded: Ragscope.retrievalUnrecordedDocumentCount },
        configuration.captureText,
      );
    },
  };
}
