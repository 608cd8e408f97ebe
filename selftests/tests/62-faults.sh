#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# klp-cost: 89
# klp-min-results: 89
# Fault injection: an allocation or ftrace failure at each step of enable
# (and of registration and of applying patches to a coming module) must
# roll back to exactly the prior state: the whole sysfs tree, the ftrace
# enabled_functions list and what the functions return are compared
# before and after.  The test build of the core (build/core-fault, made
# with KLP_FAULT_INJECT=y) has the knob /sys/module/klp/parameters/
# fault_inject that fails the Nth pass of a step.  Also: a disable whose
# ftrace unregister fails keeps that function patched and says so.  A
# failing enable publishes nothing: no push of it is ever traced.  And a
# func popped while the handler still holds it keeps its name until the
# handler is done (init_on_free=1 zeroes what is freed, so a name read
# after its free shows empty).
# klp-boot-args: init_on_free=1
. "$(dirname "$0")/../lib.sh"
ktap_start "fault injection: every failing enable step rolls back"

klp_events_load || bail "klp_events (the tracepoints) loads"
insmod "$KLP_TOP/build/core-fault/klp.ko" || bail "fault-injection build of the core loads"
klp_insmod klp_test_target || bail "target loads"
FAULT=/sys/module/klp/parameters/fault_inject
trace_no_comm
inst=$TRACEFS/instances/klp_faults
mkdir "$inst" || bail "trace instance"
echo 1 > "$inst/events/klp/klp_func_push/enable"
pushes_of() {	# pushes_of PATCH: its klp_func_push events since the last clear
	grep -c "klp_func_push: .* patch=$1 " "$inst/trace"
}

