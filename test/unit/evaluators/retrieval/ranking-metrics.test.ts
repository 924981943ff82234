import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { MetricValue } from "../../../../evaluators/metric-value.js";
import {
  averagePrecision,
  firstRelevantRank,
  hitAtK,
  ndcg,
  ndcgAtK,
  precisionAtK,
  rPrecision,
  recallAtK,
  reciprocalRank,
  relevantRetrievedCount,
} from "../../../../evaluators/retrieval/ranking-metrics.js";

function ranking(...ids: string[]): { id: string }[] {
  return ids.map((id) => ({ id }));
}

function valueOf(metric: MetricValue): number {
  assert.ok(metric.applicable, `expected a value, got not applicable: ${metric.applicable ? "" : metric.reason}`);
  return metric.value;
}

function assertClose(metric: MetricValue, expected: number): void {
  const actual = valueOf(metric);
  assert.ok(Math.abs(actual - expected) < 1e-12, `expected ${expected}, got ${actual}`);
}

function reasonOf(metric: MetricValue): string {
  assert.equal(metric.applicable, false);
  return metric.applicable ? "" : metric.reason;
}

// d2 (grade 3) at rank 2, d4 (grade 1) at rank 4; d9 (grade 2) is relevant but not
// retrieved; d3 is judged non-relevant; d5 is judged-unjudged (negative grade).
const items = ranking("d1", "d2", "d3", "d4", "d5");
const judgments = new Map([
  ["d2", 3],
  ["d4", 1],
  ["d9", 2],
  ["d3", 0],
  ["d5", -1],
]);

describe("ranking metrics on a graded hand-made query", () => {
  test("hit, precision and recall at k (relevant = grade >= 1, num_rel = 3)", () => {
    assert.equal(valueOf(hitAtK(items, judgments, 1)), 0);
    assert.equal(valueOf(hitAtK(items, judgments, 2)), 1);
    assertClose(precisionAtK(items, judgments, 2), 1 / 2);
    assertClose(precisionAtK(items, judgments, 5), 2 / 5);
    assertClose(recallAtK(items, judgments, 2), 1 / 3);
    assertClose(recallAtK(items, judgments, 5), 2 / 3);
  });

  test("k larger than the list: precision still divides by k, recall sees the whole list", () => {
    assertClose(precisionAtK(items, judgments, 10), 2 / 10);
    assertClose(recallAtK(items, judgments, 10), 2 / 3);
    assert.equal(valueOf(hitAtK(items, judgments, 10)), 1);
  });

  test("reciprocal rank, average precision over num_rel, R-precision", () => {
    assertClose(reciprocalRank(items, judgments), 1 / 2);
    assertClose(averagePrecision(items, judgments), (1 / 2 + 2 / 4) / 3);
    assertClose(rPrecision(items, judgments), 1 / 3);
    assert.equal(valueOf(firstRelevantRank(items, judgments)), 2);
    assert.equal(valueOf(relevantRetrievedCount(items, judgments)), 2);
  });

  test("nDCG uses linear gains, log2(rank + 1) and an ideal built from all positive judgments", () => {
    const dcg = 3 / Math.log2(3) + 1 / Math.log2(5);
    const ideal = 3 / 1 + 2 / Math.log2(3) + 1 / Math.log2(4);
    assertClose(ndcg(items, judgments), dcg / ideal);
    assertClose(ndcgAtK(items, judgments, 2), 3 / Math.log2(3) / (3 + 2 / Math.log2(3)));
    assertClose(ndcgAtK(items, judgments, 1), 0);
  });

  test("a relevance level of 2 changes the binary metrics but not nDCG", () => {
    const options = { relevanceLevel: 2 };
    assertClose(recallAtK(items, judgments, 5, options), 1 / 2);
    assertClose(averagePrecision(items, judgments, options), 1 / 2 / 2);
    assertClose(precisionAtK(items, judgments, 5, options), 1 / 5);
    assert.equal(valueOf(relevantRetrievedCount(items, judgments, options)), 1);
    assert.equal(valueOf(ndcg(items, judgments, options)), valueOf(ndcg(items, judgments)));
  });

  test("the seed's MRR examples: first relevant at rank 1, 2, 5 scores 1, 0.5, 0.2", () => {
    const gold = new Map([["gold", 1]]);
    assert.equal(valueOf(reciprocalRank(ranking("gold", "x"), gold)), 1);
    assert.equal(valueOf(reciprocalRank(ranking("x", "gold"), gold)), 0.5);
    assert.equal(valueOf(reciprocalRank(ranking("a", "b", "c", "d", "gold"), gold)), 0.2);
  });
});

