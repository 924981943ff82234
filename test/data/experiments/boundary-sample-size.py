"""
Independent reference values for the experiment report's sample sizes when
the control sits at a bound — a rate of exactly 0 or 1, a numeric metric with
the same value in every control request — and for the two-proportion test on
such arms, computed with statsmodels.

Produced with:
    python3 -m venv /tmp/refenv && /tmp/refenv/bin/pip install statsmodels==0.15.0 scipy==1.17.1
    /tmp/refenv/bin/python test/data/experiments/boundary-sample-size.py > test/data/experiments/boundary-sample-size.json

Rate: the alternative is the control's rate moved by the change towards the
inside of [0, 1] (up, unless that passes 1); the effect size is the change
over sqrt(p(1-p)) at the mean rate p of the two arms under that alternative,
solved by NormalIndPower (equal arms, two-sided). Mean: the effect size is
the change over the standard deviation given.
"""
import json
import math

import scipy
import statsmodels
from statsmodels.stats.power import NormalIndPower
from statsmodels.stats.proportion import proportions_ztest

out = {"scipy": scipy.__version__, "statsmodels": statsmodels.__version__}

out["rate"] = []
for baseline, change, alpha, power in [(1.0, 0.1, 0.05, 0.8), (0.0, 0.1, 0.05, 0.8), (0.95, 0.095, 0.05, 0.8), (1.0, 0.5, 0.05, 0.8), (0.3, 0.03, 0.05, 0.8)]:
    alternative = baseline + change if baseline + change <= 1 else baseline - change
    mean_rate = (baseline + alternative) / 2
    effect = change / math.sqrt(mean_rate * (1 - mean_rate))
    size = NormalIndPower().solve_power(effect_size=effect, alpha=alpha, power=power, ratio=1.0, alternative="two-sided")
    out["rate"].append({"baseline": baseline, "change": change, "alpha": alpha, "power": power, "alternative": alternative, "per_arm": float(size)})

out["mean"] = []
for standard_deviation, change, alpha, power in [(12.0, 20.0, 0.05, 0.8), (3.5, 1.0, 0.05, 0.9)]:
    size = NormalIndPower().solve_power(effect_size=change / standard_deviation, alpha=alpha, power=power, ratio=1.0, alternative="two-sided")
    out["mean"].append({"standard_deviation": standard_deviation, "change": change, "alpha": alpha, "power": power, "per_arm": float(size)})

# A validity rate of 1 in all 30 control requests and 0 in all 30 treatment requests.
z, p = proportions_ztest([0, 30], [30, 30], alternative="two-sided")
out["all_to_none"] = {"control": [30, 30], "variant": [0, 30], "z": float(z), "p_value": float(p)}

print(json.dumps(out, indent=1))
