"""Records the reference values of the review agreement test (test/integration/ui/review-agreement.test.ts).

Command (run from the repository root; scikit-learn from PyPI):
    pip install scikit-learn
    python3 test/data/ui/record-review-agreement.py > test/data/ui/review-agreement-references.json

The verdicts are the ones the test stores, written out here (p = pass, f = fail):
- faithfulness on 12 cases: the LLM judge's verdict, and the labels of the
  reviewers alice and bob on each;
- completeness on 8 cases: the judge's verdict and the labels of alice and
  bob (a reviewer who passes a case labels every metric it offers for review:
  a file with passes on part of a case's metrics is refused, so bob's labels
  of faithfulness come with his labels of completeness).
The UI pairs every human label with the judge's verdict on the same case and
metric (the judge calibration report), so the judge's kappa per metric is over
the concatenation of (alice, judge) and (bob, judge) pairs; the reviewers'
kappa is over (alice, bob) per case.
"""
import json
import sklearn
from sklearn.metrics import cohen_kappa_score

faithfulness_judge = "ppfpffpppfpp"
faithfulness_alice = "ppffffpppppp"
faithfulness_bob = "pfffpfppfppp"
completeness_judge = "ppppffff"
completeness_alice = "pppfffpp"
completeness_bob = "ppfpffpf"

def kappa(first, second):
    return cohen_kappa_score(list(first), list(second), labels=["f", "p"])

print(json.dumps({
    "sklearn_version": sklearn.__version__,
    "verdicts": {
        "faithfulness": {"judge": faithfulness_judge, "alice": faithfulness_alice, "bob": faithfulness_bob},
        "completeness": {"judge": completeness_judge, "alice": completeness_alice, "bob": completeness_bob},
    },
    "judge_kappa": {
        "faithfulness": kappa(faithfulness_alice + faithfulness_bob, faithfulness_judge + faithfulness_judge),
        "completeness": kappa(completeness_alice + completeness_bob, completeness_judge + completeness_judge),
    },
    "judge_pairs": {"faithfulness": 24, "completeness": 16},
    "reviewer_kappa": {"faithfulness": kappa(faithfulness_alice, faithfulness_bob), "completeness": kappa(completeness_alice, completeness_bob)},
}, indent=2))
