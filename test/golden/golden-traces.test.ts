/**
 * Golden traces (record-goldens.ts) replayed through the collector's
 * decode → assemble → normalize → rebuild → evaluate path: each must rebuild
 * into its stored Case Result, carry what its convention records, and leave
 * what it does not record "not available" (null), never 0 or "".
 *
 * The Python goldens (python/record-python-goldens.ts: a LlamaIndex app traced
 * by openinference-instrumentation-llama-index, a LangChain chain traced by
 * openinference-instrumentation-langchain and by Traceloop's
 * opentelemetry-instrumentation-langchain, a plain app recorded with the
 * GenAI conventions' own opentelemetry-util-genai and
 * opentelemetry-instrumentation-openai-v2, and the same app with its chat call
 * through the Azure AI Inference client library) are replayed the same way; they
 * are recorded with Python by hand, so only the JS goldens are recorded again here.
 *
 * The facts checked beside the stored files come from the scenario itself —
 * the question, the fake model's answer and usage, the vector store's own
 * ranking — not from the mappers.
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { before, describe, test } from "node:test";
import type { CaseResult } from "../../contracts/case-result.js";
import type { CaseEvaluation } from "../../evaluators/evaluate-case-result.js";
import { pythonGoldenNames, type PythonGoldenName } from "./python/record-python-goldens.js";
import { caseResultPath, goldenNames, recordGoldens, tracePath, type GoldenName } from "./record-goldens.js";
import { replayTrace } from "./replay-golden.js";
import { fakeModelName, retrievePolicyChunks } from "./scenarios/langchain-rag-chain.js";
import { scoredHits } from "./scenarios/langchain-scored-retriever.js";
import { answerUsage, rerankedRanking, rerankUsage } from "./scenarios/llama-index-rerank.js";
import { fakeAnswer, goldenCase, goldenRun, policyChunks, question, retrievalTopK } from "./scenarios/policy-corpus.js";

/**
 * The JS goldens are recorded again by the test ("golden traces are current"); the Python goldens
 * (python/record-python-goldens.ts) only replayed: the suite needs no Python.
 */
const replayedNames: readonly (GoldenName | PythonGoldenName)[] = [...goldenNames, ...pythonGoldenNames];
const replayed = new Map<GoldenName | PythonGoldenName, CaseEvaluation>();
let storeRanking: string[] = [];
let storeScores: number[] = [];

/** The final ranking of each golden: the vector store's, the scored retriever's own, or the LlamaIndex reranker's. */
function expectedRanking(name: GoldenName | PythonGoldenName): string[] {
  if (name === "langchain-openinference-scored-retriever") return scoredHits.map((hit) => hit.id);
  if (name === "llama-index-openinference") return rerankedRanking(storeRanking).map((choice) => choice.chunkId);
  return storeRanking;
}

/**
 * The retrieved chunks' ids each golden records, in its final ranking. Traceloop's Python retriever span writes each
 * document as `{page_content, metadata}`, leaving out `Document.id` (the chunk id in this app), and the metadata holds
 * no chunk id: not available, and never borrowed from the later step that packs the same documents with their ids.
 */
function expectedRetrievedIds(name: GoldenName | PythonGoldenName): (string | null)[] {
  const ranking = expectedRanking(name);
  return name === "langchain-python-traceloop" ? ranking.map(() => null) : ranking;
}

/** The completion tokens the scenario's model reported: the answer's, plus the reranking call's in the LlamaIndex app. */
function expectedOutputTokens(name: GoldenName | PythonGoldenName): number {
  return name === "llama-index-openinference" ? answerUsage.completionTokens + rerankUsage.completionTokens : [...fakeAnswer].length;
}

function metric(evaluation: CaseEvaluation, name: string): number | null | undefined {
  for (const result of evaluation.evaluationResults) if (name in result.metric_values) return result.metric_values[name];
  return undefined;
}

