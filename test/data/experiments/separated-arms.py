"""
Independent reference values for the experiment report's test of two arms
that are each constant at different values: SciPy's exact permutation test
of the difference in means (independent samples, two-sided, every split
enumerated).

Produced with:
    python3 -m venv /tmp/refenv && /tmp/refenv/bin/pip install statsmodels==0.15.0 scipy==1.17.1
    /tmp/refenv/bin/python test/data/experiments/separated-arms.py > test/data/experiments/separated-arms.json
"""
import json

import numpy as np
import scipy
from scipy.stats import permutation_test


def difference_in_means(control, variant, axis):
    return np.mean(control, axis=axis) - np.mean(variant, axis=axis)


out = {"scipy": scipy.__version__, "cases": []}
for control_count, variant_count, control_value, variant_value in [
    (2, 2, 120, 95),
    (3, 3, 120, 95),
    (4, 4, 120, 95),
    (3, 5, 100, 120),
    (5, 3, 0.2, 0.1),
    (6, 6, 1, 2),
    (2, 9, 5, 7),
    (10, 10, 812, 800),
]:
    result = permutation_test(
        ([control_value] * control_count, [variant_value] * variant_count),
        difference_in_means,
        permutation_type="independent",
        alternative="two-sided",
        n_resamples=np.inf,
        vectorized=True,
    )
    out["cases"].append({"control": control_count, "variant": variant_count, "control_value": control_value, "variant_value": variant_value, "p_value": float(result.pvalue)})
print(json.dumps(out, indent=2))
