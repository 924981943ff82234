import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { exactMatch } from "../../../../evaluators/text/exact-match.js";
import { levenshteinDistance, levenshteinSimilarity } from "../../../../evaluators/text/levenshtein-similarity.js";
import { stringPresence } from "../../../../evaluators/text/string-presence.js";
import { assertClose, assertNotApplicable } from "./metric-assertions.js";

describe("exactMatch", () => {
  test("normalised: full-width forms, case, punctuation and spacing do not count", () => {
    assertClose(exactMatch("Ｐａｒｉｓ。", "paris"), 1);
    assertClose(exactMatch("  积分，会扣回！ ", "积分会扣回"), 1);
    assertClose(exactMatch("积分不会扣回", "积分会扣回"), 0);
  });

  test("raw: plain equality, nothing stripped", () => {
    assertClose(exactMatch("Paris", "Paris", { mode: "raw" }), 1);
    assertClose(exactMatch("Paris ", "Paris", { mode: "raw" }), 0);
    assertClose(exactMatch("paris", "Paris", { mode: "raw" }), 0);
  });

  test("empty reference: not applicable; empty answer: 0", () => {
    assertNotApplicable(exactMatch("Paris", ""));
    assertNotApplicable(exactMatch("", "。！"));
    assertNotApplicable(exactMatch("", "", { mode: "raw" }));
    assertClose(exactMatch("", "Paris"), 0);
  });
});

describe("stringPresence", () => {
  test("normalised: whole tokens, so a word inside another word is not present", () => {
    assertClose(stringPresence("Restart the service", "art"), 0);
    assertClose(stringPresence("Restart the service", "art", { mode: "raw" }), 1);
    assertClose(stringPresence("THE EIFFEL TOWER!", "eiffel tower"), 1);
  });

  test("Chinese: per-character tokens, spacing and full-width punctuation ignored", () => {
    assertClose(stringPresence("会员积分 按实际保留金额，重新计算", "保留金额重新计算"), 1);
    assertClose(stringPresence("会员积分按实际金额计算", "保留金额"), 0);
  });

  test("empty expected string: not applicable", () => {
    assertNotApplicable(stringPresence("anything", ""));
    assertNotApplicable(stringPresence("anything", "", { mode: "raw" }));
    assertNotApplicable(stringPresence("anything", "——"));
  });
});

describe("levenshteinSimilarity", () => {
  test("distance over code points: a CJK character or an emoji is one edit", () => {
    assert.equal(levenshteinDistance(Array.from("积分会扣回"), Array.from("积分不会扣回")), 1);
    assert.equal(levenshteinDistance(Array.from("a😀b"), Array.from("ab")), 1);
    assert.equal(levenshteinDistance([], Array.from("abc")), 3);
  });

  test("normalised mode: 'the eiffel tower is located in paris' has 36 code points, 4 edits", () => {
    assertClose(levenshteinSimilarity("The Eiffel Tower is located in India.", "The Eiffel Tower is located in Paris."), 1 - 4 / 36);
  });

  test("Chinese: 积分会扣回 vs 积分不会扣回 is 1 − 1/6", () => {
    assertClose(levenshteinSimilarity("积分会扣回", "积分不会扣回"), 1 - 1 / 6);
  });

  test("full-width and ASCII forms are identical once normalised, not in raw mode", () => {
    assertClose(levenshteinSimilarity("ＡＢＣ１２３", "abc123"), 1);
    assertClose(levenshteinSimilarity("ＡＢＣ１２３", "abc123", { mode: "raw" }), 0);
  });

  test("empty reference: not applicable; empty answer: 0", () => {
    assertNotApplicable(levenshteinSimilarity("abc", ""));
    assertNotApplicable(levenshteinSimilarity("", "", { mode: "raw" }));
    assertClose(levenshteinSimilarity("", "abc"), 0);
  });
});
