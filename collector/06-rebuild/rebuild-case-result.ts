/**
 * Rebuilds one Case Result from the spans of one trace.
 *
 * Each span is first read by the mapper registry (normalize/); this step only
 * combines stage observations:
 * - retrieved_chunks are the final ranking the pipeline produced: the rerank
 *   output when a rerank was recorded (the retrieve ranking is kept as
 *   pre_rerank_chunks) — not available when that output was lost (the rerank
 *   span's SDK dropped attributes, or its reader named what it could not read),
 *   with a note on `retrieved_chunks`, never the retrieval's ranking in its
 *   place; a rerank that recorded no output and lost nothing (it threw) leaves
 *   the retrieval's ranking the recorded one — otherwise the retrieve spans' documents in time order
 *   (a retrieve span inside one that recorded documents adds none: nested-stage-spans.ts);
 *   when one of them has no documents (not available, or none recorded), the joined ranking is not available
 *   and a note on `retrieved_chunks` names that retrieval, rather than a ranking missing its block (a retrieve span
 *   that recorded none around one that did, and names nothing unread, is a wrapper, not a block).
 *   Documents the rerank span lists without metadata get it from the retrieve
 *   span by chunk id (a document without an id is never completed from another).
 *   A rerank that names its documents by text alone (OpenLLMetry's) gets the
 *   retrieved chunks' ids by exact text, all or none (name-reranked-by-text.ts);
 *   with none, the retrieval's ranking stays the final one, with no pre-rerank list;
 * - the context, its packed and dropped chunks come from the context stage;
 * - citations from the cite stage; tokens and cost are summed over the
 *   request's LLM calls (request-usage.ts): a sum is not available, with a
 *   note on `generation` naming the call, when a call did not record it while
 *   another did, or when a span's reader says it leaves that span's usage out
 *   (an LLM call whose SDK evicted its request type:
 *   llm-call-without-request-type.ts), rather than a number lower than what the
 *   request used, and when the values add up beyond the largest number (not
 *   Infinity). The answer is the request's output or else the last
 *   generation's — the one that ended last, as the status rule reads it —
 *   whose model, abstained and time to first token are the request's; these
 *   (and the answer, unless the request carries its own) are not available,
 *   with a note on `generation`, when an LLM call of unknown kind ended at or
 *   after that generation (outside its span) and may have been the last, or when
 *   several ended at the same instant, neither inside another
 *   (last-generation.ts);
 * - stage_timings: one entry per stage span, except spans inside a span of
 *   their own stage (nested-stage-spans.ts), which are that span's time again;
 * - user feedback spans (thumbs, follow-up, handoff, copy, citation click,
 *   resolved, abandoned, rating) in time order, each with its span id.
 * What no span carried stays null, so metrics that need it are "not available";
 * JSON attributes that did not parse are listed in `malformed_attributes`, and
 * so are values a reader could not read (a retriever's item that is no
 * document, a score that is no number, a message without text; not those of a
 * retrieval whose documents are not used) and spans that end before they start (no latency, no stage timing for them).
 * The request failed when its root span ended in error, or when its last generation — the one that provides the
 * answer — did and no later generation answered (a stream that failed mid-way under a handler that returned its partial
 * text, a model call that threw under a handler that caught it: last-generation.ts); the answer it returned stays the
 * output. When which of several generations ending at the same instant answered is not known and none returned, it
 * failed when any of them failed other than by an abort, and the error names each. A failed root or generation is a
 * timeout only when it says so with the OTel `error.type` attribute (value `timeout`); status messages are free text
 * and not parsed.
 */
