"""
Runs the official CMRC 2018 scorer on answer pairs designed for ragscope's
cmrc_f1 / cmrc_exact_match tests and prints what it computes, as JSON.

The scorer is not part of this repository. It is `baseline/cmrc2018_evaluate.py`
(v6, "compatible for both original and SQuAD-style CMRC 2018 datasets, support
python3") of github.com/ymcui/cmrc2018 at commit
c0eb1b6ba219847457e6af3180da722bbeb656af (see the "scorer_commit" field of the
output for the commit actually used). Reproduce from the repository root:

    git clone https://github.com/ymcui/cmrc2018 /tmp/cmrc2018   # any snapshot of that commit
    python3 -m venv /tmp/cmrc-venv
    /tmp/cmrc-venv/bin/pip install nltk==3.10.4
    /tmp/cmrc-venv/bin/python test/data/cmrc2018/record-official-scores.py \
        /tmp/cmrc2018/baseline/cmrc2018_evaluate.py <scorer commit> > test/data/cmrc2018/official-scores.json

For every pair it calls the scorer's own functions: calc_f1_score(answers,
prediction), calc_em_score(answers, prediction) and mixed_segmentation(text,
rm_punc=True); then it runs the scorer's command line on all pairs as one
SQuAD-style dataset and records the F1 / EM it prints.

nltk's punkt sentence model is a download (not on PyPI), so it is not
installed. The scorer calls nltk.word_tokenize, which first splits a text into
sentences with punkt and then applies nltk's Treebank word tokenizer to each.
Punkt only ever splits after ".", "?" or "!" followed by white space and a
token or by one of  ) " ; } ] * : @ ' ( { [ ! ?  — so this script replaces the
sentence splitter by one that returns the text whole and REFUSES (raises) any
text holding such a place. Every recorded value is therefore what the scorer
computes with any punkt model; pairs whose result would depend on punkt cannot
be recorded.
"""
import json
import os
import re
import runpy
import subprocess
import sys
import tempfile

import nltk
import nltk.tokenize

POSSIBLE_SENTENCE_BREAK = re.compile(r"[.?!](?=[)\";}\]*:@'({\[!?]|\s+\S)")


class WholeTextUnlessAmbiguous:
    def tokenize(self, text):
        if POSSIBLE_SENTENCE_BREAK.search(text):
            raise ValueError(f"punkt could split {text!r}: its result depends on the punkt model, choose another pair")
        return [text]


nltk.tokenize._get_punkt_tokenizer = lambda language="english": WholeTextUnlessAmbiguous()

# (id, prediction, reference answers, what it exercises)
PAIRS = [
    ("exact", "北京", ["北京"], "identical Chinese"),
    ("chinese-punctuation-removed", "北京。", ["北京"], "。 is removed before scoring"),
    ("book-title-marks", "《红楼梦》", ["红楼梦"], "《》 are removed"),
    ("curly-quotes", "“人工智能”", ["人工智能"], "“” are removed"),
    ("longer-prediction", "位于北京市海淀区", ["北京市"], "answer inside the prediction"),
    ("shorter-prediction", "海淀区", ["北京市海淀区"], "prediction inside the answer"),
    ("substring-not-bag", "京北", ["北京"], "same characters, reversed: longest common substring 1"),
    ("gap-in-the-middle", "北京的海淀区", ["北京海淀区"], "common substring stops at 的"),
    ("no-overlap", "上海", ["北京"], "nothing in common"),
    ("empty-prediction", "", ["北京"], "empty prediction"),
    ("decimal-percent", "约20.0%", ["20.0%"], "20.0 stays one token, % is a token"),
    ("decimal-different", "20.5%", ["20.0%"], "20.5 and 20.0 are different tokens"),
    ("thousands", "1,000万元", ["1000万元"], "1,000 is one token and differs from 1000"),
    ("hundred-million", "3.5亿元", ["3.5亿"], "3.5 one token"),
    ("year-vs-date", "1933年", ["1933年9月1日"], "bare year against a full date"),
    ("date-vs-year", "1933年9月1日", ["1933年"], "full date against a bare year"),
    ("time-colon-removed", "晚上20:30", ["20:30"], ": is removed, so 20:30 becomes 2030"),
    ("hyphen-removed", "COVID-19疫情", ["covid19疫情"], "- is removed and case folded"),
    ("english-words", "iPhone 15 Pro", ["苹果iPhone 15 Pro手机"], "English run split by nltk"),
    ("english-case", "NBA总决赛", ["nba总决赛"], "lower-cased"),
    ("english-trailing-period", "Beijing.", ["Beijing"], "nltk splits the final period off"),
    ("english-comma", "Paris, France", ["Paris"], "comma is a token"),
    ("contraction", "don't know", ["do not know"], "nltk splits n't"),
    ("possessive", "China's capital", ["China capital"], "nltk splits 's"),
    ("parentheses", "国际标准化组织(ISO)", ["国际标准化组织"], "ASCII parentheses are kept as tokens"),
    ("chinese-parentheses", "国际标准化组织（ISO）", ["国际标准化组织"], "（） are removed"),
    ("full-width-digits", "２０１８年", ["2018年"], "full-width digits are not folded"),
    ("ling-digit", "二〇一八年", ["二零一八年"], "〇 is outside the CJK range the scorer splits"),
    ("ellipsis", "等等……", ["等等"], "…… is not removed (its list entry is two characters)"),
    ("question-mark-end", "为什么?", ["为什么"], "ASCII ? at the end is a token"),
    ("spaces-between-chinese", "北 京", ["北京"], "spaces between Chinese characters do not count for F1"),
    ("multiple-answers-best", "国务院总理", ["国务院", "中华人民共和国国务院总理", "总理"], "best of three answers"),
    ("multiple-answers-exact", "总理", ["国务院总理", "总理"], "one answer matches exactly"),
    ("multiple-answers-none", "上海", ["北京", "北京市"], "no answer overlaps"),
    ("mixed-long", "截至2020年底，全国共有5G基站71.8万个。", ["71.8万个"], "long sentence with numbers"),
    ("em-punctuation-only", "北京，", ["北京"], "，removed for EM too"),
    ("em-space-differs", "北 京", ["北京"], "EM keeps spaces"),
    ("em-ascii-period-differs", "北京.", ["北京"], "EM keeps the ASCII period"),
    ("repeated-characters", "哈哈哈", ["哈哈"], "repeats: substring of length 2"),
    ("left-single-quote", "‘量子’计算", ["量子计算"], "‘ is kept (only ’ is in the list)"),
]


