#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# klp-cost: 41
# klp-accel: tcg,thread=single
# klp-min-results: 43
# Single-threaded TCG: on 6.12 the builtin livepatch's transition rewrites
# every cond_resched() call site (sched_dynamic_klp_enable()) while the
# other CPUs run, which multi-threaded TCG mis-emulates (an "Oops: int3"
# in rcu_gp_fqs_loop ended this group once; doc/testing.md).
# Patches for a module that is not loaded yet (seed 006): applied when it
# comes, in the order they were enabled, reverted when it goes; a module
# already in its init when the core loads is patched at once; a module whose
# patches cannot all be applied is refused with nothing half-applied.
. "$(dirname "$0")/../lib.sh"
ktap_start "deferred module patching"

winner() { echo "$(target a) $(target_call b 20)"; }
pos() {	# pos PATCH: stack_pos/stack_depth of its klp_target_a
	echo "$(func_attr "$1" klp_test_target klp_target_a stack_pos)/$(func_attr "$1" klp_test_target klp_target_a stack_depth)"
}

# A module already in its init when the core loads (a driver probing at
# boot while the patch service starts): its COMING notifiers ran before
# ours existed, and it is patched all the same.
check "target module in its init before the core loads" target_load_slow
klp_insmod klp || bail "core loads"
check "p2 loads during the target's init" klp_insmod klp_test_p2
assert_eq "p2: object loaded, both funcs patched" "1 1 1" \
	"$(cat $KLP_SYSFS/klp_test_p2/klp_test_target/loaded) $(func_attr klp_test_p2 klp_test_target klp_target_a patched) $(func_attr klp_test_p2 klp_test_target klp_target_b patched)"
check "the target's init completes" wait $TARGET_PID
assert_eq "p2 wins once the target is live" "2001 2002" "$(winner)"
assert_eq "original never entered" "0 0" "$(entered a) $(entered b)"
check "target unloads" rmmod klp_test_target
assert_eq "p2 reverted by our GOING notifier, still enabled" "0 1" \
	"$(func_attr klp_test_p2 klp_test_target klp_target_a patched) $(patch_enabled klp_test_p2)"

# Registration order p2, then p1: p1 must win once the target comes.
check "p1 loads while the target is absent" klp_insmod klp_test_p1
assert_eq "both enabled, object not loaded" "1 1 0 0" \
	"$(patch_enabled klp_test_p2) $(patch_enabled klp_test_p1) $(cat $KLP_SYSFS/klp_test_p2/klp_test_target/loaded) $(cat $KLP_SYSFS/klp_test_p1/klp_test_target/loaded)"
assert_eq "nothing patched yet" "0 0" \
	"$(func_attr klp_test_p1 klp_test_target klp_target_a patched) $(func_attr klp_test_p2 klp_test_target klp_target_a patched)"
dmesg_mark
check "target loads" klp_insmod klp_test_target
assert_eq "last registered (p1) wins on arrival" "1001 1002" "$(winner)"
assert_eq "stack on arrival: p1 over p2" "1/2 2/2" "$(pos klp_test_p1) $(pos klp_test_p2)"
assert_eq "applied in enable order (dmesg)" "klp_test_p2 klp_test_p1" \
	"$(dmesg_since | sed -n "s/.*applying patch '\([^']*\)' to loading module 'klp_test_target'.*/\1/p" | paste -sd' ')"
assert_eq "original never entered" "0 0" "$(entered a) $(entered b)"

check "target unloads with patches enabled" rmmod klp_test_target
assert_eq "going reverted both, patches stay enabled" "0 0 1 1" \
	"$(func_attr klp_test_p1 klp_test_target klp_target_a patched) $(func_attr klp_test_p2 klp_test_target klp_target_a patched) $(patch_enabled klp_test_p1) $(patch_enabled klp_test_p2)"
check "no ftrace_ops left for the gone module" eval "! grep -q '^klp_target_[ab] ' $TRACEFS/enabled_functions"

check "p1 disabled while its object is absent" set_enabled klp_test_p1 0
check "target loads again" klp_insmod klp_test_target
assert_eq "only the enabled p2 is applied" "2001 2002" "$(winner)"
assert_eq "p1 not on the stack" "0/0 1/1" "$(pos klp_test_p1) $(pos klp_test_p2)"
check "p1 enabled with its object loaded" set_enabled klp_test_p1 1
assert_eq "p1 wins after its enable" "1001 1002" "$(winner)"
check "p3 loads with the target present" klp_insmod klp_test_p3
assert_eq "p3 wins at once" "3001 3002" "$(winner)"

check "target reload with three enabled patches" eval "rmmod klp_test_target && klp_insmod klp_test_target"
assert_eq "reapplied in enable order: p3 over p1 over p2" "3001 3002 1/3 2/3 3/3" \
	"$(winner) $(pos klp_test_p3) $(pos klp_test_p1) $(pos klp_test_p2)"
assert_eq "original still never entered" "0 0" "$(entered a) $(entered b)"

# The last enabled wins, whatever the registration order: p2, registered
# first, enabled again last, must still win after the module reloads.
check "p2 disabled and enabled again" eval "set_enabled klp_test_p2 0 && set_enabled klp_test_p2 1"
assert_eq "p2 wins: p2 over p3 over p1" "2001 2002 1/3 2/3 3/3" \
	"$(winner) $(pos klp_test_p2) $(pos klp_test_p3) $(pos klp_test_p1)"
dmesg_mark
check "target reload" eval "rmmod klp_test_target && klp_insmod klp_test_target"
assert_eq "p2 still wins after the reload: p2 over p3 over p1" "2001 2002 1/3 2/3 3/3" \
	"$(winner) $(pos klp_test_p2) $(pos klp_test_p3) $(pos klp_test_p1)"
assert_eq "reapplied in enable order (dmesg): p1 p3 p2" "klp_test_p1 klp_test_p3 klp_test_p2" \
	"$(dmesg_since | sed -n "s/.*applying patch '\([^']*\)' to loading module 'klp_test_target'.*/\1/p" | paste -sd' ')"

# A module whose patches cannot all be applied is refused.  The builtin
# livepatch claims klp_target_b first (it runs before module notifiers),
# so p1..p3 cannot patch it: the target must not load at all.
check "target unloads" rmmod klp_test_target
before=$(cat $TRACEFS/enabled_functions | sort)
check "builtin livepatch patch for klp_target_b (deferred) loads" \
	klp_insmod klp_test_builtin func=klp_target_b
dmesg_mark
check "target load refused: its patches conflict" eval '! klp_insmod klp_test_target'
check "dmesg names the refused module" dmesg_has "refusing the module"
check "dmesg names the function and the builtin patch" dmesg_has "function 'klp_target_b' is already live patched by the kernel's builtin livepatch (patch 'klp_test_builtin'"
check "target is not loaded" eval '! grep -q "^klp_test_target " /proc/modules'
assert_eq "nothing of ours half-applied" "0 0 0 0" \
	"$(func_attr klp_test_p1 klp_test_target klp_target_a patched) $(func_attr klp_test_p3 klp_test_target klp_target_a patched) $(cat $KLP_SYSFS/klp_test_p1/klp_test_target/loaded) $(cat $KLP_SYSFS/klp_test_p3/klp_test_target/loaded)"
assert_eq "ftrace enabled_functions as before" "$before" "$(cat $TRACEFS/enabled_functions | sort)"
ktap_finish