import type { CaseResult, RetrievedChunk } from "../../contracts/case-result.js";
import { caseResultIdFor } from "../../contracts/ids.js";
import type { AssembledTrace } from "../05-assemble/trace-assembler.js";
import { isRootSpan } from "../05-assemble/trace-assembler.js";
import type { SpanRecord } from "../00-otlp/span-record.js";
import { identifierProblem } from "../../contracts/identifiers.js";
import { Ragscope } from "../../contracts/span-attributes.js";
import { truncatedAttributesKey, truncatedNamesKey } from "../00-otlp/enforce-request-limits.js";
import { droppedAttributesKey, droppedEventsCountKey } from "../00-otlp/per-span-bounds.js";
import type {
  CiteObservation,
  ContextObservation,
  FeedbackObservation,
  GenerateObservation,
  NormalizedSpan,
  ObservedDocument,
  QueryRewriteObservation,
  RequestObservation,
  RerankObservation,
  RetrieveObservation,
} from "../04-normalize/stage-observation.js";
import { attributesDroppedBySdk } from "../04-normalize/attributes-dropped-by-sdk.js";
import { nameRerankedByText } from "./name-reranked-by-text.js";
import { lastGeneration, type FailedAnswer } from "./last-generation.js";
import { inTimeOrder } from "./time-order.js";
import { requestUsage } from "./request-usage.js";
import { cutBySdk } from "./cut-by-sdk.js";
import { retrievalsAroundARecordedRetrieval, retrievalsInsideARecordedRetrieval, spansInsideTheirOwnStage } from "./nested-stage-spans.js";

const NANOSECONDS_PER_MILLISECOND = 1_000_000n;

function toIso(unixNano: bigint): string {
  return new Date(Number(unixNano / NANOSECONDS_PER_MILLISECOND)).toISOString();
}

/** A span's duration; null when it ends before it starts (a broken clock): no duration is known, none is made up. */
function durationMs(span: SpanRecord): number | null {
  return span.endTimeUnixNano < span.startTimeUnixNano ? null : Number(span.endTimeUnixNano - span.startTimeUnixNano) / 1e6;
}

const TRUNCATED_BY_RECEIVER = "the value was longer than the receiver's limit (RAGSCOPE_MAX_ATTRIBUTE_VALUE_BYTES) and was truncated to it: metrics read from it see only its beginning";

/** The keys the receiver truncated on a span (collector/00-otlp/enforce-request-limits.ts). */
function truncatedKeys(span: SpanRecord): string[] {
  const keys = span.attributes[truncatedAttributesKey];
  return Array.isArray(keys) ? keys.filter((key): key is string => typeof key === "string") : [];
}

const KEY_DROPPED_BY_RECEIVER = "the key was longer than the receiver's limit (RAGSCOPE_MAX_ATTRIBUTE_KEY_BYTES): the attribute was dropped, its value with it";

type ReceiverNote = { span_id: string; span_name: string; attribute: string; kind: "truncated"; error: string };

/**
 * What the receiver dropped from a span at its bounds (collector/00-otlp/per-span-bounds.ts) that evaluation could
 * have read: attributes with an over-long key, and events past the bound (OpenLLMetry records vector search hits as
 * events); and the span's or its events' names it truncated (enforce-request-limits.ts). Links are not listed:
 * nothing ragscope evaluates reads them.
 */
function droppedByReceiver(span: SpanRecord): ReceiverNote[] {
  const note = (attribute: string, error: string): ReceiverNote => ({ span_id: span.spanId, span_name: span.name, attribute, kind: "truncated", error });
  const listed = span.attributes[droppedAttributesKey];
  const notes = Array.isArray(listed) ? listed.filter((text): text is string => typeof text === "string").map((text) => note(text, KEY_DROPPED_BY_RECEIVER)) : [];
  const events = span.attributes[droppedEventsCountKey];
  if (typeof events === "number" && events > 0) {
    notes.push(note("events", `the span had ${events} more events than the receiver keeps (RAGSCOPE_MAX_EVENTS_PER_SPAN): the later ones were dropped, with whatever they recorded (OpenLLMetry's vector search hits)`));
  }
  const names = span.attributes[truncatedNamesKey];
  if (Array.isArray(names)) for (const name of names) if (typeof name === "string") notes.push(note(name, NAME_TRUNCATED_BY_RECEIVER));
  return notes;
}

const NAME_TRUNCATED_BY_RECEIVER = "the name was longer than the receiver's limit (RAGSCOPE_MAX_NAME_BYTES) and was truncated to it";

