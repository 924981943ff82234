/** `rag.query_rewrite`: the query as the pipeline rewrote it (OpenInference CHAIN). */
import { OpenInference, OpenInferenceSpanKind, RagStage, Ragscope } from "../../contracts/span-attributes.js";
import { runInSpan, type StageDefinition } from "../run-in-span.js";

export interface QueryRewriteOptions {
  query: string;
}

export function traceQueryRewrite(options: QueryRewriteOptions, fn: () => Promise<string> | string): Promise<string> {
  return runInSpan(queryRewriteStage(options), fn);
}

/** The span description of this stage, shared by the wrapper and the framework adapters. */
export function queryRewriteStage(options: QueryRewriteOptions): StageDefinition<string> {
  return {
    stage: RagStage.queryRewrite,
    spanKind: OpenInferenceSpanKind.chain,
    recordStart: (recorder) => {
      recorder.set(OpenInference.inputValue, options.query);
      recorder.set(Ragscope.query, options.query);
    },
    recordResult: (recorder, rewritten) => {
      if (typeof rewritten !== "string") {
        recorder.problem(`query rewrite returned ${typeof rewritten}, not a string`);
        return;
      }
      recorder.set(OpenInference.outputValue, rewritten);
      recorder.set(Ragscope.rewrittenQuery, rewritten);
    },
  };
}
