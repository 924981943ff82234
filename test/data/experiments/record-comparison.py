"""Records the reference values of the experiments comparison test.

Command (run from the repository root; SciPy 1.x and statsmodels from PyPI):
    pip install scipy statsmodels
    python3 test/data/experiments/record-comparison.py > test/data/experiments/comparison-references.json

The paired verdicts are those the end-to-end test designs: 26 cases of the
example dataset; the candidate (examples/policy-assistant/eval-task.ts) passes
rag_coupon_per_order_001, rag_e_invoice_001 and rag_points_expiry_001 where the
baseline (test/e2e/experiments/tasks/baseline-task.ts) fails them, and fails
rag_refund_arrival_001 where the baseline passes it; 12 other cases pass in both
(9 answered, and 3 unanswerable cases both refuse, flagged on the trace: a right refusal
is a judged pass, README "Verdicts"). Which cases pass in both changes the
table, not the p-value or the interval: they read only the paired differences.
"""
import json
import numpy as np
import scipy
import statsmodels
from scipy.stats import bootstrap
from statsmodels.stats.contingency_tables import mcnemar

both_pass = 12
fixed = 3
regressed = 1
other = 26 - both_pass - fixed - regressed
candidate = np.array([1] * both_pass + [1] * fixed + [0] * regressed + [0] * other, dtype=float)
baseline = np.array([1] * both_pass + [0] * fixed + [1] * regressed + [0] * other, dtype=float)

table = [[both_pass, regressed], [fixed, other]]
exact = mcnemar(table, exact=True)

result = bootstrap(
    (candidate, baseline),
    lambda c, b, axis=-1: np.mean(c - b, axis=axis),
    paired=True,
    vectorized=True,
    n_resamples=10000,
    confidence_level=0.95,
    method="percentile",
    random_state=np.random.default_rng(20260708),
)
print(json.dumps({
    "versions": {"scipy": scipy.__version__, "statsmodels": statsmodels.__version__, "numpy": np.__version__},
    "mcnemar_table": table,
    "mcnemar_exact_p_value": float(exact.pvalue),
    "case_passed_mean_difference": float(np.mean(candidate - baseline)),
    "case_passed_bootstrap_percentile_95": [float(result.confidence_interval.low), float(result.confidence_interval.high)],
    "bootstrap": {"n_resamples": 10000, "paired": True, "method": "percentile", "seed": 20260708},
}, indent=2))