/** Why a retrieval without documents makes the joined ranking of the trace's retrievals not available (rebuildCaseResult). */
function unjoinedRetrieval(retrievals: number): string {
  return (
    `this retrieval's documents are not available (or it recorded none), and it is one of the trace's ${retrievals} retrievals, whose documents are joined in time order into one ranking; ` +
    "joined without its documents, the ranking would lack a block and the documents after it would move up, so the joined ranking (retrieved_chunks, or pre_rerank_chunks under a rerank) is not available"
  );
}

/**
 * Why a rerank whose output was lost leaves the final ranking not available (rebuildCaseResult).
 * @param droppedBySdk the rerank span's attributes its SDK dropped; @param named whether the span's reader named what it could not read
 */
function rerankOutputNotAvailable(droppedBySdk: number, named: boolean, retrievalKept: boolean): string {
  const why = named ? "this span's other notes say why" : `its SDK dropped ${droppedBySdk} attribute${droppedBySdk === 1 ? "" : "s"} at its count limit, and it carries no output`;
  return (
    `this rerank's output is not available (${why}), and the last rerank's output is the final ranking: ` +
    `retrieved_chunks is not available, and the retrieval's ranking, which the rerank reordered and may have cut, is not taken in its place${retrievalKept ? " (it is kept as pre_rerank_chunks, the ranking before the rerank)" : ""}`
  );
}

const ENDS_BEFORE_START = "the span ends before it starts (end time earlier than start time): its duration is unknown";

function toChunks(documents: ObservedDocument[], lookup: Map<string, ObservedDocument>): RetrievedChunk[] {
  return documents.map((document, index) => {
    // Only a document with an id can be completed from another span's record of it: without one there is no way to tell it is the same.
    const known = document.chunkId === null ? undefined : lookup.get(document.chunkId);
    return {
      rank: index + 1,
      chunk_id: document.chunkId,
      text: document.text ?? known?.text ?? null,
      score: document.score,
      document_id: document.documentId ?? known?.documentId ?? null,
      document_version: document.documentVersion ?? known?.documentVersion ?? null,
      section_id: document.sectionId ?? known?.sectionId ?? null,
      effective_from: document.effectiveFrom ?? known?.effectiveFrom ?? null,
      effective_to: document.effectiveTo ?? known?.effectiveTo ?? null,
      acl: document.acl ?? known?.acl ?? null,
      tenant_id: document.tenantId ?? known?.tenantId ?? null,
    };
  });
}

function ofStage<Observation>(spans: NormalizedSpan[], stage: string): { span: SpanRecord; observation: Observation }[] {
  return spans.filter((item) => item.observation.stage === stage).map((item) => ({ span: item.span, observation: item.observation as Observation }));
}

function statusName(code: number): "ok" | "error" | "unset" {
  return code === 2 ? "error" : code === 1 ? "ok" : "unset";
}

