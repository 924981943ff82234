#!/bin/sh
# Records how trec_eval 10.0 treats a run that names the same document twice for
# one query, beside the same run without the repeat: its set_P (relevant
# retrieved / retrieved, the formula of ragscope's context_precision over a
# packed list) and num_ret, with what it writes to stderr and its exit code.
# The query is a context's packed list: c1 and c3 hold gold evidence, c2 not
# (qrels.txt); run-distinct.txt packs c1, c2; run-duplicate.txt packs c1, c2, c1.
#
# trec_eval built from usnistgov/trec_eval commit
# f4253652c8efd0d86ddffd0d163cc0a0f813111a (10.0, the commit of
# shared/testdata/trec_eval) with its Makefile (`make`, gcc). Reproduce from the
# repository root:
#   sh test/data/trec-eval-duplicates/record.sh /path/to/trec_eval > test/data/trec-eval-duplicates/recorded.txt
trec_eval="$1"
folder="$(dirname "$0")"
for run in run-distinct.txt run-duplicate.txt; do
  echo "== $run"
  "$trec_eval" -q -m set_P -m num_ret "$folder/qrels.txt" "$folder/$run" 2>&1
  echo "exit $?"
done
