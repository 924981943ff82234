/**
 * Acceptance: cmrc_f1 and cmrc_exact_match give the official CMRC 2018
 * scorer's values (test/data/cmrc2018/official-scores.json, recorded by running
 * the scorer with record-official-scores.py, command in its docstring), and
 * the word tokenizer under them gives nltk's tokens
 * (test/data/nltk/word-tokenize.json).
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, test } from "node:test";
import { bestOverReferences } from "../../../../evaluators/text/best-over-references.js";
import { cmrcExactMatch, cmrcF1, longestCommonSubstring } from "../../../../evaluators/text/cmrc-f1.js";
import { cmrcSegments } from "../../../../evaluators/text/cmrc-segmentation.js";
import { tokenF1 } from "../../../../evaluators/text/token-f1.js";
import { treebankWordTokenize } from "../../../../evaluators/text/treebank-word-tokenize.js";
import { assertClose, assertNotApplicable, valueOf } from "./metric-assertions.js";

const dataDirectory = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../data");

interface OfficialCase {
  id: string;
  prediction: string;
  answers: string[];
  official_f1: number;
  official_em: number;
  official_prediction_segments: string[];
  official_answer_segments: string[][];
}

const official = JSON.parse(readFileSync(path.join(dataDirectory, "cmrc2018/official-scores.json"), "utf8")) as {
  scorer_command_line_output: { F1: string; EM: string; TOTAL: number };
  cases: OfficialCase[];
};
const nltk = JSON.parse(readFileSync(path.join(dataDirectory, "nltk/word-tokenize.json"), "utf8")) as { nltk_version: string; cases: { text: string; tokens: string[] }[] };

const oursF1 = (item: OfficialCase) => valueOf(bestOverReferences(item.answers, (answer) => cmrcF1(item.prediction, answer)));
const oursExactMatch = (item: OfficialCase) => valueOf(bestOverReferences(item.answers, (answer) => cmrcExactMatch(item.prediction, answer)));

describe("the official CMRC 2018 scorer's values", () => {
  test("the recorded pairs are a few dozen, with numbers, English, punctuation and several answers", () => {
    assert.ok(official.cases.length >= 36, `only ${official.cases.length} pairs`);
    assert.equal(official.scorer_command_line_output.TOTAL, official.cases.length);
    assert.ok(official.cases.some((item) => item.answers.length > 1));
    assert.ok(official.cases.some((item) => item.official_prediction_segments.includes("20.0")));
    assert.ok(official.cases.some((item) => item.official_f1 > 0 && item.official_f1 < 1));
  });

  for (const item of official.cases) {
    test(`${item.id}: segments, F1 ${item.official_f1}, EM ${item.official_em}`, () => {
      assert.deepEqual(cmrcSegments(item.prediction), item.official_prediction_segments);
      assert.deepEqual(item.answers.map(cmrcSegments), item.official_answer_segments);
      assert.equal(oursF1(item), item.official_f1);
      assert.equal(oursExactMatch(item), item.official_em);
    });
  }

  test("the scorer's command line totals (F1 and EM in percent, 3 decimals) are the means of ours", () => {
    const mean = (values: number[]) => (100 * values.reduce((sum, value) => sum + value, 0)) / values.length;
    assert.equal(mean(official.cases.map(oursF1)).toFixed(3), official.scorer_command_line_output.F1);
    assert.equal(mean(official.cases.map(oursExactMatch)).toFixed(3), official.scorer_command_line_output.EM);
  });
});

describe(`nltk ${nltk.nltk_version} word tokenizer (one sentence)`, () => {
  for (const item of nltk.cases) {
    test(JSON.stringify(item.text), () => assert.deepEqual(treebankWordTokenize(item.text), item.tokens));
  }
});

describe("cmrc_f1 against SQuAD-style token_f1", () => {
  test("order and contiguity count in CMRC F1, not in token F1", () => {
    assertClose(cmrcF1("京北", "北京"), 0.5);
    assertClose(tokenF1("京北", "北京"), 1);
  });

  test("longest common substring, not subsequence", () => {
    assert.equal(longestCommonSubstring(["a", "b", "x", "c", "d", "e"], ["a", "b", "c", "d", "e"]), 3);
    assert.equal(longestCommonSubstring([], ["a"]), 0);
  });

  test("a reference without segments is not applicable; an empty answer scores 0", () => {
    assertNotApplicable(cmrcF1("北京", "？！"));
    assertNotApplicable(cmrcExactMatch("北京", "。"));
    assertClose(cmrcF1("", "北京"), 0);
    assertClose(cmrcExactMatch("", "北京"), 0);
  });
});
