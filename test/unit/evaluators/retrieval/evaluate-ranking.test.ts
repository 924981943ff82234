import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  createRankingEvaluator,
  evaluateRanking,
  type RankingEvaluation,
} from "../../../../evaluators/retrieval/evaluate-ranking.js";
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
import type { RankingMetricOptions, RankedItem } from "../../../../evaluators/retrieval/relevance-judgments.js";
import { rankedTopics } from "../../../support/trec-reproduction.js";

/** What the single-metric functions say for the same query; evaluateRanking must agree exactly. */
function oneMetricAtATime(
  items: readonly RankedItem[],
  judgments: ReadonlyMap<string, number>,
  cutoffs: readonly number[],
  options: Required<RankingMetricOptions>,
): Omit<RankingEvaluation, "retrievedCount" | "relevantCount" | "relevantRetrievedCount" | "inputError"> {
  return {
    firstRelevantRank: firstRelevantRank(items, judgments, options),
    reciprocalRank: reciprocalRank(items, judgments, options),
    averagePrecision: averagePrecision(items, judgments, options),
    rPrecision: rPrecision(items, judgments, options),
    ndcg: ndcg(items, judgments, options),
    cutoffs: cutoffs.map((k) => ({
      k,
      precision: precisionAtK(items, judgments, k, options),
      recall: recallAtK(items, judgments, k, options),
      hit: hitAtK(items, judgments, k, options),
      ndcg: ndcgAtK(items, judgments, k, options),
    })),
  };
}

function assertAgrees(
  items: readonly RankedItem[],
  judgments: ReadonlyMap<string, number>,
  cutoffs: readonly number[],
  options: Required<RankingMetricOptions>,
): RankingEvaluation {
  const evaluation = evaluateRanking(items, judgments, { cutoffs, ...options });
  const { retrievedCount, relevantCount, relevantRetrievedCount: relevantRetrieved, inputError, ...metrics } = evaluation;
  assert.deepEqual(metrics, oneMetricAtATime(items, judgments, cutoffs, options));
  assert.equal(retrievedCount, items.length);
  const count = relevantRetrievedCount(items, judgments, { ...options, whenNoRelevantJudgments: "zero" });
  assert.deepEqual(count, inputError === null ? { applicable: true, value: relevantRetrieved } : { applicable: false, reason: inputError });
  return evaluation;
}

/** Small deterministic generator (mulberry32) so a failure can be replayed. */
function randomGenerator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed);
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
}

