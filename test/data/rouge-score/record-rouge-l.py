"""
Records Google's rouge-score `rougeL` (sentence-level LCS over the whole text,
not rougeLsum) on pairs designed for ragscope's ROUGE-L
(evaluators/text/rouge-l.ts, the `rouge_l` metric).

Reproduce from the repository root (network access to PyPI only):

    python3 -m venv /tmp/references-venv
    /tmp/references-venv/bin/pip install rouge-score==0.1.2
    /tmp/references-venv/bin/python test/data/rouge-score/record-rouge-l.py > test/data/rouge-score/rouge-l.json

Two tokenizer set-ups, both with use_stemmer=False (ragscope does not stem):

- "default": rouge-score's own tokenizer (lower case, every character outside
  [a-z0-9] a separator). On ASCII text it splits exactly as ragscope's
  normalizeText tokens do, so these pairs are pure ASCII.
- "cjk": rouge-score's default tokenizer drops every non-ASCII character
  (Chinese scores 0 there), so these pairs pass rouge-score a tokenizer with the
  rule ragscope documents for CJK text (normalize-text.ts): one token per Han
  character, a run of ASCII letters or digits one token, punctuation dropped.
  The LCS and the scores are rouge-score's. The pairs keep to Han characters,
  ASCII letters and digits, spaces and CJK or ASCII punctuation, for which that
  rule needs no Unicode tables.

rouge-score scores an empty side as 0; ragscope scores an empty answer 0 too
but an empty reference "not applicable" (nothing to compare against), see
README.md.
"""
import json
import re
from importlib.metadata import version

from rouge_score import rouge_scorer


class CjkTokenizer:
    """One token per Han character, a lower-cased run of ASCII letters/digits one token."""

    TOKEN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]|[a-z0-9]+")

    def tokenize(self, text):
        return self.TOKEN.findall(text.lower())


PAIRS = {
    "default": [
        ("ragas example", "The Eiffel Tower is located in India.", "The Eiffel Tower is located in Paris."),
        ("identical", "refunds arrive within 7 days", "refunds arrive within 7 days"),
        ("reversed order: LCS 1", "b a", "a b"),
        ("repeated tokens", "the the the cat", "the cat sat on the mat"),
        ("two LCS of the same length", "a b c d", "c d a b"),
        ("no common token", "xyz", "abc"),
        ("case and punctuation only differ", "Points EXPIRE, after 12 months!", "points expire after 12 months"),
        ("hyphen, apostrophe, underscore split words", "don't re-issue e_invoice", "do not reissue e invoice"),
        ("long answer, short reference", "the refund goes back to the original card in three to five working days after approval", "refund to the original card"),
        ("single token each, equal", "yes", "Yes."),
        ("empty answer", "", "points expire after 12 months"),
        ("answer of punctuation only", "?!", "points expire"),
    ],
    "cjk": [
        ("Chinese, one character differs", "积分会按实际保留金额重新计算", "积分按实际保留金额重新计算"),
        ("Chinese with punctuation", "员工满一年后，享有5天带薪年假。", "员工连续工作满12个月后，每年享有5天带薪年假。"),
        ("Chinese reversed", "京北", "北京"),
        ("mixed scripts", "VIP会员每月返还200积分", "vip 会员每个月可返还 200 积分"),
        ("Chinese repeated characters", "好好好", "好的好"),
        ("Chinese no overlap", "退款", "积分"),
        ("Chinese empty answer", "", "退款三到五个工作日到账"),
    ],
}

scorers = {
    "default": rouge_scorer.RougeScorer(["rougeL"], use_stemmer=False),
    "cjk": rouge_scorer.RougeScorer(["rougeL"], use_stemmer=False, tokenizer=CjkTokenizer()),
}
cases = []
for tokenizer, pairs in PAIRS.items():
    for name, answer, reference in pairs:
        # score(target, prediction): the reference is the target.
        score = scorers[tokenizer].score(reference, answer)["rougeL"]
        cases.append({"name": name, "tokenizer": tokenizer, "answer": answer, "reference": reference, "precision": score.precision, "recall": score.recall, "fmeasure": score.fmeasure})

print(json.dumps({"rouge_score_version": version("rouge-score"), "cases": cases}, indent=1, ensure_ascii=False))
