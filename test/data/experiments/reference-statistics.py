"""
Independent reference values for ragscope's experiment statistics
(evaluators/experiments/), computed with SciPy and statsmodels.

Produced with:
    pip install scipy==1.17.1 statsmodels==0.15.0
    python3 test/data/experiments/reference-statistics.py > test/data/experiments/reference-statistics.json

The inputs are drawn here with a seeded NumPy generator and written into the
JSON beside the expected values, so the TypeScript test reads both from the
file and never computes an expected value with ragscope's own code.
"""
import json

import numpy as np
import scipy
import statsmodels
import statsmodels.api as sm
from scipy import stats
from statsmodels.stats.power import NormalIndPower
from statsmodels.stats.proportion import confint_proportions_2indep, proportions_ztest

rng = np.random.default_rng(20261201)
out = {"scipy": scipy.__version__, "statsmodels": statsmodels.__version__, "numpy": np.__version__}

# Two proportions: variant minus control; pooled z test, Wald (unpooled) interval.
out["two_proportion"] = []
for control_successes, control_count, variant_successes, variant_count in [(120, 1000, 150, 1000), (48, 400, 45, 410), (900, 5000, 1010, 5100), (3, 30, 9, 31)]:
    z, p = proportions_ztest([variant_successes, control_successes], [variant_count, control_count], alternative="two-sided")
    low, high = confint_proportions_2indep(variant_successes, variant_count, control_successes, control_count, method="wald", compare="diff", alpha=0.05)
    out["two_proportion"].append({
        "control": [control_successes, control_count], "variant": [variant_successes, variant_count],
        "z": float(z), "p_value": float(p), "lower": float(low), "upper": float(high),
    })

# Welch's t test: variant minus control.
out["welch"] = []
for size_a, size_b, shift in [(40, 55, 0.3), (200, 180, 0.0), (12, 9, 1.0)]:
    # Rounded before use: the JSON carries exactly the values the statistics saw.
    control = rng.normal(3.5, 1.0, size_a).round(6)
    variant = rng.normal(3.5 + shift, 1.6, size_b).round(6)
    result = stats.ttest_ind(variant, control, equal_var=False)
    interval = result.confidence_interval(0.95)
    out["welch"].append({
        "control": control.round(6).tolist(), "variant": variant.round(6).tolist(),
        "t": float(result.statistic), "p_value": float(result.pvalue), "df": float(result.df),
        "lower": float(interval.low), "upper": float(interval.high),
    })

# Clustered by unit: units with several requests, a per-unit propensity. The
# difference of request-level means with a cluster-robust (CR0, no
# small-sample correction) standard error and a normal reference, from OLS of
# the outcome on a variant indicator.
out["clustered"] = []
for units_per_arm, base, lift in [(60, 0.3, 0.1), (150, 0.5, 0.0)]:
    rows = []
    for arm in (0, 1):
        for unit in range(units_per_arm):
            propensity = np.clip(rng.normal(base + lift * arm, 0.15), 0.01, 0.99)
            for _ in range(int(rng.integers(1, 8))):
                rows.append((arm, f"{arm}-{unit}", float(rng.random() < propensity)))
    arms = np.array([row[0] for row in rows], dtype=float)
    units = np.array([row[1] for row in rows])
    values = np.array([row[2] for row in rows])
    _, groups = np.unique(units, return_inverse=True)
    fit = sm.OLS(values, sm.add_constant(arms)).fit(cov_type="cluster", cov_kwds={"groups": groups, "use_correction": False}, use_t=False)
    low, high = fit.conf_int(alpha=0.05)[1]
    out["clustered"].append({
        "rows": [[int(row[0]), row[1], row[2]] for row in rows],
        "difference": float(fit.params[1]), "standard_error": float(fit.bse[1]), "p_value": float(fit.pvalues[1]),
        "lower": float(low), "upper": float(high),
    })

# Sample ratio mismatch: chi-square goodness of fit of assignment counts.
out["srm"] = []
for counts, weights in [([5120, 4880], [1, 1]), ([5000, 5000], [1, 1]), ([3100, 900], [3, 1]), ([1000, 1100, 950], [1, 1, 1]), ([2600, 2400], [1, 1])]:
    total = sum(counts)
    expected = [total * weight / sum(weights) for weight in weights]
    result = stats.chisquare(counts, expected)
    out["srm"].append({"counts": counts, "weights": weights, "chi_square": float(result.statistic), "p_value": float(result.pvalue)})

# Minimum sample size per arm to detect an absolute change of a rate:
# effect size = change / sqrt(p(1-p)) at the mean rate p of the two arms,
# equal arms, two-sided.
out["sample_size"] = []
for baseline, change, alpha, power in [(0.1, 0.02, 0.05, 0.8), (0.3, 0.05, 0.05, 0.9), (0.5, 0.1, 0.01, 0.8)]:
    mean_rate = baseline + change / 2
    effect = change / np.sqrt(mean_rate * (1 - mean_rate))
    size = NormalIndPower().solve_power(effect_size=effect, alpha=alpha, power=power, ratio=1.0, alternative="two-sided")
    out["sample_size"].append({"baseline": baseline, "change": change, "alpha": alpha, "power": power, "per_arm": float(size)})

# Normal and chi-square distribution values the tests spot-check.
out["distributions"] = {
    "normal_cdf": [[z, float(stats.norm.cdf(z))] for z in (-3.2, -1.96, -0.5, 0.0, 0.7, 2.5)],
    "chi_square_survival": [[x, k, float(stats.chi2.sf(x, k))] for x, k in ((0.5, 1), (3.84, 1), (5.76, 1), (10.0, 2), (2.0, 3), (25.0, 4))],
}

# Percentile bootstrap of the difference of means (for the unclustered case, a tolerance check: resampling differs).
control = rng.normal(0.0, 1.0, 300).round(6)
variant = rng.normal(0.25, 1.0, 300).round(6)
boot = stats.bootstrap((variant, control), lambda v, c, axis=-1: np.mean(v, axis=axis) - np.mean(c, axis=axis), method="percentile", n_resamples=20000, random_state=np.random.default_rng(7), vectorized=True)
out["bootstrap"] = {"control": control.round(6).tolist(), "variant": variant.round(6).tolist(), "lower": float(boot.confidence_interval.low), "upper": float(boot.confidence_interval.high)}

print(json.dumps(out, indent=1))