before(async () => {
  const hits = await retrievePolicyChunks(question, retrievalTopK);
  storeRanking = hits.map((hit) => hit.chunk.chunkId);
  storeScores = hits.map((hit) => hit.score);
  for (const name of replayedNames) {
    const results = await replayTrace(await readFile(tracePath(name), "utf8"), [goldenCase]);
    assert.equal(results.length, 1, `${name}: one trace, one Case Result`);
    replayed.set(name, results[0]!);
  }
});

describe("golden traces rebuild into their Case Results", () => {
  for (const name of replayedNames) {
    test(`${name}: the stored Case Result`, async () => {
      const expected = JSON.parse(await readFile(caseResultPath(name), "utf8")) as CaseResult;
      assert.deepEqual(replayed.get(name)!.caseResult, expected);
    });

    test(`${name}: the request as the scenario made it`, () => {
      const evaluation = replayed.get(name)!;
      const result = evaluation.caseResult;
      const observation = result.rag_observation;
      assert.equal(result.execution_status, "completed");
      assert.equal(observation.partial_trace, false);
      assert.deepEqual([result.run_id, result.case_id, result.case_version], [goldenRun.runId, goldenRun.caseId, goldenRun.caseVersion], "linked to the golden case");
      assert.equal(observation.query, question);
      assert.equal(result.output, fakeAnswer);
      const ranking = expectedRanking(name);
      assert.deepEqual(observation.retrieved_chunks?.map((chunk) => chunk.chunk_id), expectedRetrievedIds(name), "the retriever's own ranking");
      assert.deepEqual(observation.retrieved_chunks?.map((chunk) => chunk.rank), ranking.map((_, index) => index + 1));
      assert.equal(observation.generation.model, fakeModelName);
      assert.equal(observation.generation.output_tokens, expectedOutputTokens(name));
      assert.equal(observation.generation.total_tokens, (observation.generation.input_tokens ?? Number.NaN) + expectedOutputTokens(name));
      // No convention here records cost, time to first token (nothing streams) or citations.
      assert.equal(observation.generation.cost, null);
      assert.equal(observation.generation.time_to_first_token_ms, null);
      assert.equal(observation.citations, null);
      assert.equal(metric(evaluation, "recall_at_k"), 1, "the gold evidence is in the top 5");
      assert.equal(metric(evaluation, "mrr"), 1 / (ranking.indexOf("leave_v3_s2") + 1));
      assert.equal(metric(evaluation, "cost"), null, "cost: not available, not 0");
      assert.equal(metric(evaluation, "citation_accuracy"), null, "no citations: not available, not 0");
    });
  }

  test("what each convention carries and what it lacks", () => {
    const chunks = (name: GoldenName | PythonGoldenName) => replayed.get(name)!.caseResult.rag_observation.retrieved_chunks!;
    // LangChain documents carry text and metadata ids; the VectorStoreRetriever returns no scores. Python's LangChain
    // writes its documents as `{ id, page_content, metadata }`: the same ids and context, read from the other spelling.
    for (const name of ["langchain-ragscope-adapter", "langchain-openinference", "langchain-python-openinference"] as const) {
      assert.ok(chunks(name).every((chunk) => chunk.text !== null && chunk.document_id === "leave_policy" && chunk.score === null), name);
      assert.deepEqual(replayed.get(name)!.caseResult.rag_observation.context_chunks?.map((chunk) => chunk.chunk_id), storeRanking, `${name}: the formatDocuments step is the context`);
    }
    // GenAI retrieval documents are { id, score }: no text, no document ids.
    assert.ok(chunks("otel-genai").every((chunk) => chunk.score !== null && chunk.text === null && chunk.document_id === null));
    // Traceloop's LangChain instrumentation writes the retrieval step's [Document, score] pairs as its entity output:
    // ids and metadata from each document, the score from its pair.
    assert.ok(chunks("openllmetry").every((chunk) => chunk.score !== null && chunk.text !== null && chunk.section_id !== null));
    assert.deepEqual(
      replayed.get("openllmetry")!.caseResult.rag_observation.context_chunks?.map((chunk) => chunk.chunk_id),
      storeRanking,
      "openllmetry: the formatDocuments step's input is the context, its ids joined to the retrieved chunks",
    );
    const genAi = replayed.get("otel-genai")!.caseResult.rag_observation;
    assert.equal(genAi.context, null, "otel-genai records no context assembly");
    assert.equal(metric(replayed.get("otel-genai")!, "context_recall"), null, "otel-genai: context recall not available, not 0");
    assert.deepEqual(
      goldenNames.map((name) => replayed.get(name)!.caseResult.rag_observation.source_conventions),
      // Traceloop writes its chat spans to the GenAI conventions (gen_ai.input.messages, gen_ai.usage.*).
      [["ragscope"], ["otel_genai"], ["openllmetry", "otel_genai"], ["openinference"], ["openinference"]],
    );
  });

  test("LangChain documents with ids and scores in their metadata: every value read from its own document, none lent by a neighbour", () => {
    const observation = replayed.get("langchain-openinference-scored-retriever")!.caseResult.rag_observation;
    const chunks = observation.retrieved_chunks!;
    // Arize's instrumentation writes content and metadata as attributes; the LangChain ids are only in the retriever's output documents.
    assert.deepEqual(
      chunks.map((chunk) => chunk.chunk_id),
      scoredHits.map((hit) => hit.id),
      "chunk ids from Document.id",
    );
    assert.deepEqual(
      chunks.map((chunk) => chunk.score),
      scoredHits.map((hit) => hit.score),
      "scores from each document's metadata",
    );
    assert.deepEqual(
      chunks.map((chunk) => chunk.document_id),
      scoredHits.map((hit) => hit.documentId ?? null),
      "a document id only where the document carried one",
    );
    assert.deepEqual(
      chunks.map((chunk) => chunk.text),
      scoredHits.map((hit) => hit.text),
    );
    assert.deepEqual(
      observation.context_chunks?.map((chunk) => chunk.chunk_id),
      chunks.map((chunk) => chunk.chunk_id),
      "retrieved and packed chunks share their ids",
    );
  });
});

