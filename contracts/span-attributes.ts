/**
 * Span attribute names written by ragscope's SDK and read by the collector.
 *
 * ragscope emits OpenInference attributes so that other tools can read its spans
 * (shared/reference/interop.md §1), plus a `ragscope.*` namespace for what no
 * convention carries: run/case linkage, chunk document version, effective time
 * and ACL, context packing and truncation, citations, abstention, tenant and
 * principal. Lists of objects are flattened as `<prefix>.<index>.<suffix>` with
 * a zero-based index, the OpenInference rule; object values are JSON strings.
 */

/** OpenInference names (npm `@arizeai/openinference-semantic-conventions`). */
export const OpenInference = {
  spanKind: "openinference.span.kind",
  inputValue: "input.value",
  inputMimeType: "input.mime_type",
  outputValue: "output.value",
  outputMimeType: "output.mime_type",
  sessionId: "session.id",
  userId: "user.id",
  metadata: "metadata",
  retrievalDocumentsPrefix: "retrieval.documents",
  rerankerInputDocumentsPrefix: "reranker.input_documents",
  rerankerOutputDocumentsPrefix: "reranker.output_documents",
  rerankerQuery: "reranker.query",
  rerankerModelName: "reranker.model_name",
  rerankerTopK: "reranker.top_k",
  documentId: "document.id",
  documentContent: "document.content",
  documentScore: "document.score",
  documentMetadata: "document.metadata",
  llmModelName: "llm.model_name",
  llmProvider: "llm.provider",
  llmSystem: "llm.system",
  llmInvocationParameters: "llm.invocation_parameters",
  llmInputMessagesPrefix: "llm.input_messages",
  llmOutputMessagesPrefix: "llm.output_messages",
  messageRole: "message.role",
  messageContent: "message.content",
  llmTokenCountPrompt: "llm.token_count.prompt",
  llmTokenCountCompletion: "llm.token_count.completion",
  llmTokenCountTotal: "llm.token_count.total",
  llmCostPrompt: "llm.cost.prompt",
  llmCostCompletion: "llm.cost.completion",
  llmCostTotal: "llm.cost.total",
  llmPromptTemplateVersion: "llm.prompt_template.version",
} as const;

/** Values of `openinference.span.kind`. */
export const OpenInferenceSpanKind = {
  chain: "CHAIN",
  retriever: "RETRIEVER",
  reranker: "RERANKER",
  llm: "LLM",
  embedding: "EMBEDDING",
  tool: "TOOL",
  agent: "AGENT",
  guardrail: "GUARDRAIL",
  evaluator: "EVALUATOR",
  prompt: "PROMPT",
} as const;

/** The RAG stage a ragscope span records; the value of `ragscope.stage`. */
export const RagStage = {
  request: "request",
  queryRewrite: "query_rewrite",
  retrieve: "retrieve",
  rerank: "rerank",
  context: "context",
  generate: "generate",
  cite: "cite",
  feedback: "feedback",
} as const;
export type RagStageName = (typeof RagStage)[keyof typeof RagStage];

/** Span names used by the SDK, one per stage (DESIGN.md "Data flow"). */
export const RagSpanName: Record<RagStageName, string> = {
  request: "rag.request",
  query_rewrite: "rag.query_rewrite",
  retrieve: "rag.retrieve",
  rerank: "rag.rerank",
  context: "rag.context",
  generate: "rag.generate",
  cite: "rag.cite",
  feedback: "rag.feedback",
};

/** ragscope's own attribute names. */
export const Ragscope = {
  /** Which RAG stage the span records (RagStage). */
  stage: "ragscope.stage",
  /** Schema version of the ragscope attributes on this span. */
  schemaVersion: "ragscope.schema_version",

  // Linkage of a request to an offline run (empty on online traffic).
  runId: "ragscope.run_id",
  caseId: "ragscope.case_id",
  caseVersion: "ragscope.case_version",
  datasetId: "ragscope.dataset_id",
  datasetVersion: "ragscope.dataset_version",

  // Who asked: multi-tenant and permission checks need both.
  tenantId: "ragscope.tenant_id",
  principalId: "ragscope.principal_id",
  /** string[]: the groups / roles the principal holds, matched against chunk ACLs. */
  principalGroups: "ragscope.principal_groups",
  /** Service route or endpoint, for per-route sampling and dashboards. */
  route: "ragscope.route",

  // Query.
  query: "ragscope.query",
  rewrittenQuery: "ragscope.query.rewritten",

  /**
   * Per-document fields no convention carries, flattened beside OpenInference's
   * `retrieval.documents.N.document.*`: `ragscope.documents.N.<field>` where
   * field is one of DocumentField. N matches the OpenInference index.
   */
  documentsPrefix: "ragscope.documents",
  /** On rerank spans the input and output lists carry the same fields. */
  rerankInputDocumentsPrefix: "ragscope.rerank.input_documents",
  rerankOutputDocumentsPrefix: "ragscope.rerank.output_documents",
  retrievalTopK: "ragscope.retrieval.top_k",
  retrieverName: "ragscope.retrieval.retriever",

  // Context assembly: which chunks were packed, in which order, which were cut.
  /** string[]: chunk ids packed into the prompt, in prompt order. */
  contextChunkIds: "ragscope.context.chunk_ids",
  /** string[]: chunk ids that were candidates but cut (budget, dedup, policy). */
  contextDroppedChunkIds: "ragscope.context.dropped_chunk_ids",
  /** string[]: the reason for each dropped chunk, aligned with dropped_chunk_ids. */
  contextDroppedReasons: "ragscope.context.dropped_reasons",
  /** string[]: chunk ids packed only partially (cut mid-text). */
  contextTruncatedChunkIds: "ragscope.context.truncated_chunk_ids",
  contextText: "ragscope.context.text",
  contextTokenCount: "ragscope.context.token_count",
  contextTokenBudget: "ragscope.context.token_budget",

  // Generation.
  answer: "ragscope.answer",
  timeToFirstTokenMs: "ragscope.generation.time_to_first_token_ms",
  /** boolean: the answer declines to answer (insufficient evidence). */
  abstained: "ragscope.answer.abstained",

  // Citations.
  /** string[]: chunk ids the answer cites, in answer order. */
  citationChunkIds: "ragscope.citations.chunk_ids",

  // User feedback linked to the request's trace.
  feedbackKind: "ragscope.feedback.kind",
  feedbackValue: "ragscope.feedback.value",
  feedbackComment: "ragscope.feedback.comment",
} as const;

/** Field names under `ragscope.documents.N.` (and the rerank prefixes). */
export const DocumentField = {
  documentId: "document_id",
  documentVersion: "document_version",
  sectionId: "section_id",
  /** ISO-8601 date or date-time from which this version is in force. */
  effectiveFrom: "effective_from",
  /** ISO-8601 date or date-time after which this version is no longer in force. */
  effectiveTo: "effective_to",
  /** string[]: groups allowed to read the chunk; empty or absent = public. */
  acl: "acl",
  tenantId: "tenant_id",
  /** Rank as recorded by the pipeline (1-based). */
  rank: "rank",
} as const;

/** Version written to `ragscope.schema_version`. */
export const RAGSCOPE_SCHEMA_VERSION = "1";

/** Builds `<prefix>.<index>.<suffix>`, the OpenInference flattening rule. */
export function flattenedKey(prefix: string, index: number, suffix: string): string {
  return `${prefix}.${index}.${suffix}`;
}