def main(scorer_path: str, scorer_commit: str) -> None:
    official = runpy.run_path(scorer_path)
    cases = []
    for case_id, prediction, answers, why in PAIRS:
        cases.append(
            {
                "id": case_id,
                "prediction": prediction,
                "answers": answers,
                "why": why,
                "official_f1": official["calc_f1_score"](answers, prediction),
                "official_em": official["calc_em_score"](answers, prediction),
                "official_prediction_segments": official["mixed_segmentation"](prediction, rm_punc=True),
                "official_answer_segments": [official["mixed_segmentation"](answer, rm_punc=True) for answer in answers],
            }
        )
    with tempfile.TemporaryDirectory() as directory:
        dataset = {"data": [{"paragraphs": [{"qas": [{"id": case["id"], "question": "", "answers": [{"text": answer} for answer in case["answers"]]} for case in cases]}]}]}
        predictions = {case["id"]: case["prediction"] for case in cases}
        dataset_file = os.path.join(directory, "dataset.json")
        prediction_file = os.path.join(directory, "predictions.json")
        with open(dataset_file, "w", encoding="utf-8") as handle:
            json.dump(dataset, handle, ensure_ascii=False)
        with open(prediction_file, "w", encoding="utf-8") as handle:
            json.dump(predictions, handle, ensure_ascii=False)
        # The scorer's command line, through this script so the sentence splitter is replaced there too.
        command_line = [sys.executable, os.path.abspath(__file__), "--scorer-command-line", scorer_path, dataset_file, prediction_file]
        printed = subprocess.run(command_line, check=True, capture_output=True, text=True).stdout.strip()
    overall = json.loads(printed)
    overall.pop("FILE", None)
    json.dump(
        {
            "produced_by": "test/data/cmrc2018/record-official-scores.py (see its docstring for the exact command)",
            "scorer": "github.com/ymcui/cmrc2018 baseline/cmrc2018_evaluate.py (v6)",
            "scorer_commit": scorer_commit,
            "nltk_version": nltk.__version__,
            "python_version": sys.version.split()[0],
            "scorer_command_line_output": overall,
            "cases": cases,
        },
        sys.stdout,
        ensure_ascii=False,
        indent=2,
    )
    sys.stdout.write("\n")


def run_scorer_command_line(scorer_path: str, dataset_file: str, prediction_file: str) -> None:
    """The scorer's __main__, with the sentence splitter replaced as above."""
    sys.argv = [scorer_path, dataset_file, prediction_file]
    runpy.run_path(scorer_path, run_name="__main__")


if __name__ == "__main__":
    if sys.argv[1] == "--scorer-command-line":
        run_scorer_command_line(*sys.argv[2:5])
    else:
        main(sys.argv[1], sys.argv[2])