describe("a Python app's spans recorded with the GenAI conventions' own packages (opentelemetry-util-genai, opentelemetry-instrumentation-openai-v2)", () => {
  const evaluation = () => replayed.get("otel-genai-python")!;
  const observation = () => evaluation().caseResult.rag_observation;

  test("the request is the invoke_workflow span, the retrieval its retrieval span, the generation openai-v2's chat span", () => {
    assert.deepEqual(
      observation().stage_timings.map((timing) => [timing.stage, timing.span_name]),
      [
        ["request", "invoke_workflow policy_rag"],
        ["retrieve", "retrieval policy_corpus"],
        ["generate", `chat ${fakeModelName}`],
      ],
    );
    assert.deepEqual(observation().source_conventions, ["otel_genai"]);
    assert.deepEqual(observation().malformed_attributes, [], "nothing the packages write is unreadable");
  });

  test("the retrieved documents are the conventions' { id, score }: the store's ranking and its scores (to the six places the app rounds them), no text, no document ids", () => {
    const chunks = observation().retrieved_chunks!;
    assert.deepEqual(
      chunks.map((chunk) => chunk.chunk_id),
      storeRanking,
    );
    assert.deepEqual(
      chunks.map((chunk) => chunk.score),
      storeScores.map((score) => Math.round(score * 1e6) / 1e6),
    );
    assert.ok(chunks.every((chunk) => chunk.text === null && chunk.document_id === null));
    assert.equal(observation().context, null, "the conventions record no context assembly");
    assert.equal(metric(evaluation(), "context_recall"), null, "context recall not available, not 0");
  });

  test("the tokens are the chat call's usage, the total their sum (the conventions write none); the request's own messages give the question and answer", () => {
    assert.deepEqual(
      [observation().generation.input_tokens, observation().generation.output_tokens, observation().generation.total_tokens],
      [answerUsage.promptTokens, answerUsage.completionTokens, answerUsage.promptTokens + answerUsage.completionTokens],
    );
    assert.equal(observation().query, question);
    assert.equal(evaluation().caseResult.output, fakeAnswer);
  });
});

