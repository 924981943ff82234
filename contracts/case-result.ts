/**
 * The Case Result: what one execution of the RAG system actually did.
 *
 * Fields are the seed's (000_166131c131cdea70.txt "RAG 运行结果记录"), kept
 * exactly. ragscope rebuilds it from a trace. `rag_observation` carries the
 * seed's `retrieved_chunks[rank, chunk_id, text, score]`, `context` and
 * `citations`, and extends them with what the trace also recorded (document
 * ids and versions, the packed and dropped chunks, generation usage, stage
 * latencies). A value the trace did not carry is `null` ("not available"),
 * never invented: metrics that need it become not applicable, not zero.
 *
 * Online traffic has no case: `case_id` is empty and the result is still built.
 */
import { z } from "zod";

export const executionStatus = z.enum(["completed", "partial", "failed", "timeout"]);
/**
 * The case's verdict (the seed leaves the values open; evaluators/case-verdict.ts
 * decides them, the README's "Verdicts" table documents them):
 * passed — something able to judge the case passed it (a deterministic rule
 * against the Eval Case's gold data, or an LLM judge) and nothing failed it;
 * failed — a rule or an LLM judge failed it; review_required — needs review:
 * an evaluator errored, or a heuristic signal (an overlap measure, the
 * heuristic judge) is against it and no LLM judge has answered it; unjudged —
 * values were measured, nothing is against it, nothing able to judge it did;
 * not_evaluated — nothing applied (also the state before evaluation).
 */
export const qualityStatus = z.enum(["passed", "failed", "review_required", "unjudged", "not_evaluated"]);
export const executionErrorType = z.enum(["none", "system_error", "timeout", "environment_error"]);

export const retrievedChunk = z.object({
  rank: z.number().int().min(1),
  /** Null when the trace carries no id for the chunk (never an empty or made-up id). */
  chunk_id: z.string().min(1).nullable(),
  text: z.string().nullable(),
  score: z.number().nullable(),
  document_id: z.string().nullable().default(null),
  document_version: z.string().nullable().default(null),
  section_id: z.string().nullable().default(null),
  effective_from: z.string().nullable().default(null),
  effective_to: z.string().nullable().default(null),
  /** Groups allowed to read the chunk; null when the trace carries no ACL. */
  acl: z.array(z.string()).nullable().default(null),
  tenant_id: z.string().nullable().default(null),
});

export const contextChunk = z.object({
  /** Null when the trace carries no id for the chunk; retrieved and packed chunks share ids when it does. */
  chunk_id: z.string().min(1).nullable(),
  /** 1-based position in the prompt. */
  position: z.number().int().min(1),
  /** Cut mid-text to fit the budget. */
  truncated: z.boolean().default(false),
});

export const droppedChunk = z.object({
  chunk_id: z.string(),
  reason: z.string().nullable().default(null),
});

/**
 * Counts, costs and durations cannot be negative. The collector reads a negative one a span recorded (or one beyond
 * 2^53 − 1, no measurement) as not available, with a note (collector/04-normalize/out-of-range-values.ts), so the
 * schema rejecting it only guards other writers.
 */
export const generationObservation = z.object({
  model: z.string().nullable().default(null),
  input_tokens: z.number().nonnegative().nullable().default(null),
  output_tokens: z.number().nonnegative().nullable().default(null),
  total_tokens: z.number().nonnegative().nullable().default(null),
  cost: z.number().nonnegative().nullable().default(null),
  time_to_first_token_ms: z.number().nonnegative().nullable().default(null),
});

/** User feedback recorded in the request's trace (SDK `recordFeedback`, span `rag.feedback`). */
export const feedbackEntry = z.object({
  /** thumbs_up, thumbs_down, follow_up, handoff, copy, citation_click, resolved, abandoned, rating (contracts/span-attributes.ts FeedbackKind). */
  kind: z.string(),
  value: z.string().nullable().default(null),
  comment: z.string().nullable().default(null),
  recorded_at: z.string(),
  /** The feedback span's id: the identity of the event, so a replayed span is merged once, never counted twice. */
  span_id: z.string().nullable().default(null),
  /** The clicked citation's chunk id (citation_click). */
  chunk_id: z.string().nullable().default(null),
});

export const stageTiming = z.object({
  stage: z.string(),
  span_name: z.string(),
  duration_ms: z.number().nonnegative(),
  status: z.enum(["ok", "error", "unset"]),
});

/** Every kind of `malformed_attributes` entry (described on `malformedAttribute.kind`); /metrics counts each (ragscope_malformed_attributes_total). */
export const MALFORMED_ATTRIBUTE_KINDS = ["malformed_json", "invalid_identifier", "invalid_time", "truncated", "tenant_claim", "unreadable_value"] as const;
export type MalformedAttributeKind = (typeof MALFORMED_ATTRIBUTE_KINDS)[number];

