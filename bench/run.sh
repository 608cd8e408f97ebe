#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench/run.sh - the klp benchmarks (make bench): build the bench modules
# and tools, boot the guest with bench/guest.sh (a full run: once on
# single-threaded TCG for the kernel's figures, once on multi-threaded TCG
# for the tools' own cost), print the table and
# write bench/results.json, and draw it beside it (bench/plot.sh:
# bench/scale.svg, bench/percall.svg).  Expects `make all` to have run
# (make bench does it first).
#
# Usage: bench/run.sh [-q|-t|-T|-B|-c] [-n BOOTS] [-o JSON] [-r GUEST_OUTPUT]
#        bench/run.sh -p [-o JSON]
#   -q  quick smoke run (few rounds, N <= 100); writes build/bench/quick.json
#       unless -o says otherwise
#   -t  the tools only: klptop's and klp-exporter's own cost with the
#       1000-function patch enabled (no redirect, switch or builtin
#       figures; multi-threaded TCG unless KLP_TOOLS_ACCEL says otherwise);
#       writes build/bench/tools.json unless -o says otherwise
#   -T  what the consistency model changed only: per call outside a
#       transition (unpatched, builtin, klp), per call during each core's
#       transition, the time from a blocker's release to completion, klp's
#       sweeps, and the 1000-function patch until its transition completes
#       (single-threaded TCG, about 10 minutes); writes
#       build/bench/transition.json unless -o says otherwise
#   -B  the kernel's builtin livepatch as klptop and klp-exporter see it,
#       beside klp, in one boot (single-threaded TCG unless KLP_ACCEL says
#       otherwise, about 11 minutes): per call of a builtin-patched
#       function with klptop counting its calls against the patch alone,
#       and the same ratio for klp; klptop --json 1 and klp-exporter with
#       the 1000-function patch of each core (bench/guest-builtin.sh);
#       writes build/bench/builtin.json unless -o says otherwise (the
#       published one: bench/builtin.json)
#   -c  the per-call rows only (unpatched, builtin, klp), each with what its
#       calls went through (bench/guest-site.sh), in BOOTS fresh boots one
#       after the other (single-threaded TCG, about 2 minutes each): the
#       klp / builtin ratio of each boot, and its median and spread over
#       the boots; writes build/bench/percall.json unless -o says otherwise
#       (the published one: bench/percall.json)
#   -n  how many boots -c makes (default 5)
#   -o  where to write the JSON (default bench/results.json)
#   -r  do not boot: re-render the table and JSON from a saved guest output
#       (its mode, full, quick, tools, transition, builtin or percall, is
#       the one the output records)
#   -p  do not boot, nor render: only redraw the pictures from the JSON
#       (bench/results.json unless -o says otherwise), into its directory
# A run that publishes a JSON under bench/ then rewrites the figures that
# README.md and doc/performance.md take from the JSONs (bench/figures.py).
# A full run (neither -q nor -t) that succeeded also redraws the pictures
# beside its JSON.  A run succeeded when the guest reported no error (E|),
# every sample is a number and every figure its mode requires is there
# with all its rounds (bench/report.awk), and, for a full run, both
# pictures could be drawn: the JSON and the pictures are all made in a
# temporary directory first and replace the published ones only then.  A
# failed run leaves JSON and pictures as they were, says why and exits 1.
# The guest's raw records are kept in build/bench/guest.out, the table in
# build/bench/table.md (a full run's tools boot in build/bench/guest-tools.out).
# Environment: KLP_ACCEL (the kernel's figures, default tcg,thread=single),
# KLP_TOOLS_ACCEL (the tools', default KLP_ACCEL or else tcg),
# BENCH_OUT (instead of build/bench: the table, the failed run's JSON, and
# where a boot keeps its raw records)
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
mode=full
json=
replay=
plot_only=0
boots=5
while getopts "qtTBcn:o:r:p" o; do
	case $o in
	q) mode=quick ;;
	t) mode=tools ;;
	T) mode=transition ;;
	B) mode=builtin ;;
	c) mode=percall ;;
	n) boots=$OPTARG ;;
	o) json=$OPTARG ;;
	r) replay=$OPTARG ;;
	p) plot_only=1 ;;
	*) echo "usage: $0 [-q|-t|-T|-B|-c] [-n BOOTS] [-o JSON] [-r GUEST_OUTPUT] | -p [-o JSON]" >&2; exit 2 ;;
	esac
