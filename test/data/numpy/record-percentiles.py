"""
Records NumPy's nearest-rank percentiles (numpy.percentile with
method="inverted_cdf", Hyndman & Fan definition 1: the smallest observed value
whose empirical CDF reaches P/100) on designed value lists, for ragscope's
nearest-rank percentile (evaluators/aggregate/percentile.ts: P50/P95/P99
latency, the gate file's pNN_<metric> forms).

Reproduce from the repository root (network access to PyPI only):

    python3 -m venv /tmp/references-venv
    /tmp/references-venv/bin/pip install numpy==2.4.6
    /tmp/references-venv/bin/python test/data/numpy/record-percentiles.py > test/data/numpy/percentiles.json

It also records numpy.quantile(values, q, method="linear") (NumPy's default,
Hyndman & Fan definition 7), the quantile the paired bootstrap of
`ragscope experiment compare` reads its interval from
(experiments/compare/paired-bootstrap.ts).

Beside NumPy's value every case records the value of the definition computed
in exact rational arithmetic (fractions.Fraction): rank ceil(P * n / 100),
1-based, of the ascending order. NumPy divides P by 100 in floating point
first, and 0.07 * 100 is 7.000000000000001 in binary, so for a few (P, n) NumPy
returns the next value up (P7 of 1..100 is 8 there, 7 by the definition).
Those cases carry "numpy_differs_from_definition": true; README.md says why
ragscope follows the definition there.
"""
import json
import math
from fractions import Fraction

import numpy as np

one_to_twenty = list(range(1, 21))
one_to_hundred = list(range(1, 101))
CASES = [
    ("single value", [42.0], [1, 50, 95, 99, 100]),
    ("all equal", [5.0] * 7, [1, 50, 95, 99, 100]),
    ("ties around the median", [1.0, 2.0, 2.0, 2.0, 3.0, 9.0], [1, 33, 34, 50, 51, 67, 84, 95, 99, 100]),
    ("four values: P50 is the 2nd, not an average", [10.0, 20.0, 30.0, 40.0], [25, 50, 51, 75, 95, 99, 100]),
    ("1..20: P95 is the 19th", one_to_twenty, [1, 5, 10, 50, 90, 95, 99, 100]),
    ("unsorted latencies with a large outlier", [812.0, 95.5, 120.25, 130.0, 4999.0, 101.0, 99.0, 250.0, 130.0], [50, 90, 95, 99]),
    ("negative and fractional values", [-3.5, -0.25, 0.0, 0.125, 7.75], [1, 20, 21, 40, 41, 50, 99]),
    ("1..100: every integer percentile", one_to_hundred, list(range(1, 101))),
    ("1..50: every integer percentile", list(range(1, 51)), list(range(1, 101))),
    ("1..300, the percentiles whose P/100 is inexact in binary", list(range(1, 301)), [7, 14, 28, 29, 55, 56, 57, 58]),
]


def definition(sorted_values, percentile):
    rank = math.ceil(Fraction(percentile) * len(sorted_values) / 100)
    return sorted_values[max(rank, 1) - 1]


cases = []
for name, values, percentiles in CASES:
    sorted_values = sorted(values)
    results = []
    for percentile in percentiles:
        numpy_value = float(np.percentile(np.array(values, dtype=float), percentile, method="inverted_cdf"))
        exact = float(definition(sorted_values, percentile))
        entry = {"percentile": percentile, "numpy": numpy_value, "definition": exact}
        if numpy_value != exact:
            entry["numpy_differs_from_definition"] = True
        results.append(entry)
    cases.append({"name": name, "values": values, "results": results})

LINEAR_PROBABILITIES = [0.0, 0.025, 0.05, 0.25, 0.5, 0.75, 0.95, 0.975, 1.0]
LINEAR_CASES = [
    ("single value", [0.3]),
    ("all equal", [-0.5] * 5),
    ("two values", [0.0, 1.0]),
    ("ties", [0.0, 0.0, 0.0, 1.0, 1.0, 2.0]),
    ("bootstrap-like differences", [-0.0625, 0.125, -0.1875, 0.03125, 0.25, 0.0, -0.03125, 0.0625, 0.1875, -0.125, 0.09375]),
]
linear = [
    {"name": name, "values": values, "results": [{"probability": q, "numpy": float(np.quantile(np.array(values, dtype=float), q, method="linear"))} for q in LINEAR_PROBABILITIES]}
    for name, values in LINEAR_CASES
]

print(json.dumps({"numpy_version": np.__version__, "method": "inverted_cdf", "cases": cases, "linear": linear}, indent=1))