export const malformedAttribute = z.object({
  span_id: z.string(),
  span_name: z.string(),
  /** The attribute key; for an event attribute, `<event name>: <key>`. */
  attribute: z.string(),
  /**
   * What was wrong: JSON text that did not parse, an identifier refused at
   * ingestion (contracts/identifiers.ts; the value is not stored), a span
   * whose times cannot be right (it ends before it starts), or a value the
   * receiver cut at its size limit, an attribute or the span's later events
   * it dropped at its bounds (all `truncated`; SECURITY.md "Limits"), or a
   * tenant the span claims that differs from the one its credential
   * authenticated; or a value that parsed but that the span's convention
   * reader could not take as what the convention says it holds
   * (`unreadable_value`: an item of a retriever's returned documents that is
   * no document, a document's score that is no number, a message without
   * text; a list whose ranks cannot be known: an index gap, events the SDK
   * dropped, a retrieval without documents among those joined into one
   * ranking), so the field it would fill is null or the item is left out.
   */
  kind: z.enum(MALFORMED_ATTRIBUTE_KINDS).default("malformed_json"),
  /** The parser's or the check's message. */
  error: z.string(),
});
/** One entry of a Case Result's `malformed_attributes`. */
export type MalformedAttributeNote = z.infer<typeof malformedAttribute>;

export const ragObservation = z.object({
  query: z.string().nullable().default(null),
  rewritten_query: z.string().nullable().default(null),
  /** In the order the pipeline recorded (after rerank, when there was one). */
  retrieved_chunks: z.array(retrievedChunk).nullable(),
  /** First-stage retrieval before any rerank, when a rerank was recorded. */
  pre_rerank_chunks: z.array(retrievedChunk).nullable().default(null),
  /** The context text given to the generator (the seed's `context`). */
  context: z.string().nullable(),
  /** Chunks packed into the context, in prompt order; null when not recorded. */
  context_chunks: z.array(contextChunk).nullable().default(null),
  /** Candidate chunks that did not make it into the context. */
  dropped_chunks: z.array(droppedChunk).nullable().default(null),
  context_token_count: z.number().nullable().default(null),
  /** Chunk ids the answer cites; null when no citation stage was recorded. */
  citations: z.array(z.string()).nullable(),
  abstained: z.boolean().nullable().default(null),
  generation: generationObservation.default({
    model: null,
    input_tokens: null,
    output_tokens: null,
    total_tokens: null,
    cost: null,
    time_to_first_token_ms: null,
  }),
  latency_ms: z.number().nonnegative().nullable().default(null),
  stage_timings: z.array(stageTiming).default([]),
  tenant_id: z.string().nullable().default(null),
  principal_id: z.string().nullable().default(null),
  principal_groups: z.array(z.string()).nullable().default(null),
  service_name: z.string().nullable().default(null),
  route: z.string().nullable().default(null),
  /** The conversation the request belongs to (`session.id`); behaviour metrics group requests by it. */
  session_id: z.string().nullable().default(null),
  /** The end user (`user.id`), the unit experiments are usually assigned by. */
  user_id: z.string().nullable().default(null),
  /** The online experiment and the variant this request saw (`ragscope.experiment.*`). */
  experiment_id: z.string().nullable().default(null),
  experiment_variant: z.string().nullable().default(null),
  /** Feedback on this request, in the order it was given; empty when none was recorded. */
  feedback: z.array(feedbackEntry).default([]),
  /** Which span convention the trace was read with (ragscope, openinference, …). */
  source_conventions: z.array(z.string()).default([]),
  /**
   * Attributes the trace carried as JSON text that did not parse (a document's
   * metadata, a message list, a retrieval's documents), or that parsed but
   * could not be read (kind `unreadable_value`), and attributes the collector
   * refused or changed: their values are "not available" in this result, and
   * this says why. Empty when all were taken as sent.
   */
  malformed_attributes: z.array(malformedAttribute).default([]),
  /** True when the trace was evaluated before its root span ended. */
  partial_trace: z.boolean().default(false),
  span_count: z.number().int().default(0),
});

export const caseResult = z.object({
  case_result_id: z.string().min(1),
  run_id: z.string(),
  case_id: z.string(),
  case_version: z.string(),
  execution_status: executionStatus,
  quality_status: qualityStatus,
  input_snapshot_uri: z.string().nullable(),
  output: z.string().nullable(),
  rag_observation: ragObservation,
  trace_id: z.string(),
  artifact_refs: z.array(z.string()).default([]),
  execution_error: z.object({
    type: executionErrorType,
    message: z.string().nullable(),
  }),
  started_at: z.string(),
  completed_at: z.string().nullable(),
});

export type CaseResult = z.infer<typeof caseResult>;
export type RagObservation = z.infer<typeof ragObservation>;
export type RetrievedChunk = z.infer<typeof retrievedChunk>;
export type ContextChunk = z.infer<typeof contextChunk>;
export type FeedbackEntry = z.infer<typeof feedbackEntry>;

/**
 * How reasons and evidence name a chunk: its id, or `rank N (no id)` when the
 * trace carries none. A label for people, never a key to match chunks on.
 */
export function chunkLabel(chunk: { chunk_id: string | null; rank: number }): string {
  return chunk.chunk_id ?? `rank ${chunk.rank} (no id)`;
}
