# Expected BERTScore-style greedy token matching (Zhang et al. 2020, eq. for
# P_BERT, R_BERT, F_BERT without idf weighting or baseline rescaling) for
# test/unit/evaluators/greedy-token-matching.test.ts, computed with NumPy
# (an implementation independent of ragscope's): cosine similarity matrix of
# L2-normalised token vectors, precision = mean over candidate tokens of the
# best reference match, recall = mean over reference tokens of the best
# candidate match, F1 = harmonic mean.
# Run: python3 test/data/embeddings/greedy-token-matching-reference.py > test/data/embeddings/greedy-token-matching-reference.json
import json
import numpy as np

rng = np.random.default_rng(20261201)
round6 = lambda matrix: np.round(matrix, 6)
candidate = round6(rng.normal(size=(5, 8)))
# The first reference shares two of the candidate's tokens (one of them twice) plus noise.
reference_close = round6(np.vstack([candidate[1], candidate[3] * 2.5, candidate[3], rng.normal(size=(4, 8))]))
reference_far = round6(rng.normal(size=(3, 8)))


def greedy(candidate, reference):
    c = candidate / np.linalg.norm(candidate, axis=1, keepdims=True)
    r = reference / np.linalg.norm(reference, axis=1, keepdims=True)
    similarity = c @ r.T
    precision = float(similarity.max(axis=1).mean())
    recall = float(similarity.max(axis=0).mean())
    f1 = 2 * precision * recall / (precision + recall)
    return {"precision": precision, "recall": recall, "f1": f1}


print(json.dumps({
    "numpy_version": np.__version__,
    "candidate": candidate.tolist(),
    "references": {"close": reference_close.tolist(), "far": reference_far.tolist()},
    "expected": {"close": greedy(candidate, reference_close), "far": greedy(candidate, reference_far)},
}, indent=2))
