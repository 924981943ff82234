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

/**
 * OpenTelemetry GenAI semantic conventions (experimental; semconv v1.40–1.41 and
 * the semantic-conventions-genai repository; shared/reference/interop.md §2).
 */
export const GenAi = {
  operationName: "gen_ai.operation.name",
  providerName: "gen_ai.provider.name",
  /** Deprecated since v1.37.0 in favour of gen_ai.provider.name; still emitted by older instrumentations. */
  system: "gen_ai.system",
  requestModel: "gen_ai.request.model",
  responseModel: "gen_ai.response.model",
  requestTopK: "gen_ai.request.top_k",
  retrievalTopK: "gen_ai.retrieval.top_k",
  dataSourceId: "gen_ai.data_source.id",
  retrievalQueryText: "gen_ai.retrieval.query.text",
  /** JSON array of `{ id, score, … }` (gen-ai-retrieval-documents.json). */
  retrievalDocuments: "gen_ai.retrieval.documents",
  usageInputTokens: "gen_ai.usage.input_tokens",
  /** Seconds from the request to the first chunk of a streamed response. */
  responseTimeToFirstChunk: "gen_ai.response.time_to_first_chunk",
  usageOutputTokens: "gen_ai.usage.output_tokens",
  /** Deprecated names of the two above. */
  usagePromptTokens: "gen_ai.usage.prompt_tokens",
  usageCompletionTokens: "gen_ai.usage.completion_tokens",
  /** JSON `[{ role, parts: [{ type: "text", content }] }]` (opt-in content). */
  inputMessages: "gen_ai.input.messages",
  outputMessages: "gen_ai.output.messages",
  systemInstructions: "gen_ai.system_instructions",
  conversationId: "gen_ai.conversation.id",
  /** Deprecated flat content: `gen_ai.prompt.N.{role,content}`, `gen_ai.completion.N.{role,content}`. */
  promptPrefix: "gen_ai.prompt",
  completionPrefix: "gen_ai.completion",
  /** Not in GenAI; OpenLLMetry writes it beside the GenAI usage attributes. */
  usageTotalTokens: "gen_ai.usage.total_tokens",
  /**
   * The conventions' message events before v1.37 (their per-message events), written as span events by the Azure AI
   * Inference client library and Semantic Kernel for .NET: one `gen_ai.choice` event per choice, its
   * `{ index, finish_reason, message: { role, content } }` the JSON text of the event's `gen_ai.event.content`.
   */
  choiceEvent: "gen_ai.choice",
  eventContent: "gen_ai.event.content",
  /**
   * The conventions' event (v1.37+) of a call's content sent as an OpenTelemetry log record (content capture
   * `event_only` / `span_and_event`): its attributes are the call's `gen_ai.input.messages` and `gen_ai.output.messages`.
   */
  operationDetailsEvent: "gen_ai.client.inference.operation.details",
} as const;

/** Values of `gen_ai.operation.name`. */
export const GenAiOperation = {
  chat: "chat",
  textCompletion: "text_completion",
  generateContent: "generate_content",
  retrieval: "retrieval",
  embeddings: "embeddings",
  executeTool: "execute_tool",
  createAgent: "create_agent",
  invokeAgent: "invoke_agent",
  invokeWorkflow: "invoke_workflow",
  /** Semantic Kernel for .NET's names of a chat and a text completion, from before the conventions named them. */
  semanticKernelChatCompletions: "chat.completions",
  semanticKernelTextCompletions: "text.completions",
} as const;

/**
 * OpenLLMetry / Traceloop names (npm `@traceloop/ai-semantic-conventions`;
 * shared/reference/interop.md §3). Vector search results are span events.
 */
