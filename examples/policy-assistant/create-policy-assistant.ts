/**
 * The policy assistant: a small, deterministic RAG service over the bundled
 * customer-service policy corpus, instrumented with the ragscope SDK.
 *
 *   rag.request ─┬─ rag.retrieve   BM25 over character bigrams / words (pipeline/lexical-retriever.ts)
 *                ├─ rag.rerank     optional, off by default (pipeline/support-reranker.ts)
 *                ├─ rag.context    rank-order packing under a token budget (pipeline/context-assembler.ts)
 *                ├─ rag.generate   extractive answer or parametric memory (pipeline/extractive-generator.ts)
 *                └─ rag.cite       [n] markers → chunk ids (pipeline/citation-linker.ts)
 *
 * Everything is offline and deterministic: the same question gives the same
 * ranks, scores, context, answer, citations, token counts and cost. The
 * pipeline has designed flaws (examples/README.md) that the dataset
 * examples/datasets/policy-regression.yaml exercises.
 *
 * Without a registered OpenTelemetry provider (no setupRagscope call) the
 * stage wrappers record nothing and the assistant still answers.
 */
import { isSpanContextValid, trace } from "@opentelemetry/api";
import {
  traceCite,
  traceContext,
  traceGenerate,
  traceRequest,
  traceRerank,
  traceRetrieve,
  type ContextRecord,
  type GenerationRecord,
  type RequestOptions,
} from "../../instrumentation/index.js";
import { loadBundledCorpus, type PolicyCorpus } from "./corpus/policy-corpus.js";
import { toChunkRecords } from "./pipeline/chunk-records.js";
import { linkCitations } from "./pipeline/citation-linker.js";
import { assembleContext, DEFAULT_CONTEXT_TOKEN_BUDGET, type AssembledContext } from "./pipeline/context-assembler.js";
import {
  buildPrompt,
  DEFAULT_SUPPORT_THRESHOLD,
  generateAnswer,
  GENERATOR_MODEL,
  GENERATOR_PROVIDER,
  PROMPT_VERSION,
  type AnswerSource,
  type GeneratedAnswer,
} from "./pipeline/extractive-generator.js";
import { buildLexicalIndex, type RankedChunk } from "./pipeline/lexical-retriever.js";
import { POLICY_MEMORY, type MemoryEntry } from "./pipeline/parametric-memory.js";
import { rerankBySupport, RERANKER_NAME } from "./pipeline/support-reranker.js";

export const RETRIEVER_NAME = "bm25-bigram-v1";
export const DEFAULT_TOP_K = 5;
export const DEFAULT_TENANT_ID = "acme_shop";

export interface PolicyAssistantOptions {
  /** Default: the bundled corpus (corpus/policy-chunks.json). */
  corpus?: PolicyCorpus;
  /** Chunks retrieved per question. Default 5. */
  topK?: number;
  /** Context token budget. Default 34 (tight on purpose, see the README). */
  tokenBudget?: number;
  /** Re-order retrieved chunks with the support reranker. Default false. */
  rerank?: boolean;
  /** Support below which the generator abstains. Default 0.25. */
  supportThreshold?: number;
  /** Parametric memory of the simulated model. Default POLICY_MEMORY; [] turns it off. */
  memory?: readonly MemoryEntry[];
}

/**
 * Per-request linkage and identity: what the SDK's request span takes (all optional; online traffic has no case), the
 * question aside, and the assistant's own per-request settings.
 */
export interface PolicyRequest extends Omit<RequestOptions, "query"> {
  /** Overrides the assistant's topK for this request. */
  topK?: number;
  /** Overrides the assistant's token budget for this request. */
  tokenBudget?: number;
}

export interface RetrievedChunkView {
  rank: number;
  chunkId: string;
  documentId: string;
  documentVersion: string;
  sectionId: string;
  score: number;
  text: string;
  effectiveFrom: string;
  effectiveTo: string | null;
  acl: string[];
  tenantId: string;
}

export interface PolicyAnswer {
  question: string;
  answer: string;
  /** Chunk ids, in answer order. */
  citations: string[];
  abstained: boolean;
  answerSource: AnswerSource;
  /** The parametric-memory entry the answer came from, when it did. */
  memoryEntryId: string | null;
  /** The ranking given to the context assembler (after rerank when on). */
  retrieved: RetrievedChunkView[];
  /** First-stage ranking when a rerank ran, else null. */
  retrievedBeforeRerank: RetrievedChunkView[] | null;
  context: {
    text: string;
    chunkIds: string[];
    droppedChunks: { chunkId: string; reason: string }[];
    tokenCount: number;
    tokenBudget: number;
  };
  generation: {
    model: string;
    inputTokens: number;
    outputTokens: number;
    /** US dollars. */
    cost: number;
    /** Best support score over the context sentences. */
    bestSupport: number;
  };
  /** Trace id of the rag.request span; null when no tracer provider is registered. */
  traceId: string | null;
}

export interface PolicyAssistant {
  answer(question: string, request?: PolicyRequest): Promise<PolicyAnswer>;
}

