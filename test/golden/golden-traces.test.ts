/**
 * Golden traces (record-goldens.ts) replayed through the collector's
 * decode → assemble → normalize → rebuild → evaluate path: each must rebuild
 * into its stored Case Result, carry what its convention records, and leave
 * what it does not record "not available" (null), never 0 or "".
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
import { caseResultPath, goldenNames, recordGoldens, tracePath, type GoldenName } from "./record-goldens.js";
import { replayTrace } from "./replay-golden.js";
import { fakeModelName, retrievePolicyChunks } from "./scenarios/langchain-rag-chain.js";
import { scoredHits } from "./scenarios/langchain-scored-retriever.js";
import { fakeAnswer, goldenCase, goldenRun, question, retrievalTopK } from "./scenarios/policy-corpus.js";

const replayed = new Map<GoldenName, CaseEvaluation>();
let storeRanking: string[] = [];

/** The ranking each golden's retriever returned: the vector store's, or the scored retriever's own. */
function expectedRanking(name: GoldenName): string[] {
  return name === "langchain-openinference-scored-retriever" ? scoredHits.map((hit) => hit.id) : storeRanking;
}

function metric(evaluation: CaseEvaluation, name: string): number | null | undefined {
  for (const result of evaluation.evaluationResults) if (name in result.metric_values) return result.metric_values[name];
  return undefined;
}

before(async () => {
  storeRanking = (await retrievePolicyChunks(question, retrievalTopK)).map((hit) => hit.chunk.chunkId);
  for (const name of goldenNames) {
    const results = await replayTrace(await readFile(tracePath(name), "utf8"), [goldenCase]);
    assert.equal(results.length, 1, `${name}: one trace, one Case Result`);
    replayed.set(name, results[0]!);
  }
});

describe("golden traces rebuild into their Case Results", () => {
  for (const name of goldenNames) {
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
      assert.deepEqual(observation.retrieved_chunks?.map((chunk) => chunk.chunk_id), ranking, "the retriever's own ranking");
      assert.deepEqual(observation.retrieved_chunks?.map((chunk) => chunk.rank), ranking.map((_, index) => index + 1));
      assert.equal(observation.generation.model, fakeModelName);
      assert.equal(observation.generation.output_tokens, [...fakeAnswer].length);
      assert.equal(observation.generation.total_tokens, (observation.generation.input_tokens ?? Number.NaN) + [...fakeAnswer].length);
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
    const chunks = (name: GoldenName) => replayed.get(name)!.caseResult.rag_observation.retrieved_chunks!;
    // LangChain documents carry text and metadata ids; the VectorStoreRetriever returns no scores.
    for (const name of ["langchain-ragscope-adapter", "langchain-openinference"] as const) {
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

describe("golden traces are current", () => {
  test("recording again gives the stored traces (run record-goldens.ts --write after a deliberate change)", async () => {
    const recorded = await recordGoldens();
    for (const name of goldenNames) {
      assert.equal(recorded.get(name), await readFile(tracePath(name), "utf8"), `${name} is stale`);
    }
  });
});