export const OpenLlmetry = {
  spanKind: "traceloop.span.kind",
  workflowName: "traceloop.workflow.name",
  entityName: "traceloop.entity.name",
  /** JSON: `{"args": […], "kwargs": {…}}` (JS SDK), `{"inputs": …, "tags", "metadata", "kwargs"}` (Python LangChain); collector/04-normalize/read-traceloop-entity.ts. */
  entityInput: "traceloop.entity.input",
  entityOutput: "traceloop.entity.output",
  associationPropertiesPrefix: "traceloop.association.properties",
  llmRequestType: "llm.request.type",
  llmUsageTotalTokens: "llm.usage.total_tokens",
  dbSystem: "db.system",
  vectorQueryTopK: "db.vector.query.top_k",
  /** One event per hit, with the `db.query.result.*` attributes below. */
  queryResultEvent: "db.query.result",
  queryResultId: "db.query.result.id",
  queryResultScore: "db.query.result.score",
  queryResultDistance: "db.query.result.distance",
  /** JSON string. */
  queryResultMetadata: "db.query.result.metadata",
  queryResultDocument: "db.query.result.document",
} as const;

/**
 * `gen_ai.operation.name` values Traceloop's Python instrumentations write that the GenAI conventions do not define
 * (`opentelemetry.semconv_ai.GenAICustomOperationName`): the LangChain retriever callback's span is `vector_db_retrieve`.
 */
export const OpenLlmetryOperation = {
  vectorDbRetrieve: "vector_db_retrieve",
} as const;

/** Values of `traceloop.span.kind`. */
export const OpenLlmetrySpanKind = {
  workflow: "workflow",
  task: "task",
  agent: "agent",
  tool: "tool",
} as const;

/**
 * Values of `llm.request.type` (Python `opentelemetry.semconv_ai.LLMRequestTypeValues`): only `completion` and
 * `chat` are generations; an `embedding` span is an embedding call (an index being built, a query embedded).
 */
export const OpenLlmetryRequestType = {
  completion: "completion",
  chat: "chat",
  rerank: "rerank",
  embedding: "embedding",
  unknown: "unknown",
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
  /**
   * int, one per text the SDK cut to its maxTextLength (RAGSCOPE_MAX_TEXT_LENGTH): `ragscope.cut.<key>` holds the
   * text's length before the cut, so the Case Result notes that metrics read from `<key>` saw only its beginning
   * (collector/06-rebuild/cut-by-sdk.ts). At most MAX_CUT_NOTES a recording.
   */
  cutPrefix: "ragscope.cut.",
  /** bool, true on a span with any `ragscope.cut.<key>`: the collector looks for them only then (one lookup a span). */
  cut: "ragscope.cut",

  // Linkage of a request to an offline run (empty on online traffic).
  runId: "ragscope.run_id",
  caseId: "ragscope.case_id",
  caseVersion: "ragscope.case_version",
  datasetId: "ragscope.dataset_id",
  datasetVersion: "ragscope.dataset_version",

  // Who asked: multi-tenant and permission checks need both.
  /** What the client says; recorded as a claim only when the receiver authenticated a tenant. */
  tenantId: "ragscope.tenant_id",
  /**
   * Resource attribute the receiver sets on every span from the credential
   * that sent it (SECURITY.md "Tenants"); any value a client sends under this
   * key is removed. The tenant of stored data is this one when present.
   */
  authenticatedTenant: "ragscope.tenant.authenticated",
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
  /**
   * int: how many chunks the list held, on retrieve spans and for a rerank's input and output. A list of no chunks has
   * no flattened attributes, so without the count "returned nothing" read as "not recorded". Set before the list's
   * documents: an SDK past its attribute count limit drops the attributes set last, so the count survives a cut list
   * and tells it from a whole one (collector/04-normalize/unread-cut-list.ts).
   */
  retrievalDocumentCount: "ragscope.retrieval.document_count",
  rerankInputDocumentCount: "ragscope.rerank.input_document_count",
  rerankOutputDocumentCount: "ragscope.rerank.output_document_count",
  /**
   * int: how many of the list's chunks the SDK could not record (an element with no chunk id), beside the count, which
   * counts them too. Each recorded chunk keeps the index of its place in the list, so their places are empty: the list
   * is then not read, and this count says why (collector/04-normalize/unrecorded-documents.ts). Absent when all were.
   */
  retrievalUnrecordedDocumentCount: "ragscope.retrieval.unrecorded_document_count",
  rerankInputUnrecordedDocumentCount: "ragscope.rerank.input_unrecorded_document_count",
  rerankOutputUnrecordedDocumentCount: "ragscope.rerank.output_unrecorded_document_count",
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
  /** The chunk id of the citation the user clicked (kind citation_click). */
  feedbackChunkId: "ragscope.feedback.chunk_id",

  // Online experiments (A/B): which experiment the request belongs to, and which arm it saw.
  experimentId: "ragscope.experiment.id",
  experimentVariant: "ragscope.experiment.variant",
} as const;

