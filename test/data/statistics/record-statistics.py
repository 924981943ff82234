"""
Independent reference values for ragscope's shared statistics: the
distribution functions in core/statistics/, the alert stage's Wilson and
Student-t intervals (collector/10-alert/confidence-interval.ts), the exact
McNemar test of `ragscope experiment compare`
(experiments/compare/exact-mcnemar.ts) and the judge calibration's Cohen's
kappa, plain and weighted (evaluators/judge/calibration/cohen-kappa.ts), and the seed's abstention
precision / recall / over-abstention rate (seed 004 §五.6,
evaluators/rules/answer-abstention-confusion.ts; no_answer_accuracy is the
recall) as scikit-learn's precision_score / recall_score.

Reproduce from the repository root (network access to PyPI only):

    python3 -m venv /tmp/references-venv
    /tmp/references-venv/bin/pip install numpy==2.4.6 scipy==1.17.1 statsmodels==0.15.0 scikit-learn==1.9.1
    /tmp/references-venv/bin/python test/data/statistics/record-statistics.py > test/data/statistics/statistics.json

Every input is written beside its expected value; the TypeScript test
(test/unit/statistics/statistics-reference.test.ts) reads both and never
derives an expected value with ragscope's code. Edge cases are deliberate:
0 and n successes, one sample, all-equal samples, fractional success counts
(a window of metric values in [0, 1]), far tails, 1 degree of freedom, no
flips in McNemar, one rater category, categories nobody used.
"""
import json
import math

import numpy as np
import scipy
import sklearn
import statsmodels
from scipy import special, stats
from sklearn.metrics import cohen_kappa_score, precision_score, recall_score
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.proportion import proportion_confint

out = {"numpy": np.__version__, "scipy": scipy.__version__, "statsmodels": statsmodels.__version__, "scikit_learn": sklearn.__version__}


def finite_or_none(value):
    value = float(value)
    return value if math.isfinite(value) else None


# scipy.stats.norm: quantile across the three regions of Acklam's approximation (boundary 0.02425) and the far tails.
probabilities = [1e-12, 1e-8, 1e-4, 0.001, 0.01, 0.02425, 0.025, 0.05, 0.1, 0.25, 0.5, 0.6, 0.8, 0.9, 0.95, 0.975, 0.97575, 0.99, 0.995, 0.999, 0.9999, 1 - 1e-8]
out["normal_quantile"] = [[p, float(stats.norm.ppf(p))] for p in probabilities]
z_values = [-8.0, -5.0, -3.2, -1.96, -1.0, -0.1, 0.0, 0.1, 0.5, 1.0, 1.645, 1.96, 2.576, 3.5, 6.0]
out["normal_cdf"] = [[z, float(stats.norm.cdf(z))] for z in z_values]
out["normal_two_sided_p"] = [[z, float(2 * stats.norm.sf(abs(z)))] for z in z_values]

# scipy.stats.t: distribution function and quantile, 1 degree of freedom (Cauchy) to many, fractional degrees (Welch).
degrees_list = [1, 2, 3, 4.5, 5, 9, 10, 19, 29.7, 30, 100, 1000, 100000]
t_values = [-40.0, -3.0, -2.0, -0.5, 0.0, 0.25, 1.0, 2.262157, 5.0, 63.0]
out["student_t_cdf"] = [[t, k, float(stats.t.cdf(t, k))] for k in degrees_list for t in t_values]
t_probabilities = [0.0005, 0.005, 0.025, 0.05, 0.1, 0.4, 0.6, 0.9, 0.95, 0.975, 0.995, 0.9995]
out["student_t_quantile"] = [[p, k, float(stats.t.ppf(p, k))] for k in degrees_list for p in t_probabilities]

# scipy.special: log-gamma and the regularised incomplete gamma functions; scipy.stats.chi2 survival.
out["log_gamma"] = [[x, float(special.gammaln(x))] for x in [0.001, 0.1, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 7.25, 10.0, 50.5, 171.0, 1000.0, 1e6]]
gamma_points = [(0.5, 0.001), (0.5, 0.5), (0.5, 2.0), (0.5, 40.0), (1.0, 1.0), (2.5, 0.3), (2.5, 3.5), (3.0, 10.0), (10.0, 5.0), (10.0, 11.0), (10.0, 30.0), (50.0, 45.0), (100.0, 130.0)]
out["regularized_gamma"] = [[a, x, float(special.gammainc(a, x)), float(special.gammaincc(a, x))] for a, x in gamma_points]
out["chi_square_survival"] = [[x, k, float(stats.chi2.sf(x, k))] for x, k in [(0.0001, 1), (1.0, 1), (3.841459, 1), (15.0, 1), (60.0, 1), (0.5, 2), (5.991465, 2), (7.0, 3), (9.0, 10), (30.0, 10), (120.0, 50)]]

# statsmodels proportion_confint(method="wilson"): 0 and n successes, one sample, fractional successes, several levels.
wilson_inputs = [(0, 1, 0.95), (1, 1, 0.95), (0, 20, 0.95), (20, 20, 0.95), (17, 20, 0.95), (17, 20, 0.9), (17, 20, 0.99), (1, 1000, 0.95), (999, 1000, 0.95), (3.5, 10, 0.95), (0.25, 2, 0.95), (50, 100, 0.8), (5000, 10007, 0.999)]
out["wilson"] = []
for successes, count, confidence in wilson_inputs:
    lower, upper = proportion_confint(successes, count, alpha=1 - confidence, method="wilson")
    out["wilson"].append({"successes": successes, "count": count, "confidence": confidence, "lower": float(lower), "upper": float(upper)})

