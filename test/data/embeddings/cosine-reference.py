# Expected cosine similarities for test/integration/judge/embedding-similarity.test.ts,
# computed by SciPy (an implementation independent of ragscope's).
# Run: python3 test/data/embeddings/cosine-reference.py > test/data/embeddings/cosine-reference.json
import json
import scipy
from scipy.spatial.distance import cosine

vectors = {
    "answer": [0.12, -0.5, 0.33, 0.9],
    "reference_close": [0.1, -0.45, 0.4, 0.8],
    "reference_far": [-0.7, 0.2, 0.05, -0.1],
}
print(json.dumps({
    "scipy_version": scipy.__version__,
    "vectors": vectors,
    "similarity": {name: 1 - cosine(vectors["answer"], vector) for name, vector in vectors.items() if name != "answer"},
}, indent=2))
