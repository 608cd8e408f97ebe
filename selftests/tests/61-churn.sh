#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# klp-cost: 220
# klp-timeout: 900
# klp-accel: tcg,thread=single
# klp-boot-args: log_buf_len=8M
# klp-min-results: 13
# Core churn, then module churn.  First the core itself is loaded and
# unloaded 20 times, each time carrying a patch through its whole life
# (registered and enabled on the loaded target by a patch module whose
# init then fails, so that the module goes and takes the patch with it,
# as 17-hardening checks once): its allocations must return to what the
# fresh core held, and its unload leave nothing behind (sysfs and debugfs
# roots, ftrace hooks, kprobes, a reference on klp_events).  Then the
# target module is loaded and unloaded 100 times while two patches for it
# are registered and enabled.  Every load must reapply them in
# registration order, every unload revert them, and nothing may leak: no
# ftrace_ops left, the core's own allocations exactly as before.  Last, a
# kmemleak scan (make check-debug's kernel; the stock one has no kmemleak:
# a SKIP there): no object allocated by the core or a test module, loaded
# or unloaded since (lib.sh, kmemleak_check).
. "$(dirname "$0")/../lib.sh"
ktap_start "core churn: 20 reloads of the core; module churn: 100 loads of a patched module"

kmemleak_start
ROUNDS=${KLP_CHURN_ROUNDS:-100}
CORE_ROUNDS=${KLP_CHURN_CORE_ROUNDS:-20}
klp_insmod klp_test_target || bail "target loads"
klp_events_load || bail "klp_events (the tracepoints) loads"

# left_behind: what an unloaded core left, one word each ("" if nothing):
# the module, its sysfs and debugfs roots, an ftrace hook (on the
# targets, or its IBT trampolines' on 6.12), a kprobe (it finds symbols
# with kprobes), its reference on klp_events
kprobes() { cat /sys/kernel/debug/kprobes/list 2> /dev/null; }
kprobes0=$(kprobes)
left_behind() {
	grep -q '^klp ' /proc/modules && echo module
	[ -e $KLP_SYSFS ] && echo sysfs
	[ -e /sys/kernel/debug/klp ] && echo debugfs
	grep -qE '^klp_target_|klp_tramp|\[klp\]' $TRACEFS/enabled_functions && echo ftrace-hook
	[ "$(kprobes)" = "$kprobes0" ] || echo kprobe
	[ "$(cat /sys/module/klp_events/refcnt)" = 0 ] || echo klp_events-ref
}

# core_cycle: one load, patch life and unload of the core; prints what
# went wrong, one word each ("" if nothing)
core_cycle() {
	local a0
	klp_insmod klp || { echo load; return; }
	a0=$(cat /sys/kernel/debug/klp/allocated)
	klp_insmod klp_test_p1 fail_init=1 && echo p1-init-succeeded
	[ -e $KLP_SYSFS/klp_test_p1 ] && echo p1-left
	[ "$(target a) $(target b)" = "100 200" ] || echo still-patched
	[ "$(cat /sys/kernel/debug/klp/allocated)" = "$a0" ] || echo allocated
	rmmod klp || { echo unload; return; }
	left_behind
}

out=$(klp_insmod klp || echo load; rmmod klp || echo unload; left_behind)
assert_eq "the fresh core loads and unloads, leaving nothing" "" "$(echo $out)"
dmesg_mark
t0=$(date +%s)
bad=
for ((i = 0; i < CORE_ROUNDS; i++)); do
	out=$(core_cycle)
	[ -n "$out" ] && bad+="round $i: $(echo $out); "
done
diag "$CORE_ROUNDS core reloads in $(( $(date +%s) - t0 )) s"
assert_eq "$CORE_ROUNDS core reloads, each with a patch's whole life: allocations back, nothing left" \
	"" "$bad"
assert_eq "each patch went with its failed module, reverted" "$CORE_ROUNDS" \
	"$(dmesg_since | grep -c "patch module 'klp_test_p1' is going away with its patch still registered and enabled: reverting and unregistering it")"
check "target unloads" rmmod klp_test_target

klp_insmod klp || bail "core loads"
check "p1 registers and enables (target absent)" klp_insmod klp_test_p1
check "p2 registers and enables (target absent)" klp_insmod klp_test_p2

# Slab objects in use, summed over the general kmalloc caches.  SLUB
# counts the free objects of each CPU's current slab as in use: shrinking
# every cache first flushes those slabs.
slab_in_use() {
	local f
	sync; echo 3 > /proc/sys/vm/drop_caches
	for f in /sys/kernel/slab/*/shrink; do echo 1 > "$f" 2>/dev/null; done
	awk '/^kmalloc-[0-9k]+ / { s += $2 * 1 } END { print s }' /proc/slabinfo
}

churn() {	# churn N: load/check/unload N times; prints the failed rounds
	local i bad=0
	for ((i = 0; i < $1; i++)); do
		klp_insmod klp_test_target || { bad=$((bad + 1)); continue; }
		[ "$(target a) $(target b)" = "2001 2002" ] || bad=$((bad + 1))
		rmmod klp_test_target || bad=$((bad + 1))
	done
	echo $bad
}

# Warm up caches (first loads allocate lasting things: module sysfs, ...).
assert_eq "warm-up rounds" 0 "$(churn 10)"
slab0=$(slab_in_use)
allocated0=$(cat /sys/kernel/debug/klp/allocated)
log0=$(dmesg | wc -l)
t0=$(date +%s)
assert_eq "$ROUNDS rounds: p2 wins on every load, unload reverts" 0 "$(churn "$ROUNDS")"
diag "$ROUNDS rounds in $(( $(date +%s) - t0 )) s"
slab1=$(slab_in_use)
diag "kmalloc objects in use: $slab0 before, $slab1 after"

newlog() { dmesg | tail -n +$((log0 + 1)); }
order=$(newlog | sed -n "s/.*applying patch '\([^']*\)' to loading module.*/\1/p" | paste -sd' ' | tr ' ' '\n' | paste -d' ' - - | sort | uniq -c | awk '{ print $1, $2, $3 }')
assert_eq "reapplied in registration order on every load" "$ROUNDS klp_test_p1 klp_test_p2" "$order"
assert_eq "reverted on every unload" "$((2 * ROUNDS))" "$(newlog | grep -c "reverting patch '.*' on unloading module 'klp_test_target'")"
check "no ftrace_ops left for the target" eval "! grep -q '^klp_target_' $TRACEFS/enabled_functions"
# (debugfs files report size 0 whatever they hold: read the content)
assert_eq "no func_stack left (debugfs stacks empty)" "" "$(cat /sys/kernel/debug/klp/stacks 2>&1)"
# What the core allocates it counts: exactly as before, kind by kind.
assert_same "the core holds what it held before the rounds (debugfs klp/allocated)" \
	"$allocated0" "$(cat /sys/kernel/debug/klp/allocated)"
# Kernel objects it makes others allocate (ftrace filter hashes, kernfs
# nodes) show only in the slab counts, which moved by -106 to +180 over
# 200 clean rounds here (the rest of the kernel): too noisy to catch a
# leak of one object per round, so they are shown, not asserted; the
# lockdep/KASAN kernel of make check-debug has kmemleak for them.
diag "kmalloc objects in use grew by $((slab1 - slab0)) over $ROUNDS rounds"
kmemleak_check "kmemleak: no object allocated by the core or a test module, loaded or since unloaded" "klp"
ktap_finish
