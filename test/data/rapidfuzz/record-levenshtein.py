"""
Records RapidFuzz's Levenshtein distance and normalised similarity on designed
pairs for ragscope's levenshteinDistance / levenshteinSimilarity
(evaluators/text/levenshtein-similarity.ts), the formula ragas'
NonLLMStringSimilarity uses: 1 − distance / length of the longer sequence.

Reproduce from the repository root (network access to PyPI only):

    python3 -m venv /tmp/references-venv
    /tmp/references-venv/bin/pip install rapidfuzz==3.14.6
    /tmp/references-venv/bin/python test/data/rapidfuzz/record-levenshtein.py > test/data/rapidfuzz/levenshtein.json

"distance" is Levenshtein.distance over the two strings as given, code point by
code point (Python strings, like ragscope's Array.from): an emoji outside the
BMP is one unit. "similarity" is
Levenshtein.normalized_similarity of the texts as given: ragscope's
levenshteinSimilarity in mode "raw" (ragas' comparison). Its default mode first
normalises both texts (lower case, punctuation dropped); the test compares that
mode too on the pairs that normalisation leaves unchanged.
"""
import json
from importlib.metadata import version

from rapidfuzz.distance import Levenshtein

DISTANCE_PAIRS = [
    ("积分会扣回", "积分不会扣回"),
    ("a😀b", "ab"),
    ("", "abc"),
    ("", ""),
    ("kitten", "sitting"),
    ("flaw", "lawn"),
    ("退款三到五个工作日到账", "退款三至五个工作日内到账"),
    ("abcdef", "fedcba"),
    ("aaaa", "aa"),
    ("𠀀𠀁", "𠀁𠀀"),
]
SIMILARITY_PAIRS = [
    ("The Eiffel Tower is located in India.", "The Eiffel Tower is located in Paris."),
    ("积分，会扣回。", "积分不会扣回"),
    ("the eiffel tower is located in india", "the eiffel tower is located in paris"),
    ("积分会扣回", "积分不会扣回"),
    ("refunds arrive within 7 days", "refunds arrive within 7 days"),
    ("abc", "xyz"),
    ("a", "ab"),
]

print(json.dumps({
    "rapidfuzz_version": version("rapidfuzz"),
    "distance": [{"first": first, "second": second, "distance": Levenshtein.distance(first, second)} for first, second in DISTANCE_PAIRS],
    "similarity": [{"answer": answer, "reference": reference, "similarity": Levenshtein.normalized_similarity(answer, reference)} for answer, reference in SIMILARITY_PAIRS],
}, indent=1, ensure_ascii=False))
