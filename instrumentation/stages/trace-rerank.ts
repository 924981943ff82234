/**
 * `rag.rerank`: the reranker's input and output order (OpenInference RERANKER).
 * Both lists are written in OpenInference form and with ragscope's fields, so
 * the collector can tell which chunks the reranker promoted or cut.
 */
import { OpenInference, OpenInferenceSpanKind, RagStage, Ragscope } from "../../contracts/span-attributes.js";
import { recordChunkList } from "../chunk-attributes.js";
import type { ChunkRecord } from "../records/chunk-record.js";
import { runInSpan, type StageDefinition } from "../run-in-span.js";

export interface RerankOptions {
  query: string;
  /** The chunks handed to the reranker, in their incoming order. */
  input: ChunkRecord[];
  model?: string;
  topK?: number;
}

/** Traces a rerank. Output chunks are read with `toChunks`, or are the value itself. */
export function traceRerank<T = ChunkRecord[]>(
  options: RerankOptions,
  fn: () => Promise<T> | T,
  toChunks?: (value: T) => ChunkRecord[],
): Promise<T> {
  return runInSpan(rerankStage(options, toChunks), fn);
}

/** The span description of this stage, shared by the wrapper and the framework adapters. */
export function rerankStage<T>(options: RerankOptions, toChunks?: (value: T) => ChunkRecord[]): StageDefinition<T> {
  return {
    stage: RagStage.rerank,
    spanKind: OpenInferenceSpanKind.reranker,
    recordStart: (recorder, configuration) => {
      recorder.set(OpenInference.inputValue, options.query);
      recorder.set(OpenInference.rerankerQuery, options.query);
      recorder.set(OpenInference.rerankerModelName, options.model);
      recorder.set(OpenInference.rerankerTopK, recorder.number("topK", options.topK));
    },
    recordInput: (recorder, configuration) => {
      recordChunkList(
        recorder,
        options.input,
        { openInference: OpenInference.rerankerInputDocumentsPrefix, ragscope: Ragscope.rerankInputDocumentsPrefix, count: Ragscope.rerankInputDocumentCount, unrecorded: Ragscope.rerankInputUnrecordedDocumentCount },
        configuration.captureText,
      );
    },
    recordResult: (recorder, value, configuration) => {
      const chunks: unknown = toChunks !== undefined ? toChunks(value) : value;
      recordChunkList(
        recorder,
        chunks,
        { openInference: OpenInference.rerankerOutputDocumentsPrefix, ragscope: Ragscope.rerankOutputDocumentsPrefix, count: Ragscope.rerankOutputDocumentCount, unrecorded: Ragscope.rerankOutputUnrecordedDocumentCount },
        configuration.captureText,
      );
    },
  };
}
