/**
 * Acceptance: ROUGE-L (the `rouge_l` metric) equals Google's rouge-score 0.1.2
 * `rougeL` precision, recall and F on designed English and Chinese pairs —
 * repeated tokens, reversed order, two longest common subsequences, no overlap,
 * an empty or punctuation-only answer — recorded in
 * test/data/rouge-score/rouge-l.json by record-rouge-l.py (command and the
 * tokenizer correspondence in its docstring).
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, test } from "node:test";
import { rougeL, type RougeMeasure } from "../../../../evaluators/text/rouge-l.js";
import { assertNotApplicable, valueOf } from "./metric-assertions.js";

interface RecordedCase {
  name: string;
  tokenizer: "default" | "cjk";
  answer: string;
  reference: string;
  precision: number;
  recall: number;
  fmeasure: number;
}

const recorded = JSON.parse(readFileSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../data/rouge-score/rouge-l.json"), "utf8")) as {
  rouge_score_version: string;
  cases: RecordedCase[];
};

const MEASURES: readonly RougeMeasure[] = ["precision", "recall", "fmeasure"];

describe(`ROUGE-L against rouge-score ${recorded.rouge_score_version} rougeL`, () => {
  test("the recording covers both tokenizer set-ups, Chinese, zero and perfect scores", () => {
    assert.ok(recorded.cases.length >= 15);
    assert.ok(recorded.cases.some((item) => item.tokenizer === "cjk" && /\p{Script=Han}/u.test(item.answer)));
    assert.ok(recorded.cases.some((item) => item.fmeasure === 0 && item.answer !== ""));
    assert.ok(recorded.cases.some((item) => item.fmeasure === 1));
  });

  for (const item of recorded.cases) {
    test(`${item.tokenizer}: ${item.name}`, () => {
      for (const measure of MEASURES) {
        const actual = valueOf(rougeL(item.answer, item.reference, { measure }));
        assert.ok(Math.abs(actual - item[measure]) <= 1e-15, `${measure}: ${actual}, rouge-score ${item[measure]}`);
      }
    });
  }

  test("an empty reference: rouge-score says 0, ragscope says not applicable (test/data/rouge-score/README.md)", () => {
    assertNotApplicable(rougeL("points expire", ""));
    assertNotApplicable(rougeL("积分", "。"));
  });
});
