import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { judgeCacheKey } from "../../../evaluators/judge/judge-cache.js";
import type { JudgeVerdict } from "../../../evaluators/judge/judge.js";
import type { JudgeInputs } from "../../../evaluators/judge/judge-inputs.js";
import { LruJudgeCache } from "../../../evaluators/judge/lru-judge-cache.js";

const inputs: JudgeInputs = { question: "q", answer: "a", documents: [{ id: "c1", text: "t" }], citedDocuments: [], missingDocumentTexts: [], referenceAnswer: null, referenceAnswers: [], keyPoints: [] };
const parts = { model: "gpt-x", promptVersion: "judge-rubrics@1/faithfulness@1", metric: "faithfulness" as const, threshold: ">= 0.92", inputs };

function verdict(value: number): JudgeVerdict {
  return { kind: "pass", metric: "faithfulness", value, reason: "r", details: {}, usage: { inputTokens: 1, outputTokens: 1, cost: 1, calls: 1, cached: false }, judgeId: "j", promptVersion: "faithfulness@1" };
}

describe("judge cache", () => {
  test("the key is a sha256 of model, prompt version, metric, pass rule and inputs — each one matters", () => {
    const key = judgeCacheKey(parts);
    assert.match(key, /^[0-9a-f]{64}$/);
    assert.equal(judgeCacheKey({ ...parts, inputs: { ...inputs, keyPoints: [] } }), key);
    assert.notEqual(judgeCacheKey({ ...parts, model: "gpt-y" }), key);
    assert.notEqual(judgeCacheKey({ ...parts, promptVersion: "judge-rubrics@1/faithfulness@2" }), key);
    assert.notEqual(judgeCacheKey({ ...parts, metric: "answer_relevance" }), key);
    assert.notEqual(judgeCacheKey({ ...parts, threshold: ">= 0.5" }), key);
    assert.notEqual(judgeCacheKey({ ...parts, inputs: { ...inputs, answer: "b" } }), key);
  });

  test("the LRU cache evicts the least recently used entry", async () => {
    const cache = new LruJudgeCache(2);
    await cache.set("a", verdict(0.1));
    await cache.set("b", verdict(0.2));
    assert.equal((await cache.get("a"))?.value, 0.1);
    await cache.set("c", verdict(0.3));
    assert.equal(await cache.get("b"), undefined, "b was least recently used");
    assert.equal((await cache.get("a"))?.value, 0.1);
    assert.equal((await cache.get("c"))?.value, 0.3);
    assert.equal(cache.size, 2);
    assert.equal(cache.evicted, 1);
  });
});
