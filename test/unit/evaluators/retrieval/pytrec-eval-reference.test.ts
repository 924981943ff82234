/**
 * Acceptance: the ranked-retrieval metrics equal trec_eval at full precision, through
 * pytrec_eval (pytrec_eval-terrier 0.5.11), on designed edge cases — score ties
 * broken by docno in byte order (Chinese ids included), every score equal, an empty
 * ranking, fewer results than the cutoff, only non-relevant judgments, the seed's
 * graded relevance 0..3 — recorded in test/data/pytrec-eval/ranking.json by
 * record-ranking.py (command in its docstring). trec_eval's own 4-decimal test
 * outputs are reproduced by trec-eval-reproduction.test.ts.
 *
 * The run is ranked as trec_eval ranks it (rankLikeTrecEval); a query without
 * relevant judgments scores 0, as in trec_eval (whenNoRelevantJudgments: "zero";
 * ragscope's default there is "not applicable", evaluate-ranking.ts).
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, test } from "node:test";
import { evaluateRanking, type RankingEvaluation } from "../../../../evaluators/retrieval/evaluate-ranking.js";
import { rankLikeTrecEval } from "../../../../evaluators/retrieval/trec-ranking.js";
import type { MetricValue } from "../../../../evaluators/metric-value.js";

interface RecordedQuery {
  query: string;
  qrels: Record<string, number>;
  run: Record<string, number>;
  measures: Record<string, number>;
}

const recorded = JSON.parse(readFileSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../data/pytrec-eval/ranking.json"), "utf8")) as {
  pytrec_eval_terrier_version: string;
  cutoffs: number[];
  queries: RecordedQuery[];
};

function ours(measure: string, evaluation: RankingEvaluation): MetricValue {
  const simple: Record<string, MetricValue> = { map: evaluation.averagePrecision, recip_rank: evaluation.reciprocalRank, Rprec: evaluation.rPrecision, ndcg: evaluation.ndcg };
  if (simple[measure]) return simple[measure];
  const match = /^(P|recall|success|ndcg_cut)_(\d+)$/.exec(measure);
  assert.ok(match, `unexpected measure ${measure}`);
  const cutoff = evaluation.cutoffs.find((item) => item.k === Number(match[2]));
  assert.ok(cutoff, `no cutoff ${match[2]}`);
  return { P: cutoff.precision, recall: cutoff.recall, success: cutoff.hit, ndcg_cut: cutoff.ndcg }[match[1] as "P" | "recall" | "success" | "ndcg_cut"];
}

describe(`ranking metrics against trec_eval via pytrec_eval-terrier ${recorded.pytrec_eval_terrier_version}`, () => {
  test("the recording has every measure family for every query", () => {
    assert.ok(recorded.queries.length >= 10);
    for (const query of recorded.queries) assert.equal(Object.keys(query.measures).length, 4 + 4 * recorded.cutoffs.length, query.query);
  });

  for (const query of recorded.queries) {
    test(query.query, () => {
      const ranking = rankLikeTrecEval(Object.entries(query.run).map(([id, score]) => ({ id, score })));
      const evaluation = evaluateRanking(ranking, new Map(Object.entries(query.qrels)), { cutoffs: recorded.cutoffs, whenNoRelevantJudgments: "zero" });
      for (const [measure, expected] of Object.entries(query.measures)) {
        const value = ours(measure, evaluation);
        assert.ok(value.applicable, `${measure}: not applicable (${value.applicable ? "" : value.reason})`);
        assert.ok(Math.abs(value.value - expected) <= 1e-12, `${measure}: ${value.value}, trec_eval ${expected}`);
      }
    });
  }
});
