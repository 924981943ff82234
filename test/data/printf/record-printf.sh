#!/bin/sh
# Records C printf "%.4f" — how trec_eval prints every measure — on the values
# in values.txt, through awk, which reads each value with strtod into a double
# and formats it with the C library's printf, as trec_eval does.
# Reproduce from the repository root:
#   sh test/data/printf/record-printf.sh > test/data/printf/printf-4-decimals.tsv
# (recorded with mawk 1.3.4 on glibc; any awk on a C library whose printf is
# correctly rounded gives the same: exact binary halves go to the even digit).
awk '{ printf "%s\t%.4f\n", $1, $1 }' "$(dirname "$0")/values.txt"
