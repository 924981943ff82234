/**
 * LlamaIndex's LLMRerank under OpenInference (test/data/llama-index-llm-rerank/,
 * recorded with the real instrumentation by test/golden/python/llama_index_llm_rerank.py):
 * it writes no RERANKER span, only a CHAIN `LLMRerank._postprocess_nodes`. Replayed
 * through the collector's consumer path (replay-golden.ts), the Case Result's
 * ranking must be the reranker's, as the scripted LLM chose it, with the
 * retriever's ranking kept as the one before the rerank.
 *
 * Expected values come from the recording's scenario: the vector store ranked
 * refund-1, shipping-1, refund-2 (the retriever span of the recording); the
 * scripted LLM answered "Doc: 2, Relevance: 9 / Doc: 1, Relevance: 4", so
 * LLMRerank (top 2) kept shipping-1 (9) then refund-1 (4).
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { replayTrace } from "./replay-golden.js";

const recording = fileURLToPath(new URL("../data/llama-index-llm-rerank/llm-rerank.otlp.json", import.meta.url));

test("LLMRerank, seen only as its CHAIN span, is the rerank: the final ranking is its choice, the retriever's is kept before it", async () => {
  const [evaluation, ...others] = await replayTrace(await readFile(recording, "utf8"), []);
  assert.equal(others.length, 0, "one trace, one Case Result");
  const observation = evaluation!.caseResult.rag_observation;
  assert.deepEqual(
    observation.retrieved_chunks?.map((chunk) => [chunk.rank, chunk.chunk_id, chunk.score, chunk.text]),
    [
      [1, "shipping-1", 9, "Shipping takes 5 days."],
      [2, "refund-1", 4, "Refunds are paid within 30 days of the return."],
    ],
    "the reranker's choice; the texts completed from the retrieval by chunk id",
  );
  assert.deepEqual(observation.pre_rerank_chunks?.map((chunk) => chunk.chunk_id), ["refund-1", "shipping-1", "refund-2"]);
  assert.deepEqual(
    observation.stage_timings.filter((timing) => timing.stage === "rerank").map((timing) => timing.span_name),
    ["LLMRerank._postprocess_nodes"],
  );
  assert.equal(evaluation!.caseResult.output, "Refunds are paid within 30 days.");
});