export function rebuildCaseResult(trace: AssembledTrace<unknown>, normalized: NormalizedSpan[]): CaseResult {
  const requests = ofStage<RequestObservation>(normalized, "request");
  const request = requests[0];
  const rootSpan = request?.span ?? trace.spans.find((span) => span.parentSpanId === "") ?? trace.spans.find(isRootSpan) ?? null;

  // In the order they ran, start time ties broken by end time (time-order.ts): the last of each is the one that ran last.
  const reranks = inTimeOrder(ofStage<RerankObservation>(normalized, "rerank"));
  const contexts = inTimeOrder(ofStage<ContextObservation>(normalized, "context"));
  const generations = inTimeOrder(ofStage<GenerateObservation>(normalized, "generate"));
  const citations = inTimeOrder(ofStage<CiteObservation>(normalized, "cite"));
  const rewrites = inTimeOrder(ofStage<QueryRewriteObservation>(normalized, "query_rewrite"));
  const feedback = inTimeOrder(ofStage<FeedbackObservation>(normalized, "feedback").filter((item) => item.observation.kind !== null));

  // A retrieval inside a retrieval that recorded its documents (a fusion retriever's inner retrievers) adds no documents of its own.
  const innerRetrievals = retrievalsInsideARecordedRetrieval(normalized);
  const retrieves = ofStage<RetrieveObservation>(normalized, "retrieve").filter((item) => !innerRetrievals.has(item.span.spanId));
  // Several retrievals are joined in time order into one ranking. One whose documents are not available is a block of
  // ranks not known, not an empty block: joined without it, the documents after it would move up (raising Hit@k and
  // MRR), and the ranking would lack documents the pipeline did retrieve. The joined ranking is then not available.
  // A retrieval that recorded none around one that did (a wrapper) is no block: its documents are the inner ones. One
  // whose own list could not be read (it names why) is: it may have recorded a ranking of its own (a fusion).
  const wrappers = retrievalsAroundARecordedRetrieval(normalized);
  const unavailableRetrievals = retrieves.some((item) => item.observation.documents !== null)
    ? retrieves.filter((item) => item.observation.documents === null && !(wrappers.has(item.span.spanId) && (item.observation.unreadable ?? []).length === 0))
    : [];
  const retrievedDocuments = retrieves.some((item) => item.observation.documents !== null) && unavailableRetrievals.length === 0 ? retrieves.flatMap((item) => item.observation.documents ?? []) : null;
  const lookup = new Map<string, ObservedDocument>();
  const remember = (document: ObservedDocument) => {
    if (document.chunkId !== null && !lookup.has(document.chunkId)) lookup.set(document.chunkId, document);
  };
  for (const document of retrievedDocuments ?? []) remember(document);
  // A rerank that names its documents by text (OpenLLMetry's) is the final ranking only when each of its documents is
  // one retrieved chunk by its text (name-reranked-by-text.ts); when not, the retrieval's ranking stands, as it did
  // before such a span was read: better the ranking whose ids are known than a final ranking of unknown documents.
  const recordedRerank = reranks.at(-1)?.observation;
  const lastRerank = recordedRerank?.documentsNamedByText ? (nameRerankedByText(recordedRerank, retrievedDocuments) ?? undefined) : recordedRerank;
  for (const document of lastRerank?.input ?? []) remember(document);

  // A rerank whose output was lost — its span lost attributes to its SDK's limit, or its reader named what it could
  // not read — ran and produced the final ranking, which is then not known. One that recorded no output and lost
  // nothing (a reranker that threw) produced none, and the retrieval's ranking stays the one recorded, as before.
  const rerankSpan = reranks.at(-1)?.span;
  const rerankDropped = rerankSpan === undefined ? 0 : attributesDroppedBySdk(rerankSpan);
  const rerankNamed = (lastRerank?.unreadable ?? []).length > 0;
  const rerankOutputLost = lastRerank !== undefined && lastRerank.output === null && (rerankDropped > 0 || rerankNamed);

  let retrievedChunks: RetrievedChunk[] | null = null;
  let preRerankChunks: RetrievedChunk[] | null = null;
  if (lastRerank?.output || rerankOutputLost) {
    // The rerank's output is the final ranking. When it was lost, so is the final ranking: the retrieval's ranking is
    // what the rerank reordered and cut, and read as the final one, ranking metrics would be measured on a list the
    // pipeline did not go on with. It stays what it is, the ranking before the rerank.
    retrievedChunks = lastRerank!.output ? toChunks(lastRerank!.output, lookup) : null;
    const before = retrievedDocuments ?? lastRerank!.input;
    preRerankChunks = before ? toChunks(before, lookup) : null;
  } else if (retrievedDocuments) {
    retrievedChunks = toChunks(retrievedDocuments, lookup);
  }
  const rerankWithoutOutput = rerankOutputLost ? rerankSpan! : null;

  const context = contexts.at(-1)?.observation ?? null;
  const truncated = new Set(context?.truncatedChunkIds ?? []);
  // The last generation is the one that ended last, the one whose failure fails the request; what it decides is not
  // known when a call of unknown kind ended after it, or several ended together (last-generation.ts).
  const last = lastGeneration(normalized, generations, request?.observation.answer ?? null);
  const answer = request?.observation.answer ?? last.observation?.answer ?? null;

  const rootStatus = rootSpan?.status ?? { code: 0 as const, message: "" };
  // The request failed when its root did, or when the generation that provides its answer did (last-generation.ts): a
  // handler that returned the failed stream's partial text, or a reply in place of the answer, returned normally, and
  // read as completed, that text was judged as the request's answer.
  // When which of several generations ending together answered is not known and none returned, each that failed is named.
  const failedRoot = rootStatus.code === 2 ? rootSpan : undefined;
  const executionStatus = !trace.complete ? "partial" : failedRoot || last.failed ? "failed" : "completed";
  const startedAt = rootSpan?.startTimeUnixNano ?? trace.spans[0]?.startTimeUnixNano ?? 0n;
  const endedAt = trace.complete && rootSpan ? rootSpan.endTimeUnixNano : null;
  const identifiers = checkIdentifiers(request ?? null, rootSpan ?? trace.spans[0] ?? null);
  const linkage = identifiers.linkage;

  // An LLM call whose usage is not known, or not known to belong here, leaves the sums it would enter not known.
  const usage = requestUsage(normalized);

  const insideOwnStage = spansInsideTheirOwnStage(normalized);
  const conventions = [...new Set(normalized.map((item) => item.convention).filter((name) => name !== "none"))].sort();

  return {
    case_result_id: caseResultIdFor({ traceId: trace.traceId, runId: linkage?.runId ?? "", caseId: linkage?.caseId ?? "", caseVersion: linkage?.caseVersion ?? "", authenticatedTenant: identifiers.authenticatedTenant, claimedTenant: linkage?.tenantId ?? null }),
    run_id: linkage?.runId ?? "",
    case_id: linkage?.caseId ?? "",
    case_version: linkage?.caseVersion ?? "",
    execution_status: executionStatus,
    quality_status: "not_evaluated",
    input_snapshot_uri: null,
    output: answer,
    rag_observation: {
      query: linkage?.query ?? retrieves[0]?.observation.query ?? null,
      rewritten_query: rewrites.at(-1)?.observation.rewrittenQuery ?? null,
      retrieved_chunks: retrievedChunks,
      pre_rerank_chunks: preRerankChunks,
      context: context?.text ?? null,
      context_chunks: context?.chunkIds ? context.chunkIds.map((chunkId, index) => ({ chunk_id: chunkId, position: index + 1, truncated: chunkId !== null && truncated.has(chunkId) })) : null,
      dropped_chunks: context?.droppedChunks ? context.droppedChunks.map((dropped) => ({ chunk_id: dropped.chunkId, reason: dropped.reason })) : null,
      context_token_count: context?.tokenCount ?? null,
      citations: citations.at(-1)?.observation.chunkIds ?? null,
      abstained: last.observation?.abstained ?? null,
      generation: {
        model: last.observation?.model ?? null,
        input_tokens: usage.sums.input_tokens,
        output_tokens: usage.sums.output_tokens,
        total_tokens: usage.sums.total_tokens,
        cost: usage.sums.cost,
        time_to_first_token_ms: last.observation?.timeToFirstTokenMs ?? null,
      },
      latency_ms: endedAt !== null && rootSpan ? durationMs(rootSpan) : null,
      // A stage whose span ends before it starts has no duration: left out rather than shown as 0 or negative.
      // A span inside a span of its own stage is part of that span's time, not a second stage time (nested-stage-spans.ts).
      stage_timings: normalized.flatMap((item) => {
        const duration = durationMs(item.span);
        return item.observation.stage === "other" || duration === null || insideOwnStage.has(item.span.spanId)
          ? []
          : [{ stage: item.observation.stage, span_name: item.span.name, duration_ms: duration, status: statusName(item.span.status.code) }];
      }),
      tenant_id: identifiers.authenticatedTenant ?? linkage?.tenantId ?? null,
      principal_id: linkage?.principalId ?? null,
      principal_groups: linkage?.principalGroups ?? null,
      service_name: identifiers.serviceName,
      route: linkage?.route ?? null,
      session_id: linkage?.sessionId ?? null,
      user_id: linkage?.userId ?? null,
      experiment_id: linkage?.experimentId ?? null,
      experiment_variant: linkage?.experimentVariant ?? null,
      feedback: feedback.map(({ span, observation }) => ({
        kind: observation.kind!,
        value: observation.value,
        comment: observation.comment,
        recorded_at: toIso(span.startTimeUnixNano),
        span_id: span.spanId,
        chunk_id: observation.chunkId,
      })),
      source_conventions: conventions,
      malformed_attributes: [
        ...normalized.flatMap((item) =>
          item.malformedJson.map((malformed) => ({ span_id: item.span.spanId, span_name: item.span.name, attribute: malformed.attribute, kind: "malformed_json" as const, error: malformed.error })),
        ),
        // Values that parsed but that the span's reader could not take as what they should hold (a retriever's item
        // that is no document, a score that is no number, a message without text). Not those of a retrieval inside a
        // recorded retrieval: its documents are not used (nested-stage-spans.ts), so nothing is missing for them.
        ...normalized.flatMap((item) =>
          innerRetrievals.has(item.span.spanId)
            ? []
            : (item.observation.unreadable ?? []).map((unread) => ({ span_id: item.span.spanId, span_name: item.span.name, attribute: unread.attribute, kind: "unreadable_value" as const, error: unread.error })),
        ),
        ...trace.spans.filter((span) => durationMs(span) === null).map((span) => ({ span_id: span.spanId, span_name: span.name, attribute: "end_time_unix_nano", kind: "invalid_time" as const, error: ENDS_BEFORE_START })),
        ...identifiers.refused,
        ...trace.spans.flatMap((span) => truncatedKeys(span).map((key) => ({ span_id: span.spanId, span_name: span.name, attribute: key, kind: "truncated" as const, error: TRUNCATED_BY_RECEIVER }))),
        ...trace.spans.flatMap(droppedByReceiver),
        ...trace.spans.flatMap(cutBySdk),
        ...unavailableRetrievals.map(({ span }) => ({ span_id: span.spanId, span_name: span.name, attribute: "retrieved_chunks", kind: "unreadable_value" as const, error: unjoinedRetrieval(retrieves.length) })),
        ...(rerankWithoutOutput === null
          ? []
          : [{ span_id: rerankWithoutOutput.spanId, span_name: rerankWithoutOutput.name, attribute: "retrieved_chunks", kind: "unreadable_value" as const, error: rerankOutputNotAvailable(rerankDropped, rerankNamed, preRerankChunks !== null) }]),
        ...usage.notes,
        ...last.notes,
      ],
      partial_trace: !trace.complete,
      span_count: trace.spans.length,
    },
    trace_id: trace.traceId,
    artifact_refs: [`trace://${trace.traceId}`],
    execution_error: failedRoot
      ? { type: saysTimeout(failedRoot) ? "timeout" : "system_error", message: failedRoot.status.message || null }
      : last.failed
        ? { type: last.failed.spans.every(saysTimeout) ? "timeout" : "system_error", message: failedGenerationMessage(last.failed) }
        : !trace.complete
          ? { type: "none", message: `trace released without its root span (${trace.reason})` }
          : { type: "none", message: null },
    started_at: toIso(startedAt),
    completed_at: endedAt !== null ? toIso(endedAt) : null,
  };
}