describe("a Python app whose chat call is traced by the Azure AI Inference client library (azure-ai-inference, its messages as span events)", () => {
  const evaluation = () => replayed.get("azure-ai-inference-python")!;
  const observation = () => evaluation().caseResult.rag_observation;

  test("the answer is the chat span's gen_ai.choice event: the request records none, and the span has no message attributes", () => {
    const chat = observation().stage_timings.find((timing) => timing.stage === "generate");
    assert.equal(chat?.span_name, `chat ${fakeModelName}`);
    assert.equal(evaluation().caseResult.output, fakeAnswer);
    assert.deepEqual(observation().malformed_attributes, [], "nothing the library writes is unreadable");
    assert.deepEqual(observation().source_conventions, ["otel_genai"]);
  });

  test("the library's own HTTP span is no stage, and its tokens are the chat span's, once", () => {
    assert.equal(observation().span_count, 4, "workflow, retrieval, chat and the library's POST span");
    assert.deepEqual(observation().stage_timings.map((timing) => timing.stage), ["request", "retrieve", "generate"]);
    assert.deepEqual(
      [observation().generation.input_tokens, observation().generation.output_tokens, observation().generation.total_tokens],
      [answerUsage.promptTokens, answerUsage.completionTokens, answerUsage.promptTokens + answerUsage.completionTokens],
    );
  });
});

describe("a Python app's spans: LlamaIndex traced by openinference-instrumentation-llama-index", () => {
  const observation = () => replayed.get("llama-index-openinference")!.caseResult.rag_observation;

  test("the rerank is seen: the reranker's output is the ranking, the retriever's kept as pre-rerank, each with its own scores", () => {
    const reranked = rerankedRanking(storeRanking);
    assert.deepEqual(
      observation().retrieved_chunks?.map((chunk) => [chunk.chunk_id, chunk.score]),
      reranked.map((choice) => [choice.chunkId, choice.relevance]),
      "the reranking LLM's relevance scores",
    );
    assert.deepEqual(observation().pre_rerank_chunks?.map((chunk) => chunk.chunk_id), storeRanking, "the vector store's ranking (the same embedding as the JS goldens')");
    assert.deepEqual(
      observation().pre_rerank_chunks?.map((chunk) => Math.round(chunk.score! * 1e6) / 1e6),
      storeScores,
      "the store's cosine similarities, to the JS store's 6 digits",
    );
    for (const chunk of [...observation().retrieved_chunks!, ...observation().pre_rerank_chunks!]) {
      const source = policyChunks.find((item) => item.chunkId === chunk.chunk_id)!;
      assert.deepEqual(
        [chunk.text, chunk.document_id, chunk.document_version, chunk.section_id, chunk.effective_from, chunk.effective_to],
        [source.text, source.documentId, source.documentVersion, source.sectionId, source.effectiveFrom ?? null, source.effectiveTo ?? null],
        `${chunk.chunk_id}: text and the node's metadata`,
      );
    }
    assert.equal(metric(replayed.get("llama-index-openinference")!, "rerank_uplift") !== null, true, "a rerank with a pre-rerank ranking is measured");
  });

  test("tokens are added up over both LLM calls (rerank and answer), each counted once", () => {
    assert.equal(observation().generation.input_tokens, answerUsage.promptTokens + rerankUsage.promptTokens);
    assert.equal(observation().generation.output_tokens, answerUsage.completionTokens + rerankUsage.completionTokens);
  });

  test("the context is the synthesizer's text chunks as LlamaIndex packs them; which chunks were packed is not recorded", () => {
    const reranked = rerankedRanking(storeRanking).map((choice) => policyChunks.find((item) => item.chunkId === choice.chunkId)!);
    const context = observation().context!;
    // LlamaIndex puts each node's metadata (MetadataMode.LLM) above its text; the texts come in the reranked order.
    const positions = reranked.map((chunk) => context.indexOf(chunk.text));
    assert.ok(positions.every((position, index) => position >= 0 && (index === 0 || position > positions[index - 1]!)), "the reranked chunks' texts, in order");
    assert.ok(!context.includes(policyChunks.find((item) => item.chunkId === storeRanking[2])!.text), "the chunk the rerank cut is not in the context");
    assert.equal(observation().context_chunks, null, "no ids in the text chunks: not available");
    assert.equal(metric(replayed.get("llama-index-openinference")!, "context_recall"), 1, "the gold evidence reached the prompt");
    assert.equal(metric(replayed.get("llama-index-openinference")!, "context_precision"), null, "precision needs the packed chunks: not available");
  });

  test("one stage time per stage span, not one per nested method span", () => {
    assert.deepEqual(
      observation().stage_timings.map((timing) => [timing.stage, timing.span_name]),
      [
        ["request", "RetrieverQueryEngine.query"],
        ["retrieve", "VectorIndexRetriever.retrieve"],
        ["rerank", "StructuredLLMRerank._postprocess_nodes"],
        // The reranker's LLM call (structured_predict → predict_and_call → chat → chat), once.
        ["generate", "OpenAILike.structured_predict"],
        ["context", "CompactAndRefine.get_response"],
        // The answer's LLM call (predict → chat → chat), once.
        ["generate", "OpenAILike.predict"],
      ],
    );
    assert.deepEqual(observation().source_conventions, ["openinference"]);
  });
});

