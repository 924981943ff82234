/**
 * BERTScore-style greedy token matching against NumPy
 * (test/data/embeddings/greedy-token-matching-reference.py, whose output is
 * the JSON read here), and the cases where it is not defined.
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { greedyTokenMatching } from "../../../evaluators/embeddings/greedy-token-matching.js";

const referencePath = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../data/embeddings/greedy-token-matching-reference.json");
const reference = JSON.parse(await readFile(referencePath, "utf8")) as {
  candidate: number[][];
  references: Record<"close" | "far", number[][]>;
  expected: Record<"close" | "far", { precision: number; recall: number; f1: number }>;
};

describe("greedy token matching (BERTScore-style, no idf, no rescaling)", () => {
  for (const name of ["close", "far"] as const) {
    test(`precision, recall and F1 as NumPy computes them: ${name} reference`, () => {
      const matched = greedyTokenMatching(reference.candidate, reference.references[name]);
      assert.ok(matched);
      for (const key of ["precision", "recall", "f1"] as const) {
        assert.ok(Math.abs(matched[key] - reference.expected[name][key]) < 1e-12, `${key}: ${matched[key]} vs NumPy ${reference.expected[name][key]}`);
      }
    });
  }

  test("a text matched with itself scores 1; a scaled copy of a token matches it fully", () => {
    const same = greedyTokenMatching(reference.candidate, reference.candidate);
    assert.ok(same && Math.abs(same.precision - 1) < 1e-12 && Math.abs(same.recall - 1) < 1e-12 && Math.abs(same.f1 - 1) < 1e-12);
    const scaled = greedyTokenMatching([[1, 2, 3]], [[2, 4, 6]]);
    assert.ok(scaled && Math.abs(scaled.f1 - 1) < 1e-12);
  });

  test("precision and recall are not symmetric: an answer that says less has high precision, low recall", () => {
    const answer = [[1, 0, 0]];
    const referenceTokens = [[1, 0, 0], [0, 1, 0], [0, 0, 1]];
    assert.deepEqual(greedyTokenMatching(answer, referenceTokens), { precision: 1, recall: 1 / 3, f1: 0.5 });
  });

  test("not defined: no tokens, different lengths, a zero vector, precision + recall = 0 — null, never NaN", () => {
    assert.equal(greedyTokenMatching([], [[1, 0]]), null);
    assert.equal(greedyTokenMatching([[1, 0]], []), null);
    assert.equal(greedyTokenMatching([[1, 0]], [[1, 0, 0]]), null);
    assert.equal(greedyTokenMatching([[0, 0]], [[1, 0]]), null);
    assert.equal(greedyTokenMatching([[0, 1]], [[1, 0]]), null, "orthogonal tokens: precision 0 and recall 0, F1 undefined");
    assert.deepEqual(greedyTokenMatching([[1, 0]], [[-1, 0]]), { precision: -1, recall: -1, f1: -1 }, "opposite tokens: raw cosines, no rescaling");
  });
});