/** Whether a failed span says it timed out, with the OTel `error.type` attribute (its status message is free text, not parsed). */
const saysTimeout = (span: SpanRecord): boolean => span.attributes["error.type"] === "timeout";

/** How many failed generations ending together an execution error names before it counts the rest. */
const NAMED_FAILURES = 3;

/**
 * The execution error of a request whose last generation failed while its root did not: which span, and its own
 * message; or, when which of several generations ending at the same instant answered is not known and none of them
 * returned, each of them that failed (the first few, then how many more).
 */
function failedGenerationMessage({ spans: generations, tied }: FailedAnswer): string {
  const named = (generation: SpanRecord) => `${JSON.stringify(generation.name.slice(0, 80))} (span ${generation.spanId})`;
  const said = (generation: SpanRecord) => (generation.status.message === "" ? "no error message recorded" : generation.status.message);
  if (tied === 1) {
    const generation = generations[0]!;
    return `the request's last generation, ${named(generation)}, ended in error and no later generation answered, so the answer is missing or cut short: ${said(generation)}`;
  }
  const shown = generations.slice(0, NAMED_FAILURES).map((generation) => `${named(generation)}: ${said(generation)}`);
  const more = generations.length - shown.length;
  return (
    `the request's last ${tied} generations ended at the same instant, none inside another, and none of them returned, so the answer is missing or cut short; ` +
    `${generations.length} ended in error${generations.length < tied ? ` (${tied - generations.length === 1 ? "the other was" : "the others were"} stopped by the caller)` : ""}: ${shown.join("; ")}${more > 0 ? `; and ${more} more` : ""}`
  );
}

