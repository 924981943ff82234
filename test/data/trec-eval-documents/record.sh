#!/bin/sh
# Records trec_eval 10.0's per-query ranking measures for cases that name relevant
# documents only (cases.jsonl, the simple format's relevant_document_ids without
# relevant_chunk_ids or evidence), the reference of ragscope's document-level
# retrieval.ranking (evaluators/evidence/case-gold-evidence.ts).
#
# qrels.txt: each case's relevant documents, grade 3 (a document-level piece of
# gold evidence has the default relevance 3). run.txt: each case's chunk ranking
# (metadata.retrieve, in order) with, at each rank, the chunk's document id where
# the document first occurs and a unique non-relevant docno
# (`<document>.repeat-at-<rank>`) for a later chunk of the same document — a
# document is found once, at its first chunk; a later chunk of it adds nothing
# new (evaluators/evidence/evidence-ranking.ts). Scores fall with the rank, so
# trec_eval keeps the order. Both files written by hand from cases.jsonl; the
# test checks run.txt against cases.jsonl by that rule.
#
# trec_eval built from usnistgov/trec_eval commit
# f4253652c8efd0d86ddffd0d163cc0a0f813111a (10.0, the commit of
# shared/testdata/trec_eval) with its Makefile (`make`, gcc). Reproduce from the
# repository root:
#   sh test/data/trec-eval-documents/record.sh /path/to/trec_eval > test/data/trec-eval-documents/recorded.txt
trec_eval="$1"
folder="$(dirname "$0")"
"$trec_eval" -q -m P.1,3,5,10 -m recall.1,3,5,10 -m success.1,3,5,10 -m ndcg_cut.1,3,5,10 -m recip_rank -m map "$folder/qrels.txt" "$folder/run.txt"
