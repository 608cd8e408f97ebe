#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# klp-cost: 46
# klp-accel: tcg,thread=single
# klp-min-results: 14
# Privilege: only root may change a patch or read addresses; an
# unprivileged klptop or klp-exporter says what it needs and exits
# non-zero.
. "$(dirname "$0")/../lib.sh"
ktap_start "privilege"

# The fault-injection build's knobs (the release core has none).
klp_events_load || bail "klp_events (the tracepoints) loads"
insmod "$KLP_TOP/build/core-fault/klp.ko" || bail "fault-injection build of the core loads"
assert_eq "fault injection knobs, every one, are root-only" \
	"call_check 400 fault_inject 600 redirect_delay_ms 600 unreliable_pid 600" \
	"$(cd /sys/module/klp/parameters && stat -c '%n %a' * | sort | paste -sd' ')"
check "the fault build unloads" rmmod klp

klp_insmod klp || bail "core loads"
klp_insmod livepatch-sample || bail "sample loads"
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "$@"; }
f=$KLP_SYSFS/livepatch_sample/enabled
fn=$KLP_SYSFS/livepatch_sample/vmlinux/cmdline_proc_show

assert_eq "enabled is root-writable only" "644 root" "$(stat -c '%a %U' $f)"
check "unprivileged write to enabled refused" eval "! nobody sh -c 'echo 0 > $f' 2>/dev/null"
assert_eq "still enabled after the refused write" "1 this has been live patched" "$(cat $f) $(cat /proc/cmdline)"
check "unprivileged read of enabled works" nobody cat $f
check "unprivileged read of a function id works" nobody cat $fn/id
assert_eq "old_addr and new_func are root-only" "400 400" "$(stat -c '%a' $fn/old_addr) $(stat -c '%a' $fn/new_func)"
check "unprivileged read of old_addr refused" eval "! nobody cat $fn/old_addr 2>/dev/null"

if [ -x "$KLP_BIN/klptop" ]; then
	out=$(cd /tmp && nobody "$KLP_BIN/klptop" --once 2>&1)
	rc=$?
	check "unprivileged klptop exits non-zero" test $rc != 0
	check "unprivileged klptop names the capability it needs" eval 'echo "$out" | grep -qE "CAP_BPF|root"'
	diag "klptop said: $(echo "$out" | head -n 2)"
else
	not_ok "klptop is built"
fi
# the exporter: the core is there but it cannot attach, so it stops and
# says why, rather than serve klp_up 0 for a host that has the core
out=$(cd /tmp && nobody "$KLP_BIN/klp-exporter" -l 127.0.0.1:9873 2>&1)
assert_eq "unprivileged klp-exporter exits 1" 1 "$?"
check "... naming the capabilities it needs" eval 'grep -q "klp-exporter needs root, or CAP_BPF and CAP_PERFMON" <<< "$out"'
diag "klp-exporter said: $(head -n 2 <<< "$out")"
check "... and listened nowhere" eval '! ss -Htln "sport = :9873" | grep -q .'
ktap_finish
