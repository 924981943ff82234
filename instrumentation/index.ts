/**
 * The ragscope SDK: `setupRagscope` to export spans, one wrapper per RAG stage
 * to record them. See README.md in this folder.
 */
export { setupRagscope, RAGSCOPE_ATTRIBUTE_COUNT_LIMIT, type RagscopeHandle } from "./setup.js";
export { resolveSetupOptions, type OtlpProtocol, type RagscopeSetupOptions, type ResolvedSetupOptions } from "./setup-options.js";
export { configureRagscope, ragscopeConfiguration, type RagscopeConfiguration } from "./configuration.js";
export { instrumentationErrors } from "./instrumentation-errors.js";
export { RAGSCOPE_SDK_VERSION, RAGSCOPE_TRACER_NAME } from "./version.js";
export type { ChunkRecord } from "./records/chunk-record.js";
export type { ContextRecord } from "./records/context-record.js";
export type { GenerationRecord } from "./records/generation-record.js";
export { traceRequest, type RequestOptions } from "./stages/trace-request.js";
export { traceQueryRewrite, type QueryRewriteOptions } from "./stages/trace-query-rewrite.js";
export { traceRetrieve, type RetrieveOptions } from "./stages/trace-retrieve.js";
export { traceRerank, type RerankOptions } from "./stages/trace-rerank.js";
export { traceContext, type ContextOptions } from "./stages/trace-context.js";
export { traceGenerate, type GenerateOptions } from "./stages/trace-generate.js";
export { traceCite } from "./stages/trace-cite.js";
