#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench/run.sh - the klp benchmarks (make bench): build the bench modules
# and tools, boot the guest once with bench/guest.sh, print the table and
# write bench/results.json, and draw it beside it (bench/plot.sh:
# bench/scale.svg, bench/percall.svg).  Expects `make all` to have run
# (make bench does it first).
#
# Usage: bench/run.sh [-q|-t] [-o JSON] [-r GUEST_OUTPUT]
#        bench/run.sh -p [-o JSON]
#   -q  quick smoke run (few rounds, N <= 100); writes build/bench/quick.json
#       unless -o says otherwise
#   -t  the tools only: klptop's and klp-exporter's own cost with the
#       1000-function patch enabled (no redirect, switch or builtin
#       figures); writes build/bench/tools.json unless -o says otherwise
#   -o  where to write the JSON (default bench/results.json)
#   -r  do not boot: re-render the table and JSON from a saved guest output
#   -p  do not boot, nor render: only redraw the pictures from the JSON
#       (bench/results.json unless -o says otherwise), into its directory
# A full run (neither -q nor -t) that succeeded also redraws the pictures
# beside its JSON; a failed one leaves JSON and pictures as they were.
# The guest's raw records are kept in build/bench/guest.out, the table in
# build/bench/table.md.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
mode=full
json=
replay=
plot_only=0
while getopts "qto:r:p" o; do
	case $o in
	q) mode=quick ;;
	t) mode=tools ;;
	o) json=$OPTARG ;;
	r) replay=$OPTARG ;;
	p) plot_only=1 ;;
	*) echo "usage: $0 [-q|-t] [-o JSON] [-r GUEST_OUTPUT] | -p [-o JSON]" >&2; exit 2 ;;
	esac
done
[ -n "$json" ] || { [ $mode = full ] && json=bench/results.json || json=build/bench/$mode.json; }

# -p: the pictures of the JSON there is, nothing else
[ $plot_only = 1 ] && exec bench/plot.sh "$json"

out=$top/build/bench
mkdir -p "$out/bin"

if [ -z "$replay" ]; then
	kver=${KVER:-$(scripts/kver.sh)} || exit 2
	kdir=${KDIR:-/lib/modules/$kver/build}
	for f in core/klp.ko core/klp_events.ko Module.symvers selftests/modules/klp_test_target.ko; do
		[ -f "$f" ] || { echo "bench: $f missing: run make all first" >&2; exit 2; }
	done
	[ -x build/bin/klptop ] ||
		echo "bench: build/bin/klptop missing: its figures will be skipped" >&2

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

	# One boot for everything; the guest prints records, progress goes to stderr.
	# Single-threaded TCG: the switch section rewrites a call site while a
	# task on CPU 1 calls the function, which multi-threaded TCG gets wrong
	# (a stale int3 left CPU 1 in "Oops: int3" in the builtin's enable on
	# 6.12), as it does for the kernel's own livepatch (doc/testing.md).
	timeout_s=1800
	[ $mode != full ] && timeout_s=900
	echo "bench: booting the guest ($mode, at most ${timeout_s}s)" >&2
	t0=$(date +%s)
	KLP_ACCEL=${KLP_ACCEL:-tcg,thread=single} \
	selftests/guest/boot.sh -t "$timeout_s" bench/guest.sh "$mode" |
		tee "$out/guest.out" | grep --line-buffered -E '^(# |E\|)' >&2
	boot_rc=${PIPESTATUS[0]}
	echo "bench: guest finished after $(( $(date +%s) - t0 ))s (boot.sh exit $boot_rc)" >&2
	replay=$out/guest.out
else
	boot_rc=0
fi

# The JSON goes to a temporary file beside it and replaces it only if the
# run succeeded: a failed run must not overwrite the published results.
new=$json.new.$$
trap 'rm -f "$new"' EXIT
awk -v json="$new" -v generated="$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
	-f bench/report.awk "$replay" | tee "$out/table.md"
fail() {	# fail MESSAGE: keep this run's JSON aside, leave $json alone
	mv -f "$new" "$out/failed.json"
	echo "bench: $1; $json left as it was, this run's JSON in $out/failed.json" >&2
	exit 1
}
[ -s "$new" ] || fail "no JSON written"
grep -q '^I|done|' "$replay" || fail "the guest run did not finish"
[ "$boot_rc" = 0 ] || fail "boot.sh reported a failure ($boot_rc)"
! grep -q '^E|' "$replay" || fail "errors in the run (see the table)"
mv -f "$new" "$json" || exit 1
echo "bench: wrote $json and $out/table.md" >&2
# The pictures of a full run only (a quick or tools run has not all the
# figures), beside its JSON, and only now that the run succeeded.
if [ $mode = full ]; then
	bench/plot.sh "$json" || {
		echo "bench: the pictures beside $json were not redrawn; bench/run.sh -p redraws them" >&2
		exit 1
	}
fi
