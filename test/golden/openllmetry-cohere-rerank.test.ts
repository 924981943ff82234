/**
 * A Cohere rerank under OpenLLMetry (test/data/openllmetry-cohere-rerank/,
 * recorded with the real instrumentations by test/golden/python/openllmetry_cohere_rerank.py):
 * a Chroma query (`db.query.result` events, with ids) then `cohere.rerank`,
 * whose documents are texts without ids. Replayed through the collector's
 * consumer path (replay-golden.ts), the Case Result's final ranking must be
 * the rerank's, its documents named by the retrieval's texts, and the
 * retrieval's ranking kept as the one before the rerank.
 *
 * Expected values come from the recording's scenario, not from ragscope: Chroma
 * returned refund-1, shipping-1, refund-2 (the `chroma.query` span's events);
 * the fake Cohere endpoint scored refund-2's text 0.91, refund-1's 0.63 and
 * shipping-1's 0.08, and the app asked for the top 2.
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { replayTrace } from "./replay-golden.js";

const recording = fileURLToPath(new URL("../data/openllmetry-cohere-rerank/cohere-rerank.otlp.json", import.meta.url));

test("OpenLLMetry's cohere.rerank is the rerank: its ranking is the final one under the retrieved chunks' ids, Chroma's is kept before it", async () => {
  const [evaluation, ...others] = await replayTrace(await readFile(recording, "utf8"), []);
  assert.equal(others.length, 0, "one trace, one Case Result");
  const observation = evaluation!.caseResult.rag_observation;
  assert.deepEqual(
    observation.retrieved_chunks?.map((chunk) => [chunk.rank, chunk.chunk_id, chunk.score, chunk.text]),
    [
      [1, "refund-2", 0.91, "Refunds for shipping damage need a photo."],
      [2, "refund-1", 0.63, "Refunds are paid within 30 days of the return."],
    ],
  );
  assert.deepEqual(
    observation.pre_rerank_chunks?.map((chunk) => [chunk.rank, chunk.chunk_id]),
    [
      [1, "refund-1"],
      [2, "shipping-1"],
      [3, "refund-2"],
    ],
  );
  assert.deepEqual(
    observation.stage_timings.map((timing) => [timing.stage, timing.span_name]),
    [
      ["request", "rag.request"],
      ["retrieve", "chroma.query"],
      ["rerank", "cohere.rerank"],
    ],
    "the rerank is a stage of its own, not a generation",
  );
  assert.equal(observation.generation.total_tokens, null, "no generation: the rerank's completions are not an answer's");
  assert.equal(evaluation!.caseResult.output, "Refunds are paid within 30 days of the return.");
});
