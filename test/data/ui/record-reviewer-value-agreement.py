"""Records the reference values of the reviewers' agreement on values (test/integration/ui/reviewer-value-agreement.test.ts).

Command (run from the repository root; scikit-learn from PyPI):
    pip install scikit-learn
    python3 test/data/ui/record-reviewer-value-agreement.py > test/data/ui/reviewer-value-agreement-references.json

Two reviewers, alice and bob, label faithfulness on 12 cases, each with a value in 0..1 (a verdict of pass when
the value is 0.5 or more). The values are put in the judge calibration's buckets, edges 0.25 / 0.5 / 0.75, the
last bucket closed at 1 (evaluators/judge/calibration/ordinal-buckets.ts), and Cohen's kappa is taken on them:
plain, linear and quadratic weights, with the four buckets in their order. Their verdicts' kappa is recorded too.
"""
import json
import sklearn
from sklearn.metrics import cohen_kappa_score

alice = [1.0, 0.9, 0.7, 0.6, 0.4, 0.3, 0.2, 0.1, 1.0, 0.8, 0.55, 0.0]
bob = [1.0, 0.7, 0.8, 0.4, 0.45, 0.1, 0.3, 0.0, 0.75, 1.0, 0.2, 0.24]
edges = [0.25, 0.5, 0.75]
labels = ["0-0.25", "0.25-0.5", "0.5-0.75", "0.75-1"]


def bucket(value):
    return labels[sum(1 for edge in edges if value >= edge)]


def verdict(value):
    return "pass" if value >= 0.5 else "fail"


first = [bucket(value) for value in alice]
second = [bucket(value) for value in bob]
print(json.dumps({
    "scikit_learn": sklearn.__version__,
    "alice": alice,
    "bob": bob,
    "verdict_kappa": cohen_kappa_score([verdict(value) for value in alice], [verdict(value) for value in bob]),
    "bucket_kappa": cohen_kappa_score(first, second, labels=labels),
    "bucket_linear_kappa": cohen_kappa_score(first, second, labels=labels, weights="linear"),
    "bucket_quadratic_kappa": cohen_kappa_score(first, second, labels=labels, weights="quadratic"),
}, indent=2))
