/**
 * Whether a trace records a RAG request — a user's question the pipeline
 * answered or tried to — and so becomes a Case Result.
 *
 * The seeds' unit of evaluation is one user question through the pipeline
 * (query rewrite → retrieval → rerank → context → generation → answer); the
 * traces an instrumented application sends also hold work that is no request:
 * an index built at start-up or by an ingestion job (LlamaIndex under
 * OpenInference: a trace of EMBEDDING spans, another of `SentenceSplitter`
 * CHAIN spans), or, behind an OpenTelemetry Collector that forwards
 * everything, a service's plain HTTP spans. Rebuilt as Case Results they were
 * stored and counted as requests (every metric "not applicable" but latency),
 * inflating request counts and skewing rates and latency percentiles.
 *
 * A trace is a request when it carries any of
 * - a span of a RAG stage: query rewrite, retrieval, rerank, context,
 *   generation or citation — failed or not (a retrieval that failed is an
 *   error span of that stage), and generation alone (a question answered
 *   without retrieval is still a question answered; its retrieval metrics
 *   are "not available");
 * - a request span that says it is one: ragscope's own (`ragscope.stage =
 *   request`, or a span named `rag.request`, the SDK's name for it, which
 *   hand-written spans follow), linked to a run or a case
 *   (`ragscope.run_id` / `ragscope.case_id`, in whichever convention: an
 *   Eval Case's run must see each of its cases, failed ones too), holding the
 *   user's question, or failed (a request that failed before any stage span
 *   was written must count in error rates);
 * - user events (`rag.feedback`): they belong to a request, and a trace of
 *   events alone is merged into its request's stored Case Result
 *   (store/late-feedback/merge-late-feedback.ts).
 * Any other trace is not a Case Result. It is not dropped silently: the
 * evaluation worker counts it by `reason` (ragscope_traces_without_request_total).
 */
import { GenAi, GenAiOperation, OpenInference, OpenInferenceSpanKind, OpenLlmetry, OpenLlmetryRequestType, RagSpanName } from "../../contracts/span-attributes.js";
import type { SpanRecord } from "../00-otlp/span-record.js";
import { isEmbeddingCallWithoutRequestType } from "../04-normalize/llm-call-without-request-type.js";
import type { NormalizedSpan, ObservedStage, RequestObservation } from "../04-normalize/stage-observation.js";

/**
 * Why a trace is not a Case Result: `embedding_only` when every span is an
 * embedding call (an index being built), `no_rag_stage` otherwise.
 */
export type NoRequestReason = "embedding_only" | "no_rag_stage";

/** Every reason, so a counter can show each from the start (at 0). */
export const NO_REQUEST_REASONS: readonly NoRequestReason[] = ["embedding_only", "no_rag_stage"];

/** Spans only a request has: its stages, and the user's events on its answer. */
const REQUEST_STAGES: ReadonlySet<ObservedStage> = new Set(["query_rewrite", "retrieve", "rerank", "context", "generate", "cite", "feedback"]);

const STATUS_ERROR = 2;

function declaresRequest(item: NormalizedSpan): boolean {
  if (item.span.name === RagSpanName.request) return true;
  if (item.observation.stage !== "request") return false;
  if (item.convention === "ragscope") return true;
  const request: RequestObservation = item.observation;
  return request.runId !== null || request.caseId !== null || request.query !== null || item.span.status.code === STATUS_ERROR;
}

/**
 * An embedding call, in each convention ragscope reads (none of them a RAG stage of its own). An OpenLLMetry call whose
 * Python SDK evicted its `llm.request.type` is one when its name is an embedding call's, as the mapper reads it: else
 * an index built under that SDK would be counted as `no_rag_stage`, the reason an operator reads on /metrics.
 */
function isEmbeddingSpan(span: SpanRecord): boolean {
  const attributes = span.attributes;
  const kind = attributes[OpenInference.spanKind];
  return (
    (typeof kind === "string" && kind.toUpperCase() === OpenInferenceSpanKind.embedding) ||
    attributes[GenAi.operationName] === GenAiOperation.embeddings ||
    attributes[OpenLlmetry.llmRequestType] === OpenLlmetryRequestType.embedding ||
    isEmbeddingCallWithoutRequestType(span)
  );
}

/** Null when the trace records a RAG request (see the module comment); else why it does not. */
export function whyNotARequest(normalized: readonly NormalizedSpan[]): NoRequestReason | null {
  if (normalized.some((item) => REQUEST_STAGES.has(item.observation.stage) || declaresRequest(item))) return null;
  return normalized.length > 0 && normalized.every((item) => isEmbeddingSpan(item.span)) ? "embedding_only" : "no_rag_stage";
}