done
case $boots in
'' | *[!0-9]* | 0) echo "bench: -n wants a number of boots, not '$boots'" >&2; exit 2 ;;
esac
# a replay is rendered as the run it replays was measured
if [ -n "$replay" ]; then
	[ -r "$replay" ] || { echo "bench: cannot read $replay" >&2; exit 2; }
	m=$(sed -n 's/^I|mode|//p' "$replay" | head -n 1)
	case $m in full | quick | tools | transition | builtin | percall) mode=$m ;; esac
fi
[ -n "$json" ] || { [ "$mode" = full ] && json=bench/results.json || json=build/bench/$mode.json; }

# -p: the pictures of the JSON there is, nothing else
[ $plot_only = 1 ] && exec bench/plot.sh "$json"

out=${BENCH_OUT:-$top/build/bench}
mkdir -p "$out"

if [ -z "$replay" ]; then
	# One run at a time in a tree: two would rebuild each other's bench
	# modules under their guests and append their records to one
	# guest.out (a tools run's E| records landed in a full run's output).
	exec 8> "$out/.run.lock" || exit 2
	flock -n 8 || {
		echo "bench: another bench/run.sh is running in this tree (it holds $out/.run.lock): wait for it" >&2
		exit 2
	}
	kver=${KVER:-$(scripts/kver.sh)} || exit 2
	kdir=${KDIR:-/lib/modules/$kver/build}
	for f in core/klp.ko core/klp_events.ko Module.symvers selftests/modules/klp_test_target.ko \
		selftests/modules/klp_test_cm.ko; do
		[ -f "$f" ] || { echo "bench: $f missing: run make all first" >&2; exit 2; }
	done
	[ -x build/bin/klptop ] ||
		echo "bench: build/bin/klptop missing: its figures will be skipped" >&2

	mkdir -p "$out/bin"
	echo "bench: building the bench modules and tools" >&2
	mod=$out/mod
	rm -rf "$mod"
	mkdir -p "$mod"
	cp bench/modules/*.[ch] "$mod/"
	objs=
	for n in 1 10 100 1000; do
		objs+=" $(bench/gen-scale.sh "$n" "$mod")" || exit 1
	done
	{ cat bench/modules/Kbuild; echo "obj-m +=$objs"; } > "$mod/Kbuild"
	make -s -C "$kdir" M="$mod" KLP_TOP="$top" \
		KBUILD_EXTRA_SYMBOLS="$top/Module.symvers" -j"$(nproc)" modules \
		2>&1 | grep -v 'Skipping BTF generation' >&2
	[ "${PIPESTATUS[0]}" = 0 ] || { echo "bench: module build failed" >&2; exit 1; }
	for p in callloop switchlat; do
		${CC:-gcc} -O2 -Wall -Wextra -o "$out/bin/$p" "bench/src/$p.c" -lpthread ||
			exit 1
	done
	# shellcheck disable=SC2015	# exit if either fails, as meant
	${CLANG:-clang} -g -O2 -target bpf -D__TARGET_ARCH_x86 -I. \
		-c bench/src/emptyprog.bpf.c -o "$out/bin/emptyprog.bpf.o" &&
		${CC:-gcc} -O2 -Wall -Wextra -o "$out/bin/emptyprog" bench/src/emptyprog.c -lbpf ||
		exit 1

	# boot ACCEL TIMEOUT OUTPUT ARGS...: bench/guest.sh ARGS in one boot;
	# its records in OUTPUT, after the accelerator it ran on
	boot() {
		local accel=$1 tmo=$2 o=$3 t0 rc
		shift 3
		echo "bench: booting the guest ($*, $accel, at most ${tmo}s)" >&2
		echo "I|accel|$accel" > "$o"
		# the emulator's version: what its jump cache is (guest-site.sh)
		echo "I|qemu|$(qemu-system-x86_64 --version | head -n 1)" >> "$o"
		t0=$(date +%s)
		KLP_ACCEL=$accel selftests/guest/boot.sh -t "$tmo" bench/guest.sh "$@" |
			tee -a "$o" | grep --line-buffered -E '^(# |E\|)' >&2
		rc=${PIPESTATUS[0]}
		echo "bench: guest finished after $(( $(date +%s) - t0 ))s (boot.sh exit $rc)" >&2
		return "$rc"
	}
	# Single-threaded TCG where a section rewrites a call site while a
	# task on CPU 1 calls the function, which multi-threaded TCG gets wrong
	# (a stale int3 left CPU 1 in "Oops: int3" in the builtin's enable on
	# 6.12), as it does for the kernel's own livepatch (doc/testing.md).
	# The tools' own cost is measured on multi-threaded TCG, where each
	# vCPU has a host thread of its own: on single-threaded TCG the guest
	# clock runs on through the other vCPU's slices, so while that vCPU
	# runs the call loop, a tool's accounted CPU time holds them too.  The
	# tools section rewrites no kernel text under parallel calls: the calls
	# start after the enable and stop before the disable, and each busy
	# row's loop runs only while its tool is attached (a tool attaching or
	# detaching flips the static keys of klp's tracepoints, in the ftrace
	# handler every call runs: bench/guest-tools.sh, busy_start).
	st=${KLP_ACCEL:-tcg,thread=single}
	mt=${KLP_TOOLS_ACCEL:-${KLP_ACCEL:-tcg}}
	replay=$out/guest.out
	case $mode in
	full)
		boot "$st" 1800 "$replay" full notools
		boot_rc=$?
		if [ "$boot_rc" = 0 ]; then
			boot "$mt" 900 "$out/guest-tools.out" tools
			boot_rc=$?
			# Its klptop and exporter sections and errors; its
			# accel and done records become tools_accel and
			# tools_done; the rest is the first boot's.
			awk -F'|' '$1 == "E" || ($1 == "B" && ($2 == "klptop" || $2 == "exporter")) ||
				($1 == "I" && $2 ~ /^(klptop_|exporter_)/) { print }
				$1 == "I" && ($2 == "accel" || $2 == "done") { print "I|tools_" $2 "|" $3 }' \
				"$out/guest-tools.out" >> "$replay"
		fi
		;;
	tools)
		boot "$mt" 900 "$replay" tools
		boot_rc=$?
		;;
	percall)
		# BOOTS boots, each on its own: every record of boot B gets B
		# into its round ("B.R"), its I| records a copy named
		# "bB_KEY"; done only if every boot is.
		echo "I|boots|$boots" > "$replay"
		boot_rc=0
		for ((b = 1; b <= boots; b++)); do
			boot "$st" 600 "$out/guest-$b.out" percall
			rc=$?
			awk -F'|' -v b="$b" 'BEGIN { OFS = "|" }
				$1 == "B" { $5 = b "." $5 }
				$1 == "S" { $4 = b "." $4 }
				$1 == "I" && $2 == "done" { d = 1; next }
				$1 == "I" { print "I", "b" b "_" $2, $3 }
				$1 ~ /^[BSIE]$/ { print }
				END { if (d) print "I|b" b "_done|1" }' "$out/guest-$b.out" >> "$replay"
			[ "$rc" = 0 ] || { boot_rc=$rc; break; }
			grep -q "^I|b${b}_done|" "$replay" || break
		done
		[ "$(grep -c '^I|b[0-9]*_done|' "$replay")" = "$boots" ] && echo "I|done|1" >> "$replay"
		;;
	builtin)
		# Single-threaded: the first run, multi-threaded, oopsed in the
		# loop over the builtin's 1000 functions with klptop's counters
		# attached (doc/performance.md), though nothing attaches while
		# that loop runs (bench/guest-builtin.sh).
		boot "$st" 1200 "$replay" builtin
		boot_rc=$?
		;;
	*)
		boot "$st" 900 "$replay" "$mode"
		boot_rc=$?
		;;
	esac
else
	boot_rc=0
fi

# The JSON, and for a full run the pictures, go to a temporary directory
# beside the JSON first (the same filesystem: each rename below replaces
# its file at once), and replace the published ones only once all of them
# are there and the run passed every check: a failed or partial run must
# not touch them.
jdir=$(dirname "$json")
mkdir -p "$jdir" || exit 1
new=$(mktemp -d "$jdir/.bench-new.XXXXXX") || exit 1
trap 'rm -rf "$new"' EXIT
draw=
kept="$json left as it was"
if [ "$mode" = full ]; then
	draw=1
	kept="$json, $jdir/scale.svg and $jdir/percall.svg left as they were"
fi
fail() {	# fail MESSAGE: keep this run's JSON aside, leave the published alone
	[ -s "$new/results.json" ] && mv -f "$new/results.json" "$out/failed.json"
	echo "bench: $1; $kept, this run's JSON in $out/failed.json" >&2
	exit 1
}
awk -v json="$new/results.json" -v generated="$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
	-f bench/report.awk -f bench/report-transition.awk -f bench/report-builtin.awk \
	-f bench/report-percall.awk -f bench/report-tools.awk \
	"$replay" | tee "$out/table.md"
report_rc=${PIPESTATUS[0]}
[ -s "$new/results.json" ] || fail "no JSON written"
# report.awk lists each problem (errors, sentinels, missing figures) at
# the end of the table; name them here too (the first 20: a guest that
# died early misses every figure after)
if [ "$report_rc" != 0 ]; then
	sed -n '/^Errors (the run is not published):$/,$p' "$out/table.md" | tail -n +2 |
		awk 'NR <= 20 { print "bench: " $0 } END { if (NR > 20) print "bench: ... and " NR - 20 " more" }' >&2
	fail "the run is incomplete or reported errors (the whole list at the end of $out/table.md)"
fi
[ "$boot_rc" = 0 ] || fail "boot.sh reported a failure ($boot_rc)"
# belt and braces: report.awk fails on these already
grep -q '^I|done|' "$replay" || fail "the guest run did not finish"
! grep -q '^E|' "$replay" || fail "errors in the run (see the table)"
# The pictures of a full run only (a quick or tools run has not all the
# figures), drawn before anything is replaced.
if [ -n "$draw" ]; then
	bench/plot.sh "$new/results.json" "$new" || fail "the pictures could not be drawn"
	for f in scale percall; do
		[ -s "$new/$f.svg" ] || fail "plot.sh drew no $f.svg"
	done
	mv -f "$new/scale.svg" "$jdir/scale.svg" &&
		mv -f "$new/percall.svg" "$jdir/percall.svg" || exit 1
fi
mv -f "$new/results.json" "$json" || exit 1
echo "bench: wrote $json${draw:+, $jdir/scale.svg, $jdir/percall.svg} and $out/table.md" >&2
# The docs quote no figure by hand: a JSON published under bench/ gives
# them theirs at once (bench/figures.py; selftests/host/39-bench-figures.sh)
case $(realpath -m "$json") in
"$top"/bench/*.json)
	python3 bench/figures.py -w README.md doc/performance.md || {
		echo "bench: $json is published, but README.md and doc/performance.md could not take their figures from the JSONs (above)" >&2
		exit 1
	}
	echo "bench: README.md and doc/performance.md have the JSONs' figures" >&2
	;;
esac
# a target the figures miss is published as measured, and named
# (bench/report-builtin.awk: "Targets missed" in the table, "met": false)
sed -n 's/^- \(target missed: \)/bench: \1/p' "$out/table.md" >&2
