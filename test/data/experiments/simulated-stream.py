"""
A simulated online experiment for the acceptance test of `ragscope experiment
report` (test/e2e/behaviour/experiment-report.test.ts): the requests, who made
them, which variant they saw and what the users did, drawn with known true
rates — and the expected statistics on the drawn data from statsmodels and
SciPy, computed here, independently of ragscope.

Produced with:
    pip install scipy==1.17.1 statsmodels==0.15.0
    python3 test/data/experiments/simulated-stream.py > test/data/experiments/simulated-stream.json

Variant assignment is recomputed here from its definition (instrumentation/
experiments/assign-variant.ts): the first 52 bits of SHA-256("<experiment>:<user>")
over 2^52, below 0.5 → control; the test checks the SDK's assignVariant agrees.

Two streams:
- "clustered": 500 users, each with 1–7 requests in one session; each user
  has a propensity around the variant's true rate, so requests of one user are
  correlated and the right analysis clusters by user (OLS with cluster-robust
  CR0 errors == ragscope's clustered delta method).
- "srm": 1000 users with one request each; 30 % of the treatment users' traffic
  is lost (a logging bug), a sample ratio mismatch the report must flag.
  One request per unit: two-proportion z test (proportions_ztest) and Wald
  interval (confint_proportions_2indep).
"""
import hashlib
import json

import numpy as np

SEED = 2
import statsmodels.api as sm
from scipy import stats
from statsmodels.stats.proportion import confint_proportions_2indep, proportions_ztest

# The seed is one whose 95 % intervals of the clustered stream all cover the true
# differences (as each does for 95 % of seeds), so the test can check them against the truth.
import sys
rng = np.random.default_rng(int(sys.argv[1]) if len(sys.argv) > 1 else SEED)
TRUE = {
    "like": {"control": 0.30, "treatment": 0.45},
    "handoff": {"control": 0.15, "treatment": 0.35},
    "copy": {"control": 0.20, "treatment": 0.20},
}
METRIC = {"like": "like_rate", "handoff": "handoff_rate", "copy": "copy_rate"}


def variant_of(experiment, user):
    digest = hashlib.sha256(f"{experiment}:{user}".encode()).digest()
    bucket = (int.from_bytes(digest[:8], "big") >> 12) / 2**52
    return "control" if bucket < 0.5 else "treatment"


def clustered_expected(requests):
    expected = {}
    arms = np.array([1.0 if r["variant"] == "treatment" else 0.0 for r in requests])
    _, groups = np.unique([r["user"] for r in requests], return_inverse=True)
    for event, metric in METRIC.items():
        values = np.array([float(r[event]) for r in requests])
        fit = sm.OLS(values, sm.add_constant(arms)).fit(cov_type="cluster", cov_kwds={"groups": groups, "use_correction": False}, use_t=False)
        low, high = fit.conf_int(alpha=0.05)[1]
        expected[metric] = {"difference": float(fit.params[1]), "lower": float(low), "upper": float(high), "p_value": float(fit.pvalues[1])}
    return expected


def independent_expected(requests):
    expected = {}
    for event, metric in METRIC.items():
        control = [r[event] for r in requests if r["variant"] == "control"]
        treatment = [r[event] for r in requests if r["variant"] == "treatment"]
        _, p = proportions_ztest([sum(treatment), sum(control)], [len(treatment), len(control)])
        low, high = confint_proportions_2indep(sum(treatment), len(treatment), sum(control), len(control), method="wald", compare="diff")
        expected[metric] = {"difference": sum(treatment) / len(treatment) - sum(control) / len(control), "lower": float(low), "upper": float(high), "p_value": float(p)}
    return expected


def draw(experiment, users, requests_per_user, concentration, drop_treatment):
    requests = []
    for index in range(users):
        user = f"{experiment}-user-{index}"
        variant = variant_of(experiment, user)
        if variant == "treatment" and rng.random() < drop_treatment:
            continue
        # Beta(m·κ, (1 − m)·κ) has mean m exactly: the true request-level rate stays m, users differ around it.
        propensity = {event: float(rng.beta(TRUE[event][variant] * concentration, (1 - TRUE[event][variant]) * concentration)) if concentration else TRUE[event][variant] for event in TRUE}
        for _ in range(int(rng.integers(requests_per_user[0], requests_per_user[1] + 1))):
            requests.append({"user": user, "variant": variant, **{event: int(rng.random() < propensity[event]) for event in TRUE}})
    return requests


out = {"seed": SEED if len(sys.argv) < 2 else int(sys.argv[1]), "true_rates": {METRIC[event]: rates for event, rates in TRUE.items()}}
clustered = draw("exp-clustered", 500, (1, 7), 4.0, 0.0)
out["clustered"] = {"experiment": "exp-clustered", "requests": clustered, "expected": clustered_expected(clustered)}
srm = draw("exp-srm", 1000, (1, 1), None, 0.3)
units = [sum(1 for r in srm if r["variant"] == v) for v in ("control", "treatment")]
chi = stats.chisquare(units)
out["srm"] = {"experiment": "exp-srm", "requests": srm, "expected": independent_expected(srm), "units": units, "chi_square": float(chi.statistic), "srm_p_value": float(chi.pvalue)}
print(json.dumps(out))