function requirePositiveInteger(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) throw new Error(`policy assistant: ${name} must be a positive integer, got ${value}`);
  return value;
}

export function createPolicyAssistant(options: PolicyAssistantOptions = {}): PolicyAssistant {
  const corpus = options.corpus ?? loadBundledCorpus();
  const index = buildLexicalIndex(corpus.chunks);
  const defaultTopK = requirePositiveInteger("topK", options.topK ?? DEFAULT_TOP_K);
  const defaultBudget = requirePositiveInteger("tokenBudget", options.tokenBudget ?? DEFAULT_CONTEXT_TOKEN_BUDGET);
  const supportThreshold = options.supportThreshold ?? DEFAULT_SUPPORT_THRESHOLD;
  const generatorSettings = { index, memory: options.memory ?? POLICY_MEMORY, supportThreshold };

  async function answer(question: string, request: PolicyRequest = {}): Promise<PolicyAnswer> {
    const topK = requirePositiveInteger("topK", request.topK ?? defaultTopK);
    const tokenBudget = requirePositiveInteger("tokenBudget", request.tokenBudget ?? defaultBudget);
    const { topK: _topK, tokenBudget: _tokenBudget, ...linkage } = request;
    return traceRequest(
      { ...linkage, query: question, tenantId: linkage.tenantId ?? DEFAULT_TENANT_ID },
      async () => {
        const firstStage = await traceRetrieve(
          { query: question, topK, retriever: RETRIEVER_NAME },
          () => index.search(question, topK),
          toChunkRecords,
        );
        const ranked = options.rerank
          ? await traceRerank(
              { query: question, input: toChunkRecords(firstStage), model: RERANKER_NAME, topK },
              () => rerankBySupport(index, question, firstStage),
              toChunkRecords,
            )
          : firstStage;
        const context = await traceContext({ tokenBudget }, () => assembleContext(ranked, tokenBudget), toContextRecord);
        const prompt = buildPrompt(question, context);
        const generated = await traceGenerate(
          { model: GENERATOR_MODEL, provider: GENERATOR_PROVIDER, prompt: prompt.text, promptVersion: PROMPT_VERSION },
          () => generateAnswer(generatorSettings, question, prompt),
          toGenerationRecord,
        );
        const citations = await traceCite(() => linkCitations(generated.citationMarkers, context));
        return describeAnswer(question, ranked, options.rerank ? firstStage : null, context, generated, citations, currentTraceId());
      },
      (result) => result.answer,
    );
  }

  return { answer };
}

function toContextRecord(context: AssembledContext): ContextRecord {
  return {
    text: context.text,
    chunkIds: context.chunks.map((packed) => packed.chunk.chunk_id),
    droppedChunks: context.dropped.map((dropped) => ({ chunkId: dropped.chunkId, reason: dropped.reason })),
    tokenCount: context.tokenCount,
    tokenBudget: context.tokenBudget,
  };
}

function toGenerationRecord(generated: GeneratedAnswer): GenerationRecord {
  return {
    text: generated.text,
    inputTokens: generated.inputTokens,
    outputTokens: generated.outputTokens,
    cost: generated.cost,
    abstained: generated.abstained,
  };
}

function currentTraceId(): string | null {
  const spanContext = trace.getActiveSpan()?.spanContext();
  return spanContext !== undefined && isSpanContextValid(spanContext) ? spanContext.traceId : null;
}

function toView(ranked: RankedChunk): RetrievedChunkView {
  const { chunk } = ranked;
  return {
    rank: ranked.rank,
    chunkId: chunk.chunk_id,
    documentId: chunk.document_id,
    documentVersion: chunk.document_version,
    sectionId: chunk.section_id,
    score: ranked.score,
    text: chunk.text,
    effectiveFrom: chunk.effective_from,
    effectiveTo: chunk.effective_to,
    acl: [...chunk.acl],
    tenantId: chunk.tenant_id,
  };
}

function describeAnswer(
  question: string,
  ranked: readonly RankedChunk[],
  firstStage: readonly RankedChunk[] | null,
  context: AssembledContext,
  generated: GeneratedAnswer,
  citations: string[],
  traceId: string | null,
): PolicyAnswer {
  return {
    question,
    answer: generated.text,
    citations,
    abstained: generated.abstained,
    answerSource: generated.source,
    memoryEntryId: generated.memoryEntryId,
    retrieved: ranked.map(toView),
    retrievedBeforeRerank: firstStage === null ? null : firstStage.map(toView),
    context: {
      text: context.text,
      chunkIds: context.chunks.map((packed) => packed.chunk.chunk_id),
      droppedChunks: context.dropped.map((dropped) => ({ ...dropped })),
      tokenCount: context.tokenCount,
      tokenBudget: context.tokenBudget,
    },
    generation: {
      model: GENERATOR_MODEL,
      inputTokens: generated.inputTokens,
      outputTokens: generated.outputTokens,
      cost: generated.cost,
      bestSupport: generated.bestSupport,
    },
    traceId,
  };
}
