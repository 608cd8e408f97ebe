#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Fault injection: an allocation or ftrace failure at each step of enable
# (and of registration and of applying patches to a coming module) must
# roll back to exactly the prior state: the whole sysfs tree, the ftrace
# enabled_functions list and what the functions return are compared
# before and after.  The core's debug knob
# /sys/module/klp/parameters/fault_inject fails the Nth pass of a step.
. "$(dirname "$0")/../lib.sh"
ktap_start "fault injection: every failing enable step rolls back"

klp_insmod klp || { not_ok "core loads"; ktap_finish; }
klp_insmod klp_test_target || { not_ok "target loads"; ktap_finish; }
FAULT=/sys/module/klp/parameters/fault_inject

state() {	# everything a failed step must leave as it was
	grep -r . "$KLP_SYSFS" 2>/dev/null | sort
	sort "$TRACEFS/enabled_functions"
	cat /sys/kernel/debug/klp/stacks | sort
	if [ -d "$KLP_TARGET" ]; then echo "$(target a) $(target b) $(target c)"; else echo "no target"; fi
}

# try_fault DESC SITE NTH CMD...: arm the fault, run CMD (must fail), and
# compare the state; the fault must have fired.
try_fault() {
	local desc=$1 site=$2 nth=$3 before after
	shift 3
	before=$(state)
	echo "$site $nth" > $FAULT
	if "$@" 2>/dev/null; then
		not_ok "$desc: fails"
		echo "- 0" > $FAULT
		return
	fi
	after=$(state)
	assert_eq "$desc: fault fired" "- 0" "$(cat $FAULT)"
	if [ "$before" = "$after" ]; then
		ok "$desc: state exactly as before"
	else
		not_ok "$desc: state exactly as before"
		diff <(echo "$before") <(echo "$after") | sed 's/^/# /'
	fi
}

check "p1 registers (not enabled)" klp_insmod klp_test_p1 enable=0
check "p2 registers (not enabled)" klp_insmod klp_test_p2 enable=0

# p1 alone: both of its functions need a new ftrace_ops.
for site in alloc_ops ftrace_set_filter_ip register_ftrace_function enable_func; do
	for nth in 1 2; do
		try_fault "enable p1 on empty stacks, $site #$nth" $site $nth set_enabled klp_test_p1 1
	done
done
check "p1 enables once no fault is armed" set_enabled klp_test_p1 1
assert_eq "p1 wins" "1001 1002" "$(target a) $(target b)"

# p2 over p1: pushes on existing stacks allocate nothing; only the step
# itself can fail, first or second function.
for nth in 1 2; do
	try_fault "enable p2 stacked on p1, enable_func #$nth" enable_func $nth set_enabled klp_test_p2 1
done
check "p2 enables once no fault is armed" set_enabled klp_test_p2 1
assert_eq "p2 wins" "2001 2002" "$(target a) $(target b)"

# Registration: the id allocation of the first and second function.
check "api module loads" klp_insmod klp_test_api
api() { echo "$1" > /sys/kernel/debug/klp_test_api/ctl && awk '{ print $NF }' /sys/kernel/debug/klp_test_api/ctl; }
api_register() { [ "$(api register)" = 0 ]; }
try_fault "register, alloc_func_id #1" alloc_func_id 1 api_register
assert_eq "register works after the fault" 0 "$(api register)"

# A coming module: applying p1 and p2 to it fails at each step; the module
# load is refused and nothing is half-applied.
check "target unloads (patches revert)" rmmod klp_test_target
# p1's two functions get new ftrace_ops (passes 1, 2); p2's push on them.
for fault in "alloc_ops 1" "alloc_ops 2" "register_ftrace_function 2" \
	     "enable_func 1" "enable_func 3" "enable_func 4"; do
	try_fault "target load, ${fault/ / #}" $fault klp_insmod klp_test_target
	check "target not loaded after the fault" eval '! grep -q "^klp_test_target " /proc/modules'
done
check "target loads once no fault is armed" klp_insmod klp_test_target
assert_eq "p2 over p1 again" "2001 2002" "$(target a) $(target b)"
ktap_finish