/** Values of `ragscope.feedback.kind`: what the user did after the answer. */
export const FeedbackKind = {
  thumbsUp: "thumbs_up",
  thumbsDown: "thumbs_down",
  /** The user asked again or asked more: the answer did not settle it. */
  followUp: "follow_up",
  /** The user was handed to a person. */
  handoff: "handoff",
  /** The user copied the answer. */
  copy: "copy",
  /** The user opened a cited source; `chunkId` names it. */
  citationClick: "citation_click",
  /** The user (or the application) marked the question resolved. */
  resolved: "resolved",
  /** The application saw the user give up (closed the chat without an answer they used). */
  abandoned: "abandoned",
  /** A satisfaction score; `value` carries it (the application's scale, e.g. 1–5). */
  rating: "rating",
} as const;
export type FeedbackKindName = (typeof FeedbackKind)[keyof typeof FeedbackKind];

/**
 * The events of an answer a user reacts to — what the per-request behaviour rates (like, dislike, copy, citation
 * click, handoff, satisfaction) count. An application that records only other kinds (follow-up, resolved,
 * abandoned) gives those rates nothing to read: no data, not 0 (evaluators/behaviour/behaviour-evidence.ts, and the
 * dashboards' same test, which the request rollups' columns count).
 */
export const ANSWER_REACTION_KINDS: readonly FeedbackKindName[] = [FeedbackKind.thumbsUp, FeedbackKind.thumbsDown, FeedbackKind.copy, FeedbackKind.handoff, FeedbackKind.citationClick, FeedbackKind.rating];

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

/**
 * Attributes the SDK writes for one chunk of a retrieval or a rerank (instrumentation/chunk-attributes.ts): the
 * OpenInference document's id, content, score and metadata, and the eight DocumentField fields.
 */
export const ATTRIBUTES_PER_CHUNK = 12;

/**
 * Attributes one span may carry, one number for both ends: the SDK raises OpenTelemetry's span attribute count limit
 * (128 by default) to it (instrumentation/setup.ts RAGSCOPE_ATTRIBUTE_COUNT_LIMIT), and the receiver takes spans of
 * up to it by default (RAGSCOPE_MAX_ATTRIBUTES_PER_SPAN; a span over the receiver's bound refuses its whole request).
 * A retrieval of n chunks writes 12n attributes and a handful more: 16,384 holds ~1,360 chunks on one span, a rerank
 * of 1,000 chunks to 300. The receiver's memory is bounded per request by its items, not by this
 * (RAGSCOPE_MAX_ITEMS_PER_REQUEST).
 */
export const SPAN_ATTRIBUTE_COUNT_LIMIT = 16_384;

/** Version written to `ragscope.schema_version`. */
export const RAGSCOPE_SCHEMA_VERSION = "1";

/** Builds `<prefix>.<index>.<suffix>`, the OpenInference flattening rule. */
export function flattenedKey(prefix: string, index: number, suffix: string): string {
  return `${prefix}.${index}.${suffix}`;
}
