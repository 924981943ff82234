/**
 * Acceptance: Levenshtein distance over code points and the similarity
 * 1 − distance / longer length equal RapidFuzz 3.14's Levenshtein.distance and
 * normalized_similarity (ragas' NonLLMStringSimilarity) on designed pairs —
 * Chinese, an emoji and CJK Extension B characters outside the BMP, empty sides,
 * transpositions — recorded in test/data/rapidfuzz/levenshtein.json by
 * record-levenshtein.py (command in its docstring).
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, test } from "node:test";
import { levenshteinDistance, levenshteinSimilarity } from "../../../../evaluators/text/levenshtein-similarity.js";
import { normalizeText } from "../../../../evaluators/text/normalize-text.js";
import { valueOf } from "./metric-assertions.js";

const recorded = JSON.parse(readFileSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../data/rapidfuzz/levenshtein.json"), "utf8")) as {
  rapidfuzz_version: string;
  distance: { first: string; second: string; distance: number }[];
  similarity: { answer: string; reference: string; similarity: number }[];
};

describe(`Levenshtein against RapidFuzz ${recorded.rapidfuzz_version}`, () => {
  test("distance over code points", () => {
    assert.ok(recorded.distance.length >= 8);
    for (const { first, second, distance } of recorded.distance) {
      assert.equal(levenshteinDistance(Array.from(first), Array.from(second)), distance, `${first} → ${second}`);
    }
  });

  test("similarity, raw mode on every pair, default (normalised) mode where normalisation changes nothing", () => {
    let normalisedCompared = 0;
    for (const { answer, reference, similarity } of recorded.similarity) {
      const raw = valueOf(levenshteinSimilarity(answer, reference, { mode: "raw" }));
      assert.ok(Math.abs(raw - similarity) <= 1e-15, `raw ${answer} / ${reference}: ${raw}, RapidFuzz ${similarity}`);
      if (normalizeText(answer) === answer && normalizeText(reference) === reference) {
        normalisedCompared += 1;
        assert.ok(Math.abs(valueOf(levenshteinSimilarity(answer, reference)) - similarity) <= 1e-15, `normalised ${answer} / ${reference}`);
      }
    }
    assert.ok(normalisedCompared >= 3);
  });
});
