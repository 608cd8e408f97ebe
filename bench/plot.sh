#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench/plot.sh - the pictures of a bench run: take the figures out of its
# results.json with jq into temporary .dat files and draw them with
# gnuplot (bench/plot.gp).  bench/run.sh calls it after a full run that
# succeeded, and for `bench/run.sh -p`.
#
# Usage: bench/plot.sh [JSON [DIR]]
#   JSON  the results (default bench/results.json)
#   DIR   where scale.svg and percall.svg go (default: beside JSON)
# Both pictures are drawn first and replace the old ones only if both
# could be: a failure leaves the previous pair as it was.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
json=${1:-$top/bench/results.json}
dir=${2:-$(dirname "$json")}

for t in jq gnuplot; do
	command -v $t > /dev/null ||
		{ echo "plot: $t missing (scripts/deps.sh installs it)" >&2; exit 2; }
done
[ -s "$json" ] || { echo "plot: no $json" >&2; exit 2; }

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# cols(SECTION; METRIC; CONFIG): "median min max" of that figure, "? ? ?"
# (gnuplot's missing value) if there is none
# shellcheck disable=SC2016	# jq, not shell, expands these
jqdefs='
	. as $all
	| def cols($s; $m; $c):
		[$all.figures[] | select(.section == $s and .metric == $m and .config == $c)][0]
		| if . == null or .median == null then "? ? ?" else "\(.median) \(.min) \(.max)" end;
'

# scale.dat: N, then median min max (ms) of the complete enable and disable,
# klp and builtin: a line per N; ? where a figure is missing.
jq -r "$jqdefs"'
	[.figures[] | select(.section == "scale" and (.metric == "enable_ms" or .metric == "disable_ms"))
		| .config | capture("_(?<n>[0-9]+)$").n | tonumber] | unique | .[]
	| tostring as $n
	| "\($n) \(cols("scale"; "enable_ms"; "ours_" + $n)) \(cols("scale"; "enable_ms"; "builtin_" + $n))" +
	  " \(cols("scale"; "disable_ms"; "ours_" + $n)) \(cols("scale"; "disable_ms"; "builtin_" + $n))"
	' "$json" > "$tmp/scale.dat" || { echo "plot: cannot read $json" >&2; exit 1; }

# percall.dat: a line per redirect configuration: its name, then median min
# max (ns per call) of the kernel loop and of the userspace pread()s.  The
# empty BPF program's bar only where the run measured it (not before it
# was in the bench).
jq -r "$jqdefs"'
	("unpatched", "builtin", "ours", "ours_bpf0", "ours_klptop", "ours_perf")
	| "\(.) \(cols("redirect"; "kernel_ns"; .)) \(cols("redirect"; "user_ns"; .))"
	' "$json" | awk '$1 != "ours_bpf0" || $2 != "?"' > "$tmp/percall.dat" ||
	{ echo "plot: cannot read $json" >&2; exit 1; }

grep -q '[0-9] [0-9]' "$tmp/scale.dat" ||
	{ echo "plot: no scale figures (enable_ms, disable_ms) in $json" >&2; exit 1; }
awk '$2 != "?"' "$tmp/percall.dat" | grep -q . ||
	{ echo "plot: no redirect figures (kernel_ns) in $json" >&2; exit 1; }
user=0
awk '$5 != "?"' "$tmp/percall.dat" | grep -q . && user=1

# What run it is, under every title: the kernel and the day; quotes and
# backslashes would end gnuplot's strings, so none get through.
run=$(jq -r '"kernel \(.info.kernel // "?"), \(.generated // "?" | .[0:10])"' "$json" | tr -d "'\"\\\\")

gnuplot -e "scale_dat='$tmp/scale.dat'; percall_dat='$tmp/percall.dat'" \
	-e "scale_svg='$tmp/scale.svg'; percall_svg='$tmp/percall.svg'" \
	-e "run='$run'; user=$user; nconf=$(wc -l < "$tmp/percall.dat")" "$top/bench/plot.gp" ||
	{ echo "plot: gnuplot failed; $dir/scale.svg and percall.svg left as they were" >&2; exit 1; }
for f in scale percall; do
	[ -s "$tmp/$f.svg" ] || { echo "plot: gnuplot wrote no $f.svg" >&2; exit 1; }
done
mkdir -p "$dir" &&
	mv -f "$tmp/scale.svg" "$dir/scale.svg" &&
	mv -f "$tmp/percall.svg" "$dir/percall.svg" || exit 1
echo "plot: wrote $dir/scale.svg and $dir/percall.svg" >&2
