/**
 * What a span says about one RAG stage, independent of the convention it was
 * written in. Mappers (ragscope, OpenInference, OTel GenAI, OpenLLMetry) turn
 * spans into these; the rebuild step reads only these. A field the span did
 * not carry is null: "not available", never a made-up default.
 */
import type { RagStageName } from "../../contracts/span-attributes.js";
import type { SpanRecord } from "../00-otlp/span-record.js";
import type { MalformedAttribute } from "./find-malformed-json.js";

export interface ObservedDocument {
  /** Null when the trace carries no id for this document (read-documents.ts). */
  chunkId: string | null;
  documentId: string | null;
  documentVersion: string | null;
  sectionId: string | null;
  text: string | null;
  score: number | null;
  effectiveFrom: string | null;
  effectiveTo: string | null;
  acl: string[] | null;
  tenantId: string | null;
}

/**
 * Values of the span that parsed but that its reader could not take as what the convention says they hold (a
 * retriever's item that is no document, a score that is no number, a message without text, a list with an index
 * missing): the field they would fill is null. No item is left out of its list, so none takes another's place (a
 * document's rank, the message a query or answer is taken from): the list, or the value, is then null. The rebuild lists them on the Case Result (`malformed_attributes`, kind
 * `unreadable_value`), so a missing value says why. Absent when nothing was left unread; bounded per span
 * (explain-unread-value.ts).
 */
export interface UnreadValues {
  unreadable?: MalformedAttribute[];
}

/** The Case Result's request-wide usage sums (`rag_observation.generation`), each summed over the trace's generations. */
export const USAGE_SUMS = ["input_tokens", "output_tokens", "total_tokens", "cost"] as const;
export type UsageSum = (typeof USAGE_SUMS)[number];

/**
 * The request-wide sums a span's usage belongs in, or may, without the span giving it: an LLM call whose request type
 * its SDK evicted, so that whether it was a generation is not known, or a generation whose token counts it does not
 * carry after its SDK dropped attributes (llm-call-without-request-type.ts). The rebuild gives each named sum as not
 * available, with a note on the span, rather than a sum that leaves the call out and reads lower than what the
 * request used (collector/06-rebuild/request-usage.ts). Absent when nothing is left out.
 */
export interface UncountedUsage {
  uncountedUsage?: UsageSum[];
}

export interface RequestObservation extends UnreadValues, UncountedUsage {
  stage: "request";
  query: string | null;
  answer: string | null;
  runId: string | null;
  caseId: string | null;
  caseVersion: string | null;
  datasetId: string | null;
  datasetVersion: string | null;
  tenantId: string | null;
  principalId: string | null;
  principalGroups: string[] | null;
  route: string | null;
  sessionId: string | null;
  userId: string | null;
  experimentId: string | null;
  experimentVariant: string | null;
  /**
   * A request span that is also an agent recording its calls' usage (a GenAI `invoke_agent` at the top of the
   * trace): counted as OtherObservation's `enclosedUsage` is. Absent otherwise.
   */
  enclosedUsage?: EnclosedUsage;
}

export interface QueryRewriteObservation extends UnreadValues {
  stage: "query_rewrite";
  query: string | null;
  rewrittenQuery: string | null;
}

export interface RetrieveObservation extends UnreadValues {
  stage: "retrieve";
  query: string | null;
  /** Null when not recorded, or when what was recorded could not be read (then `unreadable` says why). */
  documents: ObservedDocument[] | null;
}

export interface RerankObservation extends UnreadValues {
  stage: "rerank";
  query: string | null;
  input: ObservedDocument[] | null;
  output: ObservedDocument[] | null;
  /**
   * True when the span names its documents by text alone (OpenLLMetry's rerank: read-openllmetry-rerank.ts): the
   * rebuild gives each the chunk id of the retrieved document with the same text, or, when that cannot be done for
   * every one, keeps the retrieval's ranking (collector/06-rebuild/rebuild-case-result.ts).
   */
  documentsNamedByText?: boolean;
}

export interface ContextObservation extends UnreadValues {
  stage: "context";
  /** In prompt order; an entry is null when the trace carries no id for that chunk. */
  chunkIds: (string | null)[] | null;
  droppedChunks: { chunkId: string; reason: string | null }[] | null;
  truncatedChunkIds: string[] | null;
  text: string | null;
  tokenCount: number | null;
  tokenBudget: number | null;
}

export interface GenerateObservation extends UnreadValues, UncountedUsage {
  stage: "generate";
  model: string | null;
  inputTokens: number | null;
  outputTokens: number | null;
  totalTokens: number | null;
  cost: number | null;
  timeToFirstTokenMs: number | null;
  answer: string | null;
  abstained: boolean | null;
}

export interface CiteObservation extends UnreadValues {
  stage: "cite";
  chunkIds: string[] | null;
}

export interface FeedbackObservation extends UnreadValues {
  stage: "feedback";
  kind: string | null;
  value: string | null;
  comment: string | null;
  chunkId: string | null;
}

export interface OtherObservation extends UnreadValues, UncountedUsage {
  stage: "other";
  /**
   * An LLM call whose reader cannot tell a generation from an embedding (llm-call-without-request-type.ts): it may
   * have been a generation, and, ended after the last known one, the request's last. What the last generation
   * decides (the answer, the model) is then not known (collector/06-rebuild/last-generation.ts). Absent otherwise.
   */
  mayBeGeneration?: true;
  /**
   * The usage a span that is no LLM call records for the calls it made: a GenAI `invoke_agent` span's
   * `gen_ai.usage.*` (otel-genai-mapper.ts). The rebuild counts it as a wrapper of the LLM calls inside it, once with
   * theirs, and alone when none of them is in the trace — a remote agent, whose calls ran where no span of this trace
   * records them (collector/06-rebuild/request-usage.ts). Absent when the span records no usage.
   */
  enclosedUsage?: EnclosedUsage;
}

/** What an agent span records of its calls' usage; null for what it does not record. */
export interface EnclosedUsage {
  inputTokens: number | null;
  outputTokens: number | null;
  totalTokens: number | null;
  cost: number | null;
}

export type StageObservation =
  | RequestObservation
  | QueryRewriteObservation
  | RetrieveObservation
  | RerankObservation
  | ContextObservation
  | GenerateObservation
  | CiteObservation
  | FeedbackObservation
  | OtherObservation;

/** A span together with what it means for RAG, and who read it. */
export interface NormalizedSpan {
  span: SpanRecord;
  observation: StageObservation;
  /** The mapper that read the span, e.g. "ragscope" or "openinference". */
  convention: string;
  /** JSON-valued attributes of the span that did not parse (find-malformed-json.ts); read as absent by the mapper. */
  malformedJson: MalformedAttribute[];
}

export type ObservedStage = RagStageName | "other";