state() {	# everything a failed step must leave as it was
	grep -r . "$KLP_SYSFS" 2>/dev/null | sort
	sort "$TRACEFS/enabled_functions"
	cat /sys/kernel/debug/klp/stacks | sort
	cat /sys/kernel/debug/klp/allocated
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

# p1 alone: both of its functions need a new func_stack, and both are
# hooked in one ftrace update that also registers the shared ftrace_ops.
for fault in "alloc_ops 1" "alloc_ops 2" "enable_func 1" "enable_func 2" \
	     "alloc_ips 1" "ftrace_set_filter_ips 1" "register_ftrace_function 1"; do
	echo > "$inst/trace"
	try_fault "enable p1 on empty stacks, ${fault/ / #}" $fault set_enabled klp_test_p1 1
	assert_eq "enable p1, ${fault/ / #}: no push traced" 0 "$(pushes_of klp_test_p1)"
done
check "p1 enables once no fault is armed" set_enabled klp_test_p1 1
assert_eq "p1 wins" "1001 1002" "$(target a) $(target b)"

# p2 over p1: pushes on existing stacks allocate nothing; only the step
# itself can fail, first or second function.
for nth in 1 2; do
	echo > "$inst/trace"
	try_fault "enable p2 stacked on p1, enable_func #$nth" enable_func $nth set_enabled klp_test_p2 1
	assert_eq "enable p2 stacked on p1, enable_func #$nth: no push traced" 0 "$(pushes_of klp_test_p2)"
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
# p1's two functions get new func_stacks (passes 1, 2), hooked in one
# update; p2's push on them.
for fault in "alloc_ops 1" "alloc_ops 2" "ftrace_set_filter_ips 1" \
	     "register_ftrace_function 1" "enable_func 1" "enable_func 3" "enable_func 4"; do
	try_fault "target load, ${fault/ / #}" $fault klp_insmod klp_test_target
	check "target not loaded after the fault" eval '! grep -q "^klp_test_target " /proc/modules'
done
check "target loads once no fault is armed" klp_insmod klp_test_target
assert_eq "p2 over p1 again" "2001 2002" "$(target a) $(target b)"

# Functions added to the shared ftrace_ops while it is registered: p3
# patches klp_target_c beside p1's a and b; its one ftrace update fails.
check "p2 disabled: p1 alone on both stacks" set_enabled klp_test_p2 0
check "p3 (klp_target_c) registers" \
	klp_insmod klp_test_probe objname=klp_test_target funcs=klp_target_c enable=0
try_fault "enable p3 beside p1, ftrace_set_filter_ips #1" ftrace_set_filter_ips 1 \
	set_enabled klp_test_probe 1
try_fault "enable p3 beside p1, alloc_ips #1" alloc_ips 1 set_enabled klp_test_probe 1

# A disable whose ftrace update fails: ftrace may still call the handler,
# so the funcs it was to unhook stay on their stacks, the patch stays
# enabled, and a later disable finishes.  First a removal from the
# registered ops (p3 stays), then the unregistration of the last ones.
check "p3 enables once no fault is armed" set_enabled klp_test_probe 1
disable_fails() {	# SITE: disabling p1 fails there; nothing changes
	local before l0 err
	before=$(state)
	l0=$(dmesg | wc -l)
	echo "$1 1" > $FAULT
	err=$({ echo 0 > "$KLP_SYSFS/klp_test_p1/enabled"; } 2>&1)
	check "$1 fails: disabling p1 fails with EIO" eval 'echo "$err" | grep -q "Input/output error"'
	assert_eq "$1: fault fired" "- 0" "$(cat $FAULT)"
	check "$1: the log says which functions stay patched" eval \
		"dmesg | tail -n +$((l0 + 1)) | grep -F \"failed to unregister the ftrace handler of function 'klp_target_\" |
			grep -c \"'klp_target_[ab]' (-5): it stays patched\" | grep -qx 2"
	assert_eq "$1: p1 stays enabled, a and b patched" "1 1 1" \
		"$(patch_enabled klp_test_p1) $(func_attr klp_test_p1 klp_test_target klp_target_a patched) $(func_attr klp_test_p1 klp_test_target klp_target_b patched)"
	assert_eq "$1: the state is as before" "$before" "$(state)"
}
disable_fails ftrace_set_filter_ips
assert_eq "a and b still p1's" "1001 1002" "$(target a) $(target b)"
check "p3 disabled: p1's functions are the last ones hooked" set_enabled klp_test_probe 0
disable_fails unregister_ftrace_function
assert_eq "a and b still p1's" "1001 1002" "$(target a) $(target b)"
check "a second disable of p1 succeeds" set_enabled klp_test_p1 0
assert_eq "both originals, no ftrace entry left" "100 200 0" \
	"$(target a) $(target b) $(grep -c '^klp_target_' $TRACEFS/enabled_functions)"

# --- a popped func's name outlives the handler's readers ---------------------
# The api's patch goes over p3 on klp_target_c; a caller is held in the
# handler (redirect_delay_ms) between reading the api's func and tracing
# its name, while the api's patch is disabled and unregistered (its
# kobjects' names freed).  The disable's transition completes only once
# the held caller is out of the handler (it had not switched), and the
# event must still name klp_target_c: the free waits for the handler.
check "p3 enabled on klp_target_c" set_enabled klp_test_probe 1
assert_eq "the api's patch enables over p3" "0 8003" "$(api enable) $(target c)"
echo 0 > "$inst/events/klp/klp_func_push/enable"
echo 1 > "$inst/events/klp/klp_redirect/enable"
echo > "$inst/trace"
DELAY=/sys/module/klp/parameters/redirect_delay_ms
echo 500 > $DELAY
target_call c 2 > /dev/null &
caller=$!
sleep 0.2
assert_eq "disable while the handler holds the api's func" 0 "$(api disable)"
check "its transition completes once the held caller is out" wait_transition klp_test_api
assert_eq "unregister" 0 "$(api unregister)"
wait $caller
echo 0 > $DELAY
echo 0 > "$inst/events/klp/klp_redirect/enable"
check "the held call was the api's (a klp_redirect of klp_test_api)" \
	grep -q 'klp_redirect: .* patch=klp_test_api$' "$inst/trace"
redirects=$(grep -c 'klp_redirect: ' "$inst/trace")
assert_eq "every klp_redirect (at least one) names klp_target_c (no freed name read)" \
	"yes $redirects" \
	"$([ "${redirects:-0}" -gt 0 ] && echo yes) $(grep -c 'klp_redirect: klp_target_c -> ' "$inst/trace")"
assert_eq "p3 wins again" 9000 "$(target c)"
rmdir "$inst"
ktap_finish
