/// <reference types="node" preserve="true" />
// The declarations name Node's types (NodeJS.ProcessEnv, Buffer): kept in the emitted .d.ts, so an application whose
// compiler does not load every @types package by itself (TypeScript 6 and later) still resolves them.
/**
 * The ragscope SDK: `setupRagscope` to export spans, one wrapper per RAG stage
 * to record them, feedback, the Vercel AI SDK wrappers, redaction and
 * sampling. The LangChain.js adapter has its own entry point
 * (`ragscope/langchain`, adapters/langchain.ts) so that this one does not
 * need @langchain/core. See README.md in this folder.
 */
export { setupRagscope, createRagscopeSpanProcessor, RAGSCOPE_ATTRIBUTE_COUNT_LIMIT, type RagscopeHandle, type RagscopeSetupMode } from "./setup.js";
export { resolveSetupOptions, type OtlpProtocol, type RagscopeSetupOptions, type ResolvedSetupOptions } from "./setup-options.js";
export { configureRagscope, ragscopeConfiguration, type ConfigureOptions, type RagscopeConfiguration, type StageSwitches } from "./configuration.js";
export { instrumentationErrors } from "./instrumentation-errors.js";
export { RAGSCOPE_SDK_VERSION, RAGSCOPE_TRACER_NAME } from "./version.js";
export type { ChunkRecord } from "./records/chunk-record.js";
export type { ContextRecord } from "./records/context-record.js";
export type { GenerationRecord } from "./records/generation-record.js";
export { traceRequest, type RequestOptions } from "./stages/trace-request.js";
export { currentRequest } from "./stages/current-request.js";
export { traceQueryRewrite, type QueryRewriteOptions } from "./stages/trace-query-rewrite.js";
export { traceRetrieve, type RetrieveOptions } from "./stages/trace-retrieve.js";
export { traceRerank, type RerankOptions } from "./stages/trace-rerank.js";
export { traceContext, type ContextOptions } from "./stages/trace-context.js";
export { traceGenerate, type GenerateOptions } from "./stages/trace-generate.js";
export { traceCite } from "./stages/trace-cite.js";
export { recordFeedback, recordUserEvent, type FeedbackOptions, type UserEventOptions, type TraceReference } from "./stages/record-feedback.js";
export { assignVariant, assignmentBucket, type AssignmentOptions, type VariantWeight } from "./experiments/assign-variant.js";
export { traceGenerateText, traceStreamText, type AiSdkTraceOptions } from "./adapters/ai-sdk.js";
export { RagscopeSpanProcessor, DEFAULT_EXPORT_LIMITS, resolveExportLimits, type ExportLimits, type ExportStatistics, type RagscopeSpanProcessorOptions } from "./export/ragscope-span-processor.js";
export { OtlpHttpWriter, type OtlpHttpWriterOptions, type AbortableSpanExporter } from "./export/otlp-http-writer.js";
export { createRedactor, type RedactionMode, type RedactionOptions, type Redactor } from "./redaction/redactor.js";
export { RedactingSpanExporter } from "./redaction/redacting-span-exporter.js";
export { defaultSensitivePatterns, type SensitivePattern } from "./redaction/sensitive-patterns.js";
export { isStructuralAttribute } from "./redaction/structural-attributes.js";
export { isTraceSampled, TraceIdRatioSampler } from "./sampling/trace-id-sampling.js";
export { FeedbackKind, type FeedbackKindName } from "../contracts/span-attributes.js";
