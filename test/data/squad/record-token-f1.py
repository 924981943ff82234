"""
Records the SQuAD v2.0 official scorer's compute_f1 / compute_exact (as shipped
in transformers' transformers/data/metrics/squad_metrics.py, a copy of the
official evaluate-v2.0.py functions) on pairs designed for ragscope's token_f1
and exact_match (evaluators/text/token-f1.ts, exact-match.ts).

Reproduce from the repository root (network access to PyPI only; transformers
dropped these functions in 5.0, and no PyTorch is needed):

    python3 -m venv /tmp/references-squad-venv
    /tmp/references-squad-venv/bin/pip install transformers==4.46.3
    /tmp/references-squad-venv/bin/python test/data/squad/record-token-f1.py > test/data/squad/token-f1.json

Tokenisation. SQuAD lower-cases, deletes ASCII punctuation (without splitting
there), deletes the articles a/an/the and splits on white space; ragscope
(normalize-text.ts) lower-cases, turns every punctuation or symbol into a
separator, keeps articles and gives each CJK character its own token. The two
agree on the "ascii" pairs below, which have no article and no punctuation
inside a word, so those go to SQuAD as they are. For the "cjk" pairs SQuAD's
whitespace split would make a whole Chinese sentence one token, so this script
first applies ragscope's documented CJK rule with a regular expression (one
token per Han character, a run of ASCII letters/digits one token, punctuation
dropped) and passes the tokens joined by spaces; the F1 / EM arithmetic stays
SQuAD's. README.md lists where the conventions differ.
"""
import json
import re
from importlib.metadata import version

from transformers.data.metrics.squad_metrics import compute_exact, compute_f1

CJK_TOKEN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]|[a-z0-9]+")

PAIRS = {
    "ascii": [
        ("identical", "refunds arrive within 7 days", "refunds arrive within 7 days"),
        ("case and end punctuation", "Points expire after 12 months!", "points expire after 12 months."),
        ("repeated answer tokens: multiset overlap", "cat cat cat", "cat sat"),
        ("order does not count", "days 7 within arrive refunds", "refunds arrive within 7 days"),
        ("partial overlap", "refund within 7 working days", "refunds arrive within 7 days"),
        ("no overlap", "yes", "no"),
        ("answer of punctuation only", "?!", "points expire"),
        ("both empty after normalisation (SQuAD v2: 1)", "...", "?"),
        ("empty answer", "", "points expire"),
    ],
    "cjk": [
        ("Chinese, one extra character", "积分会按实际保留金额重新计算。", "积分按实际保留金额重新计算"),
        ("Chinese reversed: a bag of tokens", "京北", "北京"),
        ("Chinese repeated characters", "好好好", "好的"),
        ("mixed scripts", "VIP会员每月返还200积分", "vip 会员每个月可返还 200 积分"),
        ("Chinese with full-width punctuation", "员工满一年后，享有5天带薪年假。", "员工连续工作满12个月后，每年享有5天带薪年假。"),
        ("Chinese no overlap", "退款", "积分"),
        ("Chinese answer of punctuation only", "。？", "退款三到五个工作日到账"),
    ],
}


def cjk_tokens_joined(text):
    return " ".join(CJK_TOKEN.findall(text.lower()))


cases = []
for tokenizer, pairs in PAIRS.items():
    for name, answer, reference in pairs:
        gold, prediction = (reference, answer) if tokenizer == "ascii" else (cjk_tokens_joined(reference), cjk_tokens_joined(answer))
        cases.append({"name": name, "tokenizer": tokenizer, "answer": answer, "reference": reference, "f1": float(compute_f1(gold, prediction)), "exact": int(compute_exact(gold, prediction))})

print(json.dumps({"transformers_version": version("transformers"), "cases": cases}, indent=1, ensure_ascii=False))
