"""
Records nltk's sentence-level word tokenizer (NLTKWordTokenizer.tokenize, what
nltk.word_tokenize applies to each sentence) on designed texts, for
treebank-word-tokenize.ts. Reproduce from the repository root:

    python3 -m venv /tmp/nltk-venv
    /tmp/nltk-venv/bin/pip install nltk==3.10.4
    /tmp/nltk-venv/bin/python test/data/nltk/record-word-tokenize.py > test/data/nltk/word-tokenize.json

No nltk data download is needed: this tokenizer is rules only.
"""
import json
import sys

import nltk
from nltk.tokenize import NLTKWordTokenizer

TEXTS = [
    "Good muffins cost $3.88 (roughly 3,36 euros) in New York.",
    "don't know",
    "China's capital",
    '"Hello," she said.',
    "I cannot go, gonna wanna stay",
    "'tis the season",
    "a--b ... c? d! e*f",
    "it's 20.0% of 1,000: yes",
    "'quoted' text",
    "‘量子’",
    "end.\n",
    "x,\n",
    "«word» “hi” 'em",
    "can't won't they'll we're I've",
    "see [1] {a} <b>",
    "price: $5.00; total#1 @home & co",
    "2012–2015 — ok",
    "he said ''yes''",
    "O'Neil's dog",
    "(ISO)",
    "a. b",
    "version 2.0.1, build 7",
    "e-mail: a@b.com",
    "５G　基站",
]

tokenizer = NLTKWordTokenizer()
json.dump(
    {
        "produced_by": "test/data/nltk/record-word-tokenize.py (see its docstring for the exact command)",
        "nltk_version": nltk.__version__,
        "cases": [{"text": text, "tokens": tokenizer.tokenize(text)} for text in TEXTS],
    },
    sys.stdout,
    ensure_ascii=False,
    indent=2,
)
sys.stdout.write("\n")