describe("a Python app's spans: LangChain traced by Traceloop's opentelemetry-instrumentation-langchain", () => {
  const observation = () => replayed.get("langchain-python-traceloop")!.caseResult.rag_observation;
  const source = (chunkId: string) => policyChunks.find((item) => item.chunkId === chunkId)!;

  test("the retriever span is the retrieval: the store's ranking, each document's text and metadata; no chunk id, no score", () => {
    // The store's ranking is known here by text: the span's documents carry no id (the instrumentation leaves out Document.id).
    assert.deepEqual(
      observation().retrieved_chunks?.map((chunk) => [chunk.rank, chunk.text, chunk.document_id, chunk.document_version, chunk.section_id, chunk.effective_from, chunk.effective_to]),
      storeRanking.map((chunkId, index) => {
        const chunk = source(chunkId);
        return [index + 1, chunk.text, chunk.documentId, chunk.documentVersion, chunk.sectionId, chunk.effectiveFrom ?? null, chunk.effectiveTo ?? null];
      }),
    );
    assert.ok(
      observation().retrieved_chunks!.every((chunk) => chunk.chunk_id === null && chunk.score === null),
      "no id in the span's documents; a VectorStoreRetriever returns no scores",
    );
  });

  test("the format_documents step is the context: the packed documents' ids from LangChain's serialised Documents, the text the step returned", () => {
    assert.deepEqual(observation().context_chunks?.map((chunk) => chunk.chunk_id), storeRanking);
    assert.equal(observation().context, storeRanking.map((chunkId) => source(chunkId).text).join("\n\n"));
    assert.equal(metric(replayed.get("langchain-python-traceloop")!, "context_recall"), 1, "the gold evidence reached the prompt");
  });

  test("the root chain is the request, the chat span the generation: each stage once", () => {
    assert.deepEqual(
      observation().stage_timings.map((timing) => [timing.stage, timing.span_name]),
      [
        ["request", "policy_rag_chain.workflow"],
        ["retrieve", "vector_db_retrieve VectorStoreRetriever"],
        ["context", "execute_task format_documents"],
        ["generate", "ChatOpenAI.chat"],
      ],
    );
    assert.equal(observation().generation.input_tokens, answerUsage.promptTokens);
    // The chat span is written to the GenAI conventions; every chain step, the root's `invoke_agent` too, is Traceloop's.
    assert.deepEqual(observation().source_conventions, ["openllmetry", "otel_genai"]);
  });
});

describe("golden traces are current", () => {
  test("recording again gives the stored traces (run record-goldens.ts --write after a deliberate change)", async () => {
    const recorded = await recordGoldens();
    for (const name of goldenNames) {
      assert.equal(recorded.get(name), await readFile(tracePath(name), "utf8"), `${name} is stale`);
    }
  });
});
