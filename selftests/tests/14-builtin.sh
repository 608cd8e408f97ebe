#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# klp-cost: 30
# klp-accel: tcg,thread=single
# klp-min-results: 20
# Single-threaded TCG: on 6.12 the builtin livepatch's transition rewrites
# every cond_resched() call site (sched_dynamic_klp_enable()) while the
# other CPUs run, which multi-threaded TCG mis-emulates (an "Oops: int3"
# in rcu_gp_fqs_loop ended this group once; doc/testing.md).
# Living next to the kernel's builtin livepatch: both patch different
# functions at once; on one function the second to come fails cleanly, the
# error names the function, and a klp patch rolls back every function it
# had already enabled.  Also: under KASLR an old_addr hint is ignored.
. "$(dirname "$0")/../lib.sh"
ktap_start "coexistence with the builtin livepatch"

klp_insmod klp || bail "core loads"
klp_insmod klp_test_target || bail "target loads"
BUILTIN=/sys/kernel/livepatch/klp_test_builtin

# done when transition reads 0, or the patch is gone (freed after disable)
builtin_settled() {
	[ ! -e $BUILTIN ] || [ "$(cat $BUILTIN/transition 2>/dev/null)" = 0 ]
}
wait_builtin_transition() {
	wait_until 10 builtin_settled
}

check "klp p1 patches klp_target_a and _b" klp_insmod klp_test_p1
check "builtin patch on klp_target_c loads" klp_insmod klp_test_builtin func=klp_target_c
check "builtin transition completes" wait_builtin_transition
assert_eq "both cores live on different functions" "1001 1002 7000" "$(target a) $(target b) $(target c)"

# A klp patch on klp_target_a (stacks on p1) and klp_target_c (builtin's).
before=$(sort "$TRACEFS/enabled_functions")
dmesg_mark
err=$(insmod "$(klp_modpath klp_test_probe)" objname=klp_test_target funcs=klp_target_a,klp_target_c 2>&1)
assert_eq "klp patch on the builtin's function is refused with EBUSY" \
	"1 Device or resource busy" "$? ${err##*: }"
assert_eq "error names the function and the builtin patch" 1 \
	"$(dmesg_since | grep -c "function 'klp_target_c' is already live patched by the kernel's builtin livepatch (patch 'klp_test_builtin'")"
assert_eq "klp_target_a rolled back to p1, c still the builtin's" "1001 7000" "$(target a) $(target c)"
assert_eq "p1 alone on klp_target_a's stack again" "1/1" \
	"$(func_attr klp_test_p1 klp_test_target klp_target_a stack_pos)/$(func_attr klp_test_p1 klp_test_target klp_target_a stack_depth)"
check "no sysfs entry left for the refused patch" test ! -e "$KLP_SYSFS/klp_test_probe"
assert_eq "ftrace enabled_functions unchanged" "$before" "$(sort "$TRACEFS/enabled_functions")"

# The other way round: the builtin cannot take a function klp holds.
check "builtin patch disabled" eval "echo 0 > $BUILTIN/enabled"
check "builtin transition completes" wait_builtin_transition
check "builtin patch module removed" eval 'wait_until 5 rmmod klp_test_builtin 2>/dev/null; ! grep -q "^klp_test_builtin " /proc/modules'
assert_eq "klp_target_c original again" 300 "$(target c)"
dmesg_mark
err=$(insmod "$(klp_modpath klp_test_builtin)" func=klp_target_a 2>&1)
assert_eq "builtin patch on klp's klp_target_a is refused with EBUSY" \
	"1 Device or resource busy" "$? ${err##*: }"
# the builtin livepatch's own words (kernel/livepatch/patch.c, 6.1)
assert_eq "the builtin's error names the function and EBUSY" 1 \
	"$(dmesg_since | grep -c "livepatch: failed to register ftrace handler for function 'klp_target_a' (-16)")"
assert_eq "klp p1 still wins" "1001 1002" "$(target a) $(target b)"
check "builtin left nothing behind" test ! -e "$BUILTIN"

# KASLR: a build-time old_addr cannot match, so it is ignored.  (Debian's
# kernels randomize their base, and this group boots without nokaslr.)
text=$(awk '$3 == "_text" { print $1 }' /proc/kallsyms)
if [ "$text" = ffffffff81000000 ]; then
	not_ok "wrong old_addr ignored under KASLR"
	diag "KASLR is not active: _text at its link address"
else
	diag "KASLR active: _text at $text"
	check "wrong old_addr ignored under KASLR" \
		klp_insmod klp_test_probe funcs=cmdline_proc_show old_addr=0xffffffff81000000
	assert_eq "cmdline_proc_show redirected by name" "" "$(cat /proc/cmdline)"
fi
ktap_finish
