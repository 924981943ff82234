"""
Records sacrebleu's sentence BLEU on pairs designed for ragscope's BLEU tests.

Reproduce (from the repository root, network access to PyPI only):

    python3 -m venv /tmp/sacrebleu-venv
    /tmp/sacrebleu-venv/bin/pip install sacrebleu==2.6.0
    /tmp/sacrebleu-venv/bin/python test/data/sacrebleu/record-sentence-bleu.py > test/data/sacrebleu/sentence-bleu.json

Every score is `sacrebleu.sentence_bleu(...)`: exp smoothing, effective order
(its defaults, and ragscope's). Two option sets, one per ragscope tokenizer:

- ragscope's default tokenizer (lower case, punctuation dropped, one token per
  CJK character, other letter/digit runs one token each) tokenises exactly as
  sacrebleu's tokenize="zh" with lowercase=True on texts WITHOUT punctuation,
  symbols or full-width forms (which "zh" keeps as tokens and ragscope drops),
  so the "ragscope" pairs have none;
- ragscope's "13a" tokenizer is sacrebleu's default tokenize="13a", case kept.

Multi-reference pairs record each reference's sentence BLEU (ragscope reports
the best of them) and sacrebleu's pooled multi-reference BLEU (clipping
against all references at once), which ragscope does not compute.
"""
import json
import sys

import sacrebleu

OPTIONS = {
    "ragscope": {"tokenize": "zh", "lowercase": True},
    "13a": {"tokenize": "13a", "lowercase": False},
}

# (id, ragscope tokenizer, hypothesis, references, why)
PAIRS = [
    ("latin-no-match", "ragscope", "abc", ["xyz"], "no n-gram of any order matches: 0"),
    ("chinese-no-match", "ragscope", "苹果", ["香蕉"], "two unrelated Chinese words: 0"),
    ("english-no-match", "ragscope", "cats sleep", ["dogs bark loudly"], "no shared word: 0"),
    ("chinese-no-match-long", "ragscope", "苹果很甜", ["退款需要审核"], "no shared character: 0"),
    ("chinese-identical", "ragscope", "退款", ["退款"], "two tokens, effective order 2: 1"),
    ("chinese-paraphrase", "ragscope", "积分会按保留金额重新计算", ["积分按实际保留金额重新计算"], "brevity penalty and all orders matching"),
    ("english-one-word-differs", "ragscope", "The Eiffel Tower is located in India", ["The Eiffel Tower is located in Paris"], "lower-cased, punctuation-free"),
    ("exp-smoothing", "ragscope", "a b x c", ["a b y c"], "orders 3 and 4 have no match: exp smoothing"),
    ("brevity-penalty", "ragscope", "a b", ["a b c d"], "short answer"),
    ("single-token-match", "ragscope", "x", ["x y z"], "effective order 1"),
    ("unigrams-only", "ragscope", "b a", ["a b"], "unigrams match, the bigram does not"),
    ("clipping", "ragscope", "the the the", ["the cat"], "a repeated word is clipped to its reference count"),
    ("chinese-with-numbers", "ragscope", "订单满199元包邮", ["自2026年7月起订单满199元包邮"], "digit runs are one token"),
    ("mixed-latin-chinese", "ragscope", "VIP会员可以免费退货", ["vip会员享受免费退货服务"], "Latin run before CJK, case folded"),
    ("mixed-model-name", "ragscope", "iPhone15手机支持退货", ["iphone15手机不支持七天无理由退货"], "letters and digits in one token"),
    ("chinese-longer-answer", "ragscope", "退款审核通过后款项会在3至5个工作日内原路退回具体到账时间以银行为准", ["退款审核通过后款项会在3至5个工作日内原路退回"], "no brevity penalty when the answer is longer"),
    ("chinese-short-answer", "ragscope", "每年5天年假", ["员工工作满一年后享有5天带薪年假"], "short answer, few matches"),
    ("13a-ragas-example", "13a", "The Eiffel Tower is located in India.", ["The Eiffel Tower is located in Paris."], "ragas' published 0.7071067811865478"),
    ("13a-numbers-and-symbols", "13a", "It costs $3.50, about 1,000 (approx.)", ["It costs $3.50 , roughly 1,000."], "13a keeps 3.50 and 1,000, splits $ , ( ) ."),
    ("13a-punctuation-only-differs", "13a", "Hello.", ["Goodbye!"], "no token in common: 0"),
    ("13a-case-sensitive", "13a", "paris", ["Paris"], "13a keeps case: 0"),
    ("13a-truncated-answer", "13a", "Unopened items can be returned within 30 days.", ["Unopened items can be returned within 30 days of delivery for a full refund."], "brevity penalty"),
    ("multi-reference-chinese", "ragscope", "退款3至5个工作日到账", ["退款审核通过后款项3至5个工作日内退回", "3至5个工作日到账"], "best single reference"),
    ("multi-reference-english", "ragscope", "returns are accepted within 30 days", ["you can return items within 30 days", "returns are accepted for a full refund"], "pooled BLEU exceeds the best single reference"),
]


def main() -> None:
    cases = []
    for case_id, tokenizer, hypothesis, references, why in PAIRS:
        options = OPTIONS[tokenizer]
        per_reference = [sacrebleu.sentence_bleu(hypothesis, [reference], **options).score for reference in references]
        case = {
            "id": case_id,
            "tokenizer": tokenizer,
            "sacrebleu_options": options,
            "hypothesis": hypothesis,
            "references": references,
            "why": why,
            "sacrebleu_score_per_reference": per_reference,
        }
        if len(references) > 1:
            case["sacrebleu_pooled_multi_reference_score"] = sacrebleu.sentence_bleu(hypothesis, references, **options).score
        cases.append(case)
    json.dump(
        {
            "produced_by": "test/data/sacrebleu/record-sentence-bleu.py (see its docstring for the exact command)",
            "sacrebleu_version": sacrebleu.__version__,
            "call": "sacrebleu.sentence_bleu(hypothesis, [reference], smooth_method='exp', use_effective_order=True, **sacrebleu_options); score is in [0, 100]",
            "cases": cases,
        },
        sys.stdout,
        ensure_ascii=False,
        indent=2,
    )
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