# scipy.stats.t.interval of a mean: two samples, all equal (zero spread: SciPy returns NaN, see README), skewed, many.
rng = np.random.default_rng(20261204)
mean_samples = [
    ("two samples", [0.0, 1.0], 0.95),
    ("1..5", [1.0, 2.0, 3.0, 4.0, 5.0], 0.95),
    ("all equal", [0.7, 0.7, 0.7, 0.7], 0.95),
    ("latencies with an outlier", [120.0, 135.5, 128.0, 4100.0, 131.25, 119.0], 0.9),
    ("pass rates 0/1", [1.0, 0.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0], 0.99),
    ("200 normal draws", [float(v) for v in rng.normal(0.82, 0.07, 200).round(6)], 0.95),
]
out["mean_interval"] = []
for name, values, confidence in mean_samples:
    array = np.array(values)
    mean = float(array.mean())
    standard_error = float(stats.sem(array))
    lower, upper = stats.t.interval(confidence, len(values) - 1, loc=mean, scale=standard_error) if standard_error > 0 else (math.nan, math.nan)
    out["mean_interval"].append({"name": name, "values": values, "confidence": confidence, "mean": mean, "lower": finite_or_none(lower), "upper": finite_or_none(upper)})

# statsmodels mcnemar(exact=True): table [[both pass, baseline only], [candidate only, both fail]].
out["exact_mcnemar"] = []
for baseline_only, candidate_only in [(0, 0), (0, 1), (1, 0), (1, 1), (3, 1), (1, 3), (0, 6), (5, 5), (2, 12), (10, 25), (40, 60), (600, 700), (700, 900)]:
    result = mcnemar([[7, baseline_only], [candidate_only, 4]], exact=True)
    out["exact_mcnemar"].append({"baseline_only": baseline_only, "candidate_only": candidate_only, "p_value": float(result.pvalue)})

# scikit-learn cohen_kappa_score, plain / linear / quadratic: rows are pairs (first rater, second rater).
kappa_inputs = [
    ("pass/fail", ["pass", "fail"], [("pass", "pass")] * 4 + [("pass", "fail")] * 2 + [("fail", "pass")] + [("fail", "fail")] * 3),
    ("ordinal buckets", ["0-0.25", "0.25-0.5", "0.5-0.75", "0.75-1"], [("0-0.25", "0-0.25"), ("0.25-0.5", "0.5-0.75"), ("0.5-0.75", "0.5-0.75"), ("0.75-1", "0.5-0.75"), ("0.75-1", "0.75-1"), ("0.25-0.5", "0.25-0.5"), ("0-0.25", "0.25-0.5"), ("0.75-1", "0.75-1"), ("0.5-0.75", "0.75-1")]),
    ("a listed category nobody used", ["1", "2", "3", "4", "5"], [("1", "1"), ("2", "3"), ("3", "3"), ("5", "5"), ("5", "3"), ("1", "2"), ("3", "2")]),
    ("perfect disagreement", ["pass", "fail"], [("pass", "fail"), ("fail", "pass")]),
    ("one item", ["pass", "fail"], [("pass", "fail")]),
    ("both raters always the same single category", ["pass", "fail"], [("pass", "pass")] * 5),
    ("Chinese labels", ["正确", "部分正确", "错误"], [("正确", "正确"), ("正确", "部分正确"), ("部分正确", "部分正确"), ("错误", "错误"), ("错误", "部分正确"), ("部分正确", "正确")]),
]
out["cohen_kappa"] = []
for name, categories, pairs in kappa_inputs:
    first = [pair[0] for pair in pairs]
    second = [pair[1] for pair in pairs]
    with np.errstate(all="ignore"):
        values = {weights or "none": finite_or_none(cohen_kappa_score(first, second, labels=categories, weights=weights)) for weights in (None, "linear", "quadratic")}
    out["cohen_kappa"].append({"name": name, "categories": categories, "pairs": [list(pair) for pair in pairs], "kappa": values["none"], "linear": values["linear"], "quadratic": values["quadratic"]})

# scikit-learn precision_score / recall_score with the positive class "unanswerable" (truth) / "abstained" (prediction):
#   abstention precision = true abstentions / abstentions, abstention recall = true abstentions / unanswerable cases;
#   over-abstention rate = abstentions on answerable cases / answerable cases = recall of the negative class's complement,
#   recorded as 1 − recall_score(pos_label=0). zero_division=nan marks an empty denominator (ragscope: not applicable).
abstention_inputs = [
    ("mixed", [(True, False)] * 3 + [(True, True)] + [(False, False)] * 2 + [(False, True)] * 6),
    ("never abstained", [(False, True)] * 2 + [(False, False)]),
    ("only unanswerable cases, all refused", [(True, False)] * 2),
    ("only answerable cases, one refused", [(True, True)] + [(False, True)] * 4),
    ("one case", [(True, False)]),
    ("no case", []),
]
out["abstention"] = []
for name, observations in abstention_inputs:
    truth = [0 if answerable else 1 for _, answerable in observations]
    predicted = [1 if abstained else 0 for abstained, _ in observations]
    def score(function, **options):
        if not observations:
            return None
        with np.errstate(all="ignore"):
            return finite_or_none(function(truth, predicted, labels=[0, 1], zero_division=np.nan, **options))
    answerable_recall = score(recall_score, pos_label=0)
    out["abstention"].append({
        "name": name,
        "observations": [{"abstained": abstained, "answerable": answerable} for abstained, answerable in observations],
        "precision": score(precision_score, pos_label=1),
        "recall": score(recall_score, pos_label=1),
        "over_abstention_rate": None if answerable_recall is None else 1 - answerable_recall,
    })

print(json.dumps(out, indent=1, ensure_ascii=False))