describe("evaluateRanking", () => {
  const cutoffs = [1, 3, 5, 10, 15, 100, 1000];

  test("agrees exactly with the single-metric functions on every trec_eval test topic", () => {
    let compared = 0;
    for (const [qrelsFile, relevanceLevel] of [
      ["qrels.test", 1],
      ["qrels.rel_level", 1],
      ["qrels.rel_level", 2],
      ["qrels.rel_level", 3],
    ] as const) {
      for (const { ranking, judgments } of rankedTopics({ qrelsFile, resultsFile: "results.test" })) {
        for (const whenNoRelevantJudgments of ["zero", "not-applicable"] as const) {
          assertAgrees(ranking, judgments, cutoffs, { relevanceLevel, whenNoRelevantJudgments });
          compared += 1;
        }
      }
    }
    assert.equal(compared, 24);
  });

  test("agrees with the single-metric functions on random rankings with odd grades, and both refuse repeated ids", () => {
    const random = randomGenerator(20240611);
    let refused = 0;
    let scored = 0;
    for (let round = 0; round < 500; round += 1) {
      const pool = 1 + Math.floor(random() * 30);
      const drawn = Array.from({ length: Math.floor(random() * 25) }, () => ({ id: `c${Math.floor(random() * pool)}` }));
      // Most rounds keep each id's first occurrence only, so most rankings are scored.
      const items = random() < 0.8 ? drawn.filter((item, index) => drawn.findIndex((other) => other.id === item.id) === index) : drawn;
      if (new Set(items.map((item) => item.id)).size < items.length) refused += 1;
      else scored += 1;
      const judgments = new Map<string, number>();
      for (let id = 0; id < pool; id += 1) {
        if (random() < 0.5) judgments.set(`c${id}`, Math.floor(random() * 6) - 1);
      }
      const roundCutoffs = [Math.floor(random() * 30) - 2, 1, 5, Math.floor(random() * 30) + 1];
      for (const whenNoRelevantJudgments of ["zero", "not-applicable"] as const) {
        const evaluation = assertAgrees(items, judgments, roundCutoffs, {
          relevanceLevel: 1 + Math.floor(random() * 3),
          whenNoRelevantJudgments,
        });
        // Rates stay in [0, 1] even with duplicated ids.
        const rates = [evaluation.reciprocalRank, evaluation.averagePrecision, evaluation.rPrecision, evaluation.ndcg];
        for (const cutoff of evaluation.cutoffs) rates.push(cutoff.precision, cutoff.recall, cutoff.hit, cutoff.ndcg);
        for (const rate of rates) {
          if (rate.applicable) assert.ok(rate.value >= 0 && rate.value <= 1 + 1e-12, `rate out of range: ${rate.value}`);
        }
      }
    }
    assert.ok(refused > 20 && scored > 300, `refused ${refused}, scored ${scored}`);
  });

  test("a repeated id is an input error: nothing is scored, and the error names the id, both ranks and the fix", () => {
    const evaluation = evaluateRanking([{ id: "a" }, { id: "b" }, { id: "a" }], new Map([["a", 1]]));
    assert.equal(evaluation.inputError, 'the ranking lists "a" twice (ranks 1 and 3): a ranking names each item once, so it is not scored; de-duplicate the results before they are recorded, or give distinct items distinct ids');
    for (const metric of [evaluation.reciprocalRank, evaluation.averagePrecision, evaluation.ndcg, ...evaluation.cutoffs.map((cutoff) => cutoff.recall)]) {
      assert.deepEqual(metric, { applicable: false, reason: evaluation.inputError });
    }
    assert.equal(evaluateRanking([{ id: "a" }, { id: "b" }], new Map([["a", 1]])).inputError, null);
  });

  test("by default a query without gold evidence is not applicable, but still reports its counts", () => {
    const evaluation = evaluateRanking([{ id: "a" }, { id: "b" }], new Map([["a", 0]]));
    assert.equal(evaluation.retrievedCount, 2);
    assert.equal(evaluation.relevantCount, 0);
    assert.equal(evaluation.relevantRetrievedCount, 0);
    for (const metric of [evaluation.reciprocalRank, evaluation.averagePrecision, evaluation.rPrecision, evaluation.ndcg]) {
      assert.equal(metric.applicable, false);
    }
    assert.deepEqual(
      evaluation.cutoffs.map((cutoff) => cutoff.k),
      [1, 3, 5, 10],
    );
    assert.ok(evaluation.cutoffs.every((cutoff) => !cutoff.recall.applicable && !cutoff.ndcg.applicable));
  });

  test("nothing retrieved with gold present scores real zeros", () => {
    const evaluation = evaluateRanking([], new Map([["gold", 2]]), { cutoffs: [1, 10] });
    assert.equal(evaluation.relevantCount, 1);
    assert.deepEqual(evaluation.reciprocalRank, { applicable: true, value: 0 });
    assert.deepEqual(evaluation.ndcg, { applicable: true, value: 0 });
    assert.deepEqual(evaluation.cutoffs[1]!.recall, { applicable: true, value: 0 });
    assert.equal(evaluation.firstRelevantRank.applicable, false);
  });

  test("invalid cutoffs are not applicable in place; valid ones, repeats and order are kept", () => {
    const items = [{ id: "x" }, { id: "gold" }];
    const evaluation = evaluateRanking(items, new Map([["gold", 1]]), { cutoffs: [5, 0, 2, -3, 2, 1] });
    assert.deepEqual(
      evaluation.cutoffs.map((cutoff) => cutoff.k),
      [5, 0, 2, -3, 2, 1],
    );
    assert.deepEqual(
      evaluation.cutoffs.map((cutoff) => (cutoff.precision.applicable ? cutoff.precision.value : "n/a")),
      [1 / 5, "n/a", 1 / 2, "n/a", 1 / 2, 0],
    );
    const invalid = evaluation.cutoffs[1]!.hit;
    assert.equal(invalid.applicable, false);
    assert.match(invalid.applicable ? "" : invalid.reason, /cutoff k must be a positive integer, got 0/);
  });

  test("an invalid relevance level makes every metric not applicable, without throwing", () => {
    const evaluation = evaluateRanking([{ id: "a" }], new Map([["a", 1]]), { relevanceLevel: Number.NaN });
    assert.equal(evaluation.ndcg.applicable, false);
    assert.ok(evaluation.cutoffs.every((cutoff) => !cutoff.precision.applicable));
  });

  test("a reused evaluator carries nothing from one query to the next", () => {
    const evaluator = createRankingEvaluator({ cutoffs: [1, 2, 3] });
    const bigJudgments = new Map(Array.from({ length: 200 }, (_, index) => [`d${index}`, (index % 4) as number]));
    const bigRanking = Array.from({ length: 150 }, (_, index) => ({ id: `d${(index * 7) % 200}` }));
    const smallJudgments = new Map([["s", 2]]);
    const smallRanking = [{ id: "x" }, { id: "s" }, { id: "d1" }];
    evaluator.evaluate(bigRanking, bigJudgments);
    assert.deepEqual(evaluator.evaluate(smallRanking, smallJudgments), evaluateRanking(smallRanking, smallJudgments, { cutoffs: [1, 2, 3] }));
    assert.deepEqual(evaluator.evaluate(bigRanking, bigJudgments), evaluateRanking(bigRanking, bigJudgments, { cutoffs: [1, 2, 3] }));
  });
});
