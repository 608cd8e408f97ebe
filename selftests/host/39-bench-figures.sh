#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The figures README.md's Performance section and doc/performance.md quote
# are the published JSONs' (bench/*.json), never typed by hand:
# `bench/figures.py -c` passes on the tree, and fails, naming the place,
# on copies where a figure went stale (a table row, a figure in a
# sentence, a table of the report: each edited by hand, or the JSON it
# came from changed) or where a figure is typed by hand, as README's "0.5%
# on a quiet one" was; `bench/figures.py -w`, which bench/run.sh runs
# after it publishes a JSON, makes a stale copy pass again.  A figure the
# docs take from a JSON that lacks it is an error, not an empty cell.
. "$(dirname "$0")/../lib.sh"
ktap_start "bench: the docs' figures are the JSONs'"

command -v python3 > /dev/null || bail "python3 missing (scripts/deps.sh installs it)"
fig=$KLP_TOP/bench/figures.py
tmp=$(mktemp -d "$KLP_TOP/build/bench-figures.XXXXXX") || bail "a scratch directory"
trap 'rm -rf "$tmp"' EXIT

# figs ARGS...: bench/figures.py ARGS, its messages in $tmp/msg
figs() {
	python3 "$fig" "$@" > "$tmp/msg" 2>&1
}

figs -c "$KLP_TOP/README.md#Performance" "$KLP_TOP/doc/performance.md"
rc=$?
assert_eq "README.md's Performance section and doc/performance.md: every figure from a JSON" 0 "$rc"
[ "$rc" = 0 ] || diag "$(head -n 10 "$tmp/msg")"
for part in '<!-- figures: begin -->' '<!-- table: results.json -->' '<!-- fig: '; do
	check "doc/performance.md has its generated parts: '$part'" grep -qF -- "$part" "$KLP_TOP/doc/performance.md"
done
check "README.md has the table of figures" grep -qF -- '<!-- figures: begin -->' "$KLP_TOP/README.md"

# bad NAME FILE PATTERN: -c fails on FILE (a copy) and names PATTERN
bad() {
	figs -c "$2"
	rc=$?
	check "$1: -c fails" test "$rc" != 0
	check "$1: says so: '$3'" grep -qF -- "$3" "$tmp/msg"
	grep -qF -- "$3" "$tmp/msg" || diag "$(head -n 3 "$tmp/msg")"
}

# A figure typed by hand in README's Performance section.
cp "$KLP_TOP/README.md" "$tmp/README.md"
sed -i '/^## Performance/,/^## /s/^`make bench`/klptop took 0.5% on a quiet one. &/' "$tmp/README.md"
bad "a figure typed by hand" "$tmp/README.md#Performance" "'0.5%' is typed by hand"
# The same sentence in another section: README.md's other numbers are not
# the bench's, and -c FILE#TITLE looks for figures in TITLE's section only.
cp "$KLP_TOP/README.md" "$tmp/README.md"
sed -i '/^## Layout/a klptop took 0.5% on a quiet one.' "$tmp/README.md"
check "the sentence is in the section after" grep -qx 'klptop took 0.5% on a quiet one.' "$tmp/README.md"
figs -c "$tmp/README.md#Performance"
assert_eq "outside the section named, a number is not taken for the bench's" 0 $?

# A row of the README's table edited by hand: the first figure of its
# first row, one more in its last digit.
cp "$KLP_TOP/README.md" "$tmp/README.md"
row=$(awk '/^<!-- figures: begin -->$/ { n = NR + 3 } NR == n' "$tmp/README.md")
edited=$(echo "$row" | sed -E 's/\| ([0-9]+\.[0-9]*)([0-9])/| \1X\2/' |
	awk '{ i = index($0, "X"); d = substr($0, i + 1, 1); print substr($0, 1, i - 1) (d + 1) % 10 substr($0, i + 2) }')
awk -v r="$row" -v e="$edited" '$0 == r { print e; next } 1' "$tmp/README.md" > "$tmp/README.edited"
mv "$tmp/README.edited" "$tmp/README.md"
check "the row was edited" test "$row" != "$edited"
bad "a table row edited by hand" "$tmp/README.md#Performance" "stale: '$edited'"
figs -w "$tmp/README.md"
figs -c "$tmp/README.md#Performance"
assert_eq "-w writes the JSONs' figures back: -c passes again" 0 $?

# A figure in a sentence of doc/performance.md edited by hand.
cp "$KLP_TOP/doc/performance.md" "$tmp/performance.md"
sed -i '0,/<!-- fig: [a-z-]* -->[^<]*<!-- \/fig -->/s/\(<!-- fig: [a-z-]* -->\)[^<]*\(<!-- \/fig -->\)/\10.123x\2/' "$tmp/performance.md"
bad "a figure in a sentence edited by hand" "$tmp/performance.md" "stale:"

# A cell of a report table in doc/performance.md edited by hand.
cp "$KLP_TOP/doc/performance.md" "$tmp/performance.md"
awk '/^<!-- table: / { t = 1 } t && /^\| \(1\) unpatched/ && !d { sub(/\| [0-9.]+/, "| 99.99"); d = 1 } 1' \
	"$KLP_TOP/doc/performance.md" > "$tmp/performance.md"
bad "a report table's cell edited by hand" "$tmp/performance.md" "stale: '| (1) unpatched | 99.99"

# The JSON changed (another run published) and the docs not rewritten:
# stale; -w with the new JSON brings them back.
mkdir -p "$tmp/json"
cp "$KLP_TOP"/bench/*.json "$tmp/json/"
jq '(.ratios[] | select(.section == "redirect" and .metric == "kernel_ns" and .ratio == "4/3") | .median) |= . * 2' \
	"$KLP_TOP/bench/results.json" > "$tmp/json/results.json"
cp "$KLP_TOP/README.md" "$tmp/README.md"
BENCH_JSON_DIR=$tmp/json figs -c "$tmp/README.md#Performance"
check "a JSON published since, the README not rewritten: -c fails" test $? != 0
check "it names the row" grep -q "stale: '| per klp-redirected call, klptop counting" "$tmp/msg"
BENCH_JSON_DIR=$tmp/json figs -w "$tmp/README.md"
BENCH_JSON_DIR=$tmp/json figs -c "$tmp/README.md#Performance"
assert_eq "-w with the new JSON: -c passes" 0 $?
check "the row now has the new figure" grep -qF "$(jq -r '.ratios[] | select(.section == "redirect" and .metric == "kernel_ns" and .ratio == "4/3") | .median * 100 | round / 100 | tostring' "$tmp/json/results.json")" "$tmp/README.md"

# A figure the docs take from a JSON that does not hold it: an error
# naming it, and -w leaves the file as it was.
jq 'del(.ratios[] | select(.ratio == "4/3"))' "$KLP_TOP/bench/results.json" > "$tmp/json/results.json"
cp "$KLP_TOP/README.md" "$tmp/README.md"
BENCH_JSON_DIR=$tmp/json figs -w "$tmp/README.md"
check "a figure the JSON lacks: -w fails" test $? != 0
check "it names what is missing" grep -qF "'ratio': '4/3'" "$tmp/msg"
check "and leaves the file as it was" cmp -s "$KLP_TOP/README.md" "$tmp/README.md"

ktap_finish
