import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { bleu } from "../../../../evaluators/text/bleu.js";
import { longestCommonSubsequence, rougeL } from "../../../../evaluators/text/rouge-l.js";
import { tokenF1 } from "../../../../evaluators/text/token-f1.js";
import { tokenize13a } from "../../../../evaluators/text/tokenize-13a.js";
import { assertClose, assertNotApplicable, valueOf } from "./metric-assertions.js";

// The seed's gold evidence and a paraphrase of it (shared/seeds/000).
const reference = "积分按实际保留金额重新计算"; // 13 characters
const answer = "积分会按保留金额重新计算"; // 12 characters

describe("tokenF1", () => {
  test("Chinese, per character: overlap 积分按保留金额重新计算 = 11; P = 11/12, R = 11/13, F1 = 22/25", () => {
    assertClose(tokenF1(answer, reference), 22 / 25);
  });

  test("English: 'the eiffel tower is located in india' vs '... paris': overlap 6 of 7 each side, F1 = 6/7", () => {
    assertClose(tokenF1("The Eiffel Tower is located in India.", "The Eiffel Tower is located in Paris."), 6 / 7);
  });

  test("multiset overlap: a repeated token counts as often as both sides have it", () => {
    // answer [the, the, the] vs reference [the, cat]: overlap 1, P = 1/3, R = 1/2, F1 = 2·(1/6)/(5/6) = 0.4.
    assertClose(tokenF1("the the the", "the cat"), 0.4);
  });

  test("full-width input scores like its ASCII form", () => {
    assertClose(tokenF1("ＲＡＧ　评测", "rag评测"), 1);
  });

  test("empty token lists follow SQuAD v2: both empty 1, one empty 0, never NaN", () => {
    assertClose(tokenF1("", ""), 1);
    assertClose(tokenF1("。", "！"), 1);
    assertClose(tokenF1("", reference), 0);
    assertClose(tokenF1(answer, ""), 0);
    assertClose(tokenF1("abc", "xyz"), 0);
  });

  test("a near-identical Chinese answer does not score 0", () => {
    assert.ok(valueOf(tokenF1("积分会按实际保留金额重新计算。", reference)) > 0.9);
  });
});

describe("rougeL", () => {
  test("longest common subsequence", () => {
    assert.equal(longestCommonSubsequence(["a", "b", "c", "d"], ["a", "c", "d", "b"]), 3);
    assert.equal(longestCommonSubsequence([], ["a"]), 0);
  });

  test("Chinese: LCS 积分按保留金额重新计算 = 11; P = 11/12, R = 11/13, F = 22/25", () => {
    assertClose(rougeL(answer, reference), 22 / 25);
    assertClose(rougeL(answer, reference, { measure: "precision" }), 11 / 12);
    assertClose(rougeL(answer, reference, { measure: "recall" }), 11 / 13);
  });

  test("order matters, unlike token F1: 'b a' vs 'a b' has LCS 1, F = 0.5", () => {
    assertClose(rougeL("b a", "a b"), 0.5);
    assertClose(tokenF1("b a", "a b"), 1);
  });

  test("empty reference: not applicable; empty answer or no common token: 0", () => {
    assertNotApplicable(rougeL("abc", ""));
    assertNotApplicable(rougeL("", "？"));
    assertClose(rougeL("", reference), 0);
    assertClose(rougeL("xyz", "abc"), 0);
  });
});

describe("tokenize13a", () => {
  test("splits punctuation and symbols, keeps decimals, thousands and case", () => {
    assert.deepEqual(tokenize13a("The Eiffel Tower is located in Paris."), ["The", "Eiffel", "Tower", "is", "located", "in", "Paris", "."]);
    assert.deepEqual(tokenize13a("It costs $3.50, about 1,000 (approx.)"), ["It", "costs", "$", "3.50", ",", "about", "1,000", "(", "approx", ".", ")"]);
    assert.deepEqual(tokenize13a("pages 10-12 &amp; more"), ["pages", "10", "-", "12", "&", "more"]);
  });
});

describe("bleu", () => {
  test("Chinese, per character (hand-computed)", () => {
    // answer 12 tokens, reference 13.
    // 1-grams: 11/12 (会 is not in the reference).
    // 2-grams: 积分 保留 留金 金额 额重 重新 新计 计算 = 8 of 11.
    // 3-grams: 保留金 留金额 金额重 额重新 重新计 新计算 = 6 of 10.
    // 4-grams: 保留金额 留金额重 金额重新 额重新计 重新计算 = 5 of 9.
    // Product 11·8·6·5 / (12·11·10·9) = 2/9; BP = exp(1 − 13/12).
    assertClose(bleu(answer, reference), Math.exp(1 - 13 / 12) * (2 / 9) ** 0.25);
  });

  test("ragscope tokens on the English pair: precisions 6/7, 5/6, 4/5, 3/4, product 3/7", () => {
    assertClose(bleu("The Eiffel Tower is located in India.", "The Eiffel Tower is located in Paris."), (3 / 7) ** 0.25);
  });

  test("exp smoothing: the k-th order without a match gets 1 / (2^k · n-grams)", () => {
    // answer [a, b, x, c], reference [a, b, y, c]: 1-grams 3/4, 2-grams 1/3 (ab),
    // 3-grams none of 2 → 1/(2·2), 4-grams none of 1 → 1/(4·1).
    assertClose(bleu("a b x c", "a b y c"), (3 / 4 * 1 / 3 * 1 / 4 * 1 / 4) ** 0.25);
  });

  test("effective order: a two-token exact answer is 1, not 0", () => {
    assertClose(bleu("退款", "退款"), 1);
  });

  test("brevity penalty when the answer is shorter", () => {
    // answer [a, b], reference [a, b, c, d]: precisions 1 and 1 over orders 1–2, BP = exp(1 − 4/2).
    assertClose(bleu("a b", "a b c d"), Math.exp(-1));
  });

  test("empty reference: not applicable; empty answer: 0", () => {
    assertNotApplicable(bleu("abc", ""));
    assertNotApplicable(bleu("abc", "", { tokenizer: "13a" }));
    assertClose(bleu("", reference), 0);
    assertClose(bleu("   ", "Paris", { tokenizer: "13a" }), 0);
  });
});
