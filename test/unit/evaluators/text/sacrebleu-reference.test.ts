/**
 * Acceptance: BLEU equals sacrebleu 2.6.0's sentence BLEU on designed English
 * and Chinese pairs (test/data/sacrebleu/sentence-bleu.json, recorded by
 * record-sentence-bleu.py with the command in its docstring). Both use exp
 * smoothing and effective order; the tokenizer correspondence is in bleu.ts.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, test } from "node:test";
import { bestOverReferences } from "../../../../evaluators/text/best-over-references.js";
import { bleu, type BleuTokenizer } from "../../../../evaluators/text/bleu.js";
import { valueOf } from "./metric-assertions.js";

interface RecordedCase {
  id: string;
  tokenizer: BleuTokenizer;
  hypothesis: string;
  references: string[];
  sacrebleu_score_per_reference: number[];
  sacrebleu_pooled_multi_reference_score?: number;
}

const recorded = JSON.parse(
  readFileSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../data/sacrebleu/sentence-bleu.json"), "utf8"),
) as { sacrebleu_version: string; cases: RecordedCase[] };

/** sacrebleu multiplies by 100 before the logarithms; the last bits may differ. */
const TOLERANCE = 1e-12;

describe(`BLEU against sacrebleu ${recorded.sacrebleu_version} sentence_bleu`, () => {
  test("the recorded pairs cover both tokenizers, Chinese, zero matches and several references", () => {
    assert.ok(recorded.cases.length >= 20, `only ${recorded.cases.length} recorded pairs`);
    assert.ok(recorded.cases.some((item) => item.tokenizer === "13a"));
    assert.ok(recorded.cases.filter((item) => item.sacrebleu_score_per_reference.every((score) => score === 0)).length >= 4);
    assert.ok(recorded.cases.some((item) => /\p{Script=Han}/u.test(item.hypothesis)));
    assert.ok(recorded.cases.some((item) => item.references.length > 1));
  });

  for (const item of recorded.cases) {
    test(`${item.id}: each reference scores as sacrebleu`, () => {
      item.references.forEach((reference, index) => {
        const expected = item.sacrebleu_score_per_reference[index]! / 100;
        const ours = valueOf(bleu(item.hypothesis, reference, { tokenizer: item.tokenizer }));
        assert.ok(Math.abs(ours - expected) <= TOLERANCE, `${JSON.stringify(item.hypothesis)} vs ${JSON.stringify(reference)}: sacrebleu ${expected}, ours ${ours}`);
      });
    });
  }

  test("no n-gram in common is exactly 0, in English and in Chinese", () => {
    assert.equal(valueOf(bleu("abc", "xyz")), 0);
    assert.equal(valueOf(bleu("苹果", "香蕉")), 0);
    assert.equal(valueOf(bleu("Hello.", "Goodbye!", { tokenizer: "13a" })), 0);
  });

  test("several references: the best single-reference score, which sacrebleu's pooled BLEU can exceed (a documented difference)", () => {
    const multi = recorded.cases.filter((item) => item.references.length > 1);
    for (const item of multi) {
      const best = Math.max(...item.sacrebleu_score_per_reference) / 100;
      const ours = valueOf(bestOverReferences(item.references, (reference) => bleu(item.hypothesis, reference, { tokenizer: item.tokenizer })));
      assert.ok(Math.abs(ours - best) <= TOLERANCE, `${item.id}: best single reference ${best}, ours ${ours}`);
    }
    const english = multi.find((item) => item.id === "multi-reference-english")!;
    assert.ok(english.sacrebleu_pooled_multi_reference_score! / 100 > Math.max(...english.sacrebleu_score_per_reference) / 100);
  });
});
