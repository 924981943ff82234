import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { reciprocalRank } from "../../../../evaluators/retrieval/ranking-metrics.js";
import { compareByteOrder, rankLikeTrecEval } from "../../../../evaluators/retrieval/trec-ranking.js";

const ids = (items: readonly { id: string }[]): string[] => items.map((item) => item.id);

describe("rankLikeTrecEval", () => {
  test("sorts by score descending; the input order plays no part", () => {
    const results = [
      { id: "low", score: 0.1 },
      { id: "high", score: 2 },
      { id: "middle", score: 1 },
    ];
    assert.deepEqual(ids(rankLikeTrecEval(results)), ["high", "middle", "low"]);
    assert.deepEqual(ids(rankLikeTrecEval([...results].reverse())), ["high", "middle", "low"]);
    assert.deepEqual(ids(results), ["low", "high", "middle"], "the input is not reordered");
  });

  test("equal scores rank by id descending (the README's example pair)", () => {
    const ranked = rankLikeTrecEval([
      { id: "FBIS3-58025", score: 2.243509 },
      { id: "FBIS3-58055", score: 2.243509 },
    ]);
    assert.deepEqual(ids(ranked), ["FBIS3-58055", "FBIS3-58025"]);
  });

  test("the tie order decides the metric: the relevant doc-a ranks second, RR = 0.5", () => {
    const results = [
      { id: "doc-a", score: 1 },
      { id: "doc-b", score: 1 },
    ];
    const gold = new Map([["doc-a", 1]]);
    assert.deepEqual(reciprocalRank(results, gold), { applicable: true, value: 1 }, "as given, doc-a is first");
    assert.deepEqual(reciprocalRank(rankLikeTrecEval(results), gold), { applicable: true, value: 0.5 });
  });

  test("ties break in byte order, not by locale or UTF-16 units", () => {
    const ranked = rankLikeTrecEval(
      ["B", "a", "\uFF21", "\u{1F600}", "a#1", "a#10"].map((id) => ({ id, score: 0 })),
    );
    // UTF-8: F0 9F 98 80 > EF BC A1 > 'a#10' > 'a#1' > 'a' > 'B'
    assert.deepEqual(ids(ranked), ["\u{1F600}", "\uFF21", "a#10", "a#1", "a", "B"]);
  });

  test("truncateTo keeps the top n after sorting (trec_eval -M)", () => {
    const results = [3, 1, 4, 1.5, 9, 2.6].map((score) => ({ id: `d${score}`, score }));
    assert.deepEqual(ids(rankLikeTrecEval(results, { truncateTo: 2 })), ["d9", "d4"]);
    assert.deepEqual(ids(rankLikeTrecEval(results, { truncateTo: 0 })), []);
    assert.equal(rankLikeTrecEval(results, { truncateTo: 100 }).length, 6);
    assert.throws(() => rankLikeTrecEval(results, { truncateTo: -1 }), RangeError);
  });

  test("a NaN score ranks after every number, and empty input is fine", () => {
    const ranked = rankLikeTrecEval([
      { id: "nan", score: Number.NaN },
      { id: "low", score: -5 },
      { id: "high", score: 5 },
    ]);
    assert.deepEqual(ids(ranked), ["high", "low", "nan"]);
    assert.deepEqual(rankLikeTrecEval([]), []);
  });
});

describe("compareByteOrder", () => {
  test("has the sign of a byte comparison of the UTF-8 encodings", () => {
    const samples = ["", "a", "A", "b", "ab", "a#1", "a-1", "é", "z", "\uFF21", "\uE000", "\uD7FF", "\u{1F600}", "\u{10000}", "中文", "中"];
    for (const left of samples) {
      for (const right of samples) {
        const expected = Math.sign(Buffer.compare(Buffer.from(left, "utf8"), Buffer.from(right, "utf8")));
        assert.equal(Math.sign(compareByteOrder(left, right)), expected, `${left} vs ${right}`);
      }
    }
  });
});