describe("ranking metrics on empty and degenerate input", () => {
  test("nothing retrieved with gold present: real zeros, and no first rank", () => {
    const empty = ranking();
    for (const metric of [
      hitAtK(empty, judgments, 3),
      precisionAtK(empty, judgments, 3),
      recallAtK(empty, judgments, 3),
      reciprocalRank(empty, judgments),
      averagePrecision(empty, judgments),
      rPrecision(empty, judgments),
      ndcg(empty, judgments),
      ndcgAtK(empty, judgments, 3),
      relevantRetrievedCount(empty, judgments),
    ]) {
      assert.deepEqual(metric, { applicable: true, value: 0 });
    }
    assert.match(reasonOf(firstRelevantRank(empty, judgments)), /no relevant item was retrieved/);
  });

  test("no judgments: trec_eval's zero by default, not applicable on request", () => {
    const none = new Map<string, number>();
    assert.deepEqual(recallAtK(items, none, 5), { applicable: true, value: 0 });
    assert.deepEqual(ndcg(items, none), { applicable: true, value: 0 });
    const product = { whenNoRelevantJudgments: "not-applicable" } as const;
    for (const metric of [
      hitAtK(items, none, 3, product),
      precisionAtK(items, none, 3, product),
      recallAtK(items, none, 3, product),
      reciprocalRank(items, none, product),
      averagePrecision(items, none, product),
      rPrecision(items, none, product),
      firstRelevantRank(items, none, product),
      relevantRetrievedCount(items, none, product),
      ndcg(items, none, product),
      ndcgAtK(items, none, 3, product),
    ]) {
      assert.match(reasonOf(metric), /no gold evidence/);
    }
  });

  test("all judged non-relevant: zeros under trec_eval rules, not applicable for the product", () => {
    const allZero = new Map([
      ["d1", 0],
      ["d2", 0],
    ]);
    assert.deepEqual(precisionAtK(items, allZero, 2), { applicable: true, value: 0 });
    assert.deepEqual(averagePrecision(items, allZero), { applicable: true, value: 0 });
    assert.deepEqual(ndcg(items, allZero), { applicable: true, value: 0 });
    const product = { whenNoRelevantJudgments: "not-applicable" } as const;
    assert.equal(precisionAtK(items, allZero, 2, product).applicable, false);
    assert.equal(ndcg(items, allZero, product).applicable, false);
  });

  test("grades below the level leave nDCG applicable while binary metrics have no gold", () => {
    const weakOnly = new Map([["d2", 1]]);
    const options = { relevanceLevel: 2, whenNoRelevantJudgments: "not-applicable" } as const;
    assert.equal(recallAtK(items, weakOnly, 5, options).applicable, false);
    assertClose(ndcg(items, weakOnly, options), 1 / Math.log2(3));
  });

  test("k = 0, negative, fractional or not finite is not applicable, with the reason", () => {
    for (const k of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      for (const metric of [
        hitAtK(items, judgments, k),
        precisionAtK(items, judgments, k),
        recallAtK(items, judgments, k),
        ndcgAtK(items, judgments, k),
      ]) {
        assert.match(reasonOf(metric), /cutoff k must be a positive integer/);
      }
    }
  });

  test("a relevance level that is not a finite number is not applicable", () => {
    assert.match(reasonOf(recallAtK(items, judgments, 3, { relevanceLevel: Number.NaN })), /relevance level/);
    assert.match(reasonOf(ndcg(items, judgments, { relevanceLevel: Number.NaN })), /relevance level/);
  });

  test("a repeated id is an input error, not scored: every metric says which id and where", () => {
    const gold = new Map([
      ["d2", 3],
      ["d4", 1],
    ]);
    const repeated = ranking("d2", "d4", "d2");
    for (const value of [precisionAtK(repeated, gold, 2), recallAtK(repeated, gold, 3), relevantRetrievedCount(repeated, gold), averagePrecision(repeated, gold), ndcg(repeated, gold), ndcgAtK(repeated, gold, 3)]) {
      assert.match(reasonOf(value), /^the ranking lists "d2" twice \(ranks 1 and 3\)/);
    }
    assertClose(precisionAtK(ranking("d2", "d4", "d5"), gold, 2), 1);
  });

  test("non-finite grades count as no judgment", () => {
    const odd = new Map([
      ["d1", Number.NaN],
      ["d2", Number.POSITIVE_INFINITY],
      ["d4", 2],
    ]);
    assertClose(ndcg(items, odd), 2 / Math.log2(5) / 2);
    assertClose(recallAtK(items, odd, 5), 1);
  });
});
