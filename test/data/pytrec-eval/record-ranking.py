"""
Records trec_eval's ranking measures, through pytrec_eval (Python bindings
compiled from trec_eval's C source), at full double precision on designed
queries, for ragscope's ranked-retrieval metrics (evaluators/retrieval/:
recall_at_k, precision_at_k, hit_at_k, ndcg_at_k, mrr, map, Rprec).

trec_eval's own test outputs (shared/testdata/trec_eval/, reproduced by
test/unit/evaluators/retrieval/trec-eval-reproduction.test.ts) print 4
decimals; this recording keeps every digit and aims at edge cases those files
do not have: score ties (trec_eval breaks them by docno, descending, in byte
order, Chinese ids included), every score equal, an empty ranking, fewer
results than the cutoff, only non-relevant judgments, graded relevance 0..3
(seed 004 §三.4: 3 direct evidence, 2 strongly, 1 weakly relevant, 0
irrelevant) with ties of grade, relevant documents never retrieved.

Reproduce from the repository root (network access to PyPI only):

    python3 -m venv /tmp/references-venv
    /tmp/references-venv/bin/pip install pytrec_eval-terrier==0.5.11
    /tmp/references-venv/bin/python test/data/pytrec-eval/record-ranking.py > test/data/pytrec-eval/ranking.json
"""
import json
from importlib.metadata import version

import pytrec_eval

CUTOFFS = [1, 3, 5, 10]
QUERIES = {
    # Two results tie at score 2.0: trec_eval ranks d3 before d1 (docno descending), so RR is 1/2.
    "tie_moves_relevant_down": ({"d1": 1, "d2": 1, "d9": 1}, {"d1": 2.0, "d3": 2.0, "d2": 1.5, "d4": 1.0}),
    "every_score_equal": ({"a": 1, "c": 1}, {"a": 0.5, "b": 0.5, "c": 0.5, "d": 0.5, "e": 0.5}),
    "chinese_ids_tie_in_byte_order": ({"文档_2": 1, "doc_b": 1}, {"文档_1": 1.0, "文档_2": 1.0, "doc_b": 1.0, "Doc_a": 1.0, "éclair": 1.0}),
    "empty_ranking": ({"x": 1, "y": 2}, {}),
    "fewer_results_than_cutoff": ({"r1": 1, "r2": 1, "r3": 1}, {"r1": 3.0, "n1": 2.0}),
    "only_nonrelevant_judgments": ({"n1": 0, "n2": 0}, {"n1": 9.0, "z": 8.0}),
    "nothing_relevant_retrieved": ({"g1": 1, "g2": 1}, {"n1": 3.0, "n2": 2.0, "n3": 1.0}),
    "single_result_relevant": ({"only": 1}, {"only": 0.1}),
    "graded_seed_levels": (
        {"direct": 3, "strong1": 2, "strong2": 2, "weak": 1, "irrelevant": 0, "unretrieved_direct": 3},
        {"weak": 10.0, "irrelevant": 9.0, "strong2": 8.0, "unjudged": 7.0, "direct": 6.0, "strong1": 6.0, "x1": 5.0, "x2": 4.0, "x3": 3.0, "x4": 2.0, "x5": 1.0},
    ),
    "graded_ideal_order": ({"a": 3, "b": 2, "c": 1}, {"a": 3.0, "b": 2.0, "c": 1.0, "d": 0.5}),
    "relevant_after_cutoff_10": ({"late": 1, "never": 1}, {f"n{index:02d}": 100.0 - index for index in range(12)} | {"late": 50.0}),
    "negative_scores": ({"p": 1}, {"q": -0.5, "p": -1.25, "r": -3.0}),
}

MEASURES = {"map", "recip_rank", "Rprec", "ndcg"} | {f"{family}.{','.join(map(str, CUTOFFS))}" for family in ("P", "recall", "success", "ndcg_cut")}
qrels = {query: judgments for query, (judgments, _) in QUERIES.items()}
run = {query: results for query, (_, results) in QUERIES.items()}
evaluated = pytrec_eval.RelevanceEvaluator(qrels, MEASURES).evaluate(run)

print(json.dumps({
    "pytrec_eval_terrier_version": version("pytrec_eval-terrier"),
    "cutoffs": CUTOFFS,
    "queries": [{"query": query, "qrels": qrels[query], "run": run[query], "measures": evaluated[query]} for query in QUERIES],
}, indent=1, ensure_ascii=False))
