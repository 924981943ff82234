/**
 * Acceptance: token_f1 and exact_match equal the SQuAD v2.0 official scorer's
 * compute_f1 / compute_exact (transformers 4.46.3 squad_metrics) on designed
 * English and Chinese pairs — multiset overlap with repeated tokens, order, no
 * overlap, punctuation-only and empty sides — recorded in
 * test/data/squad/token-f1.json by record-token-f1.py (command and the
 * tokenizer correspondence in its docstring).
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, test } from "node:test";
import { exactMatch } from "../../../../evaluators/text/exact-match.js";
import { tokenize } from "../../../../evaluators/text/normalize-text.js";
import { tokenF1 } from "../../../../evaluators/text/token-f1.js";
import { assertNotApplicable, valueOf } from "./metric-assertions.js";

interface RecordedCase {
  name: string;
  tokenizer: "ascii" | "cjk";
  answer: string;
  reference: string;
  f1: number;
  exact: number;
}

const recorded = JSON.parse(readFileSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../data/squad/token-f1.json"), "utf8")) as {
  transformers_version: string;
  cases: RecordedCase[];
};

describe(`token F1 and exact match against the SQuAD v2.0 scorer (transformers ${recorded.transformers_version})`, () => {
  test("the recording has Chinese pairs, partial scores and empty sides", () => {
    assert.ok(recorded.cases.length >= 14);
    assert.ok(recorded.cases.some((item) => item.tokenizer === "cjk" && item.f1 > 0 && item.f1 < 1));
    assert.ok(recorded.cases.some((item) => item.answer === ""));
  });

  for (const item of recorded.cases) {
    test(`${item.tokenizer}: ${item.name}`, () => {
      const f1 = valueOf(tokenF1(item.answer, item.reference));
      assert.ok(Math.abs(f1 - item.f1) <= 1e-15, `token_f1 ${f1}, SQuAD ${item.f1}`);
      if (tokenize(item.reference).length === 0) {
        // SQuAD scores "" against "" as an exact match; ragscope has nothing to match (test/data/squad/README.md).
        assertNotApplicable(exactMatch(item.answer, item.reference));
      } else {
        assert.equal(valueOf(exactMatch(item.answer, item.reference)), item.exact, "exact_match");
      }
    });
  }
});