function serviceName(span: SpanRecord | null): string | null {
  const value = span?.resource["service.name"];
  return typeof value === "string" ? value : null;
}

type RequestItem = { span: SpanRecord; observation: RequestObservation };

const checkedLinkage = [
  ["runId", Ragscope.runId, "identifier"],
  ["caseId", Ragscope.caseId, "identifier"],
  ["caseVersion", Ragscope.caseVersion, "identifier"],
  ["datasetId", Ragscope.datasetId, "identifier"],
  ["datasetVersion", Ragscope.datasetVersion, "identifier"],
  ["tenantId", Ragscope.tenantId, "identifier"],
  ["route", Ragscope.route, "route"],
  ["experimentId", Ragscope.experimentId, "identifier"],
  ["experimentVariant", Ragscope.experimentVariant, "identifier"],
] as const;

/**
 * The request's identifiers and the service name, each checked against
 * contracts/identifiers.ts: a refused one is left empty (never stored, never
 * altered) and noted on the Case Result, which is still built and evaluated.
 */
function checkIdentifiers(request: RequestItem | null, serviceSpan: SpanRecord | null) {
  type Note = { span_id: string; span_name: string; attribute: string; kind: "invalid_identifier" | "tenant_claim"; error: string };
  const refused: Note[] = [];
  const refuse = (span: SpanRecord, attribute: string, problem: string) =>
    refused.push({ span_id: span.spanId, span_name: span.name, attribute, kind: "invalid_identifier", error: `not a valid identifier: ${problem}; the value was not stored` });
  let linkage = request?.observation;
  if (request && linkage) {
    const cleared: Partial<Record<(typeof checkedLinkage)[number][0], null>> = {};
    for (const [field, attribute, kind] of checkedLinkage) {
      const value = linkage[field];
      const problem = value === null ? null : identifierProblem(value, kind);
      if (problem === null) continue;
      refuse(request.span, attribute, problem);
      cleared[field] = null;
    }
    if (refused.length > 0) linkage = { ...linkage, ...cleared };
  }
  let service = serviceName(serviceSpan);
  const serviceIssue = service === null ? null : identifierProblem(service);
  if (serviceSpan && serviceIssue !== null) {
    refuse(serviceSpan, "service.name", serviceIssue);
    service = null;
  }
  // Set by the receiver from the credential (collector/00-otlp/stamp-tenant.ts); a client cannot send it.
  const stamped = serviceSpan?.resource[Ragscope.authenticatedTenant];
  const authenticatedTenant = typeof stamped === "string" && stamped !== "" ? stamped : null;
  const claimed = linkage?.tenantId ?? null;
  if (authenticatedTenant !== null && claimed !== null && claimed !== authenticatedTenant && request) {
    refused.push({
      span_id: request.span.spanId,
      span_name: request.span.name,
      attribute: Ragscope.tenantId,
      kind: "tenant_claim",
      error: `the span claims tenant "${claimed}", but its credential authenticated tenant "${authenticatedTenant}"; the credential's tenant is used`,
    });
  }
  return { linkage, serviceName: service, refused, authenticatedTenant };
}
