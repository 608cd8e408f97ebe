#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What `make run` shows: the klp core with the seed's sample patch on
# vmlinux (cmdline_proc_show) and two test patches stacked on the
# klp_test_target module, a workload calling the patched functions at
# different rates, klp_test_p2 switched off and on every few seconds, and
# klptop live on the console.  Arguments go to klptop:
#   make run                          until q
#   make run KLPTOP_ARGS="2 10"       every 2 s, 10 refreshes
#   make run KLPTOP_ARGS="--json 1 5" five JSON objects
# The guest powers off when this script ends.
. "$(dirname "$0")/lib.sh"

die() {
	echo "demo: $*" >&2
	exit 1
}

klp_insmod klp || die "cannot load core/klp.ko (see dmesg)"
klp_insmod livepatch-sample || die "cannot load the sample patch"
klp_insmod klp_test_target || die "cannot load klp_test_target"
klp_insmod klp_test_p1 || die "cannot load klp_test_p1"
klp_insmod klp_test_p2 || die "cannot load klp_test_p2"

pids=()
trap 'kill "${pids[@]}" 2>/dev/null; wait 2>/dev/null' EXIT

# klp_target_a busy, klp_target_b less so, /proc/cmdline now and then
(while :; do echo "a 20000" > "$KLP_TARGET/call"; sleep 0.2; done) &
pids+=($!)
(while :; do echo "b 2000" > "$KLP_TARGET/call"; sleep 0.5; done) &
pids+=($!)
(while :; do cat /proc/cmdline > /dev/null; sleep 1; done) &
pids+=($!)
# p2 off and on: its functions fall back to p1 and come back
(while :; do
	sleep 4
	set_enabled klp_test_p2 0
	sleep 4
	set_enabled klp_test_p2 1
done) &
pids+=($!)

cat <<EOF
klp demo on $(uname -r)
  /proc/cmdline now reads: $(cat /proc/cmdline)
  patches: livepatch_sample (vmlinux cmdline_proc_show),
           klp_test_p1 and klp_test_p2 stacked on klp_target_a/_b of klp_test_target
  workload: klp_target_a 20000 calls every 0.2 s, klp_target_b 2000 every 0.5 s,
            /proc/cmdline once a second; klp_test_p2 goes off and on every 4 s
  klptop: q quits, s changes the sort, p pauses
EOF
sleep 3

"$KLP_BIN/klptop" "$@"
