/**
 * `rag.context`: what was packed into the prompt, in which order, and what was
 * dropped or truncated to fit the token budget (OpenInference CHAIN; the
 * fields are ragscope's own, no convention carries them).
 */
import { OpenInferenceSpanKind, RagStage, Ragscope } from "../../contracts/span-attributes.js";
import { readContextRecord, type ContextRecord } from "../records/context-record.js";
import { runInSpan, type StageDefinition } from "../run-in-span.js";
import type { AttributeRecorder } from "../safe-attributes.js";

export interface ContextOptions {
  tokenBudget?: number;
}

/** Traces context assembly. The record is read with `toContext`, or is the value itself. */
export function traceContext<T = ContextRecord>(
  options: ContextOptions,
  fn: () => Promise<T> | T,
  toContext?: (value: T) => ContextRecord,
): Promise<T> {
  return runInSpan(contextStage(options, toContext), fn);
}

/** The span description of this stage, shared by the wrapper and the framework adapters. */
export function contextStage<T>(options: ContextOptions, toContext?: (value: T) => ContextRecord): StageDefinition<T> {
  return {
    stage: RagStage.context,
    spanKind: OpenInferenceSpanKind.chain,
    recordStart: (recorder) => {
      recorder.set(Ragscope.contextTokenBudget, recorder.number("tokenBudget", options.tokenBudget));
    },
    recordResult: (recorder, value, configuration) => {
      const context = readContextRecord(toContext !== undefined ? toContext(value) : value);
      if (!context.ok) {
        recorder.problem(context.error);
        return;
      }
      recordContext(recorder, context.value, configuration.captureText);
    },
  };
}

/**
 * Writes a context record that has been read. The framework adapters call it directly with the records they build:
 * the LangChain adapter's names a Document without an id with an empty chunk id, as its retrieval does
 * (adapters/langchain-documents.ts), which the collector reads as a packed chunk without an id; readContextRecord,
 * which refuses an empty id, checks only the records an application builds.
 */
export function recordContext(recorder: AttributeRecorder, context: ContextRecord, captureText: boolean): void {
  recorder.set(Ragscope.contextChunkIds, context.chunkIds);
  if (Array.isArray(context.droppedChunks)) {
    // Two aligned arrays, because attribute values cannot be lists of objects;
    // a dropped chunk without a reason gets "" to keep the alignment.
    const dropped = context.droppedChunks.filter(
      (chunk) => typeof chunk === "object" && chunk !== null && typeof chunk.chunkId === "string",
    );
    if (dropped.length < context.droppedChunks.length) recorder.problem("droppedChunks has entries without a chunkId");
    recorder.set(
      Ragscope.contextDroppedChunkIds,
      dropped.map((chunk) => chunk.chunkId),
    );
    recorder.set(
      Ragscope.contextDroppedReasons,
      dropped.map((chunk) => (typeof chunk.reason === "string" ? chunk.reason : "")),
    );
  }
  recorder.set(Ragscope.contextTruncatedChunkIds, context.truncatedChunkIds);
  recorder.set(Ragscope.contextTokenCount, recorder.number("context record's tokenCount", context.tokenCount));
  recorder.set(Ragscope.contextTokenBudget, recorder.number("context record's tokenBudget", context.tokenBudget));
  if (captureText) recorder.set(Ragscope.contextText, context.text);
}
