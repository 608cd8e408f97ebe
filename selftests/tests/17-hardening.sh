#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# klp-cost: 50
# klp-accel: tcg,thread=single
# klp-boot-args: idle=halt
# klp-min-results: 42
# Failures that would pass silently, each refused or handled at its root:
# kernel.ftrace_enabled, a module still in its init, __init functions, a
# disabled patch that cannot resolve, a patch module whose init fails with
# its patch applied, and a patched idle function (RCU not watching).
# Single-threaded TCG: default_idle runs on every idle vCPU, and
# multi-threaded TCG hangs when ftrace rewrites a call site under
# parallel calls (ENVIRONMENT.md).  idle=halt makes the idle loop call
# default_idle().
. "$(dirname "$0")/../lib.sh"
ktap_start "hardening: silent failures refused"

klp_insmod klp || bail "core loads"
FE=/proc/sys/kernel/ftrace_enabled
werr() { { echo "$2" > "$1"; } 2>&1; }		# werr FILE VALUE: the write's error

# --- kernel.ftrace_enabled cannot switch patches off silently -------------
check "seed sample loads" klp_insmod livepatch-sample
err=$(werr $FE 0)
check "ftrace_enabled=0 refused while a patch is applied (EBUSY)" \
	eval 'echo "$err" | grep -q "Device or resource busy"'
assert_eq "ftrace stays on and the sample still wins" "1 this has been live patched" \
	"$(cat $FE) $(cat /proc/cmdline)"
check "sample disabled" set_enabled livepatch_sample 0
cmdline=$(cat /proc/cmdline)
# On an IBT kernel the core's trampolines (core/tramp.c) keep a permanent
# ftrace_ops for as long as it is loaded: there ftrace stays on.
if grep -q '^klp_tramp_' $TRACEFS/enabled_functions; then
	err=$(werr $FE 0)
	check "trampolines hooked: ftrace_enabled=0 refused even with no patch" \
		eval 'echo "$err" | grep -q "Device or resource busy"'
	skip "enable refused while ftrace is off" "ftrace cannot be switched off while klp.ko is loaded on $(uname -r)"
else
	check "ftrace_enabled=0 accepted with no patch applied" eval "echo 0 > $FE"
	echo > $TRACEFS/trace
	echo 1 > $TRACEFS/events/klp/klp_enable_failed/enable
	dmesg_mark
	err=$(werr "$KLP_SYSFS/livepatch_sample/enabled" 1)
	check "enable refused while ftrace is off (EBUSY)" \
		eval 'echo "$err" | grep -q "Device or resource busy"'
	check "the log says ftrace is off, naming the function" eval \
		"dmesg_since | grep -qF \"function 'cmdline_proc_show' cannot be patched: ftrace is disabled (sysctl kernel.ftrace_enabled = 0)\""
	check "klp_enable_failed says so (err=-16)" \
		grep -q 'klp_enable_failed: seq=[0-9]* patch=livepatch_sample vmlinux:cmdline_proc_show err=-16' $TRACEFS/trace
	echo 0 > $TRACEFS/events/klp/klp_enable_failed/enable
	assert_eq "nothing applied: enabled 0, patched 0, original runs" "0 0 $cmdline" \
		"$(patch_enabled livepatch_sample) $(func_attr livepatch_sample vmlinux cmdline_proc_show patched) $(cat /proc/cmdline)"
	check "ftrace_enabled=1 again" eval "echo 1 > $FE"
fi
check "sample enables with ftrace on" set_enabled livepatch_sample 1
assert_eq "sample wins" "this has been live patched" "$(cat /proc/cmdline)"

# --- a module still in its init counts as loaded --------------------------
# init_delay_ms keeps klp_test_target COMING for a while, like a driver
# probing at boot while a patch service loads patches.
# (target_load_slow in lib.sh)
loaded_patched() {	# loaded_patched PATCH: "<loaded> <a patched> <b patched>"
	echo "$(cat $KLP_SYSFS/$1/klp_test_target/loaded) $(func_attr $1 klp_test_target klp_target_a patched) $(func_attr $1 klp_test_target klp_target_b patched)"
}

check "target module in its init (COMING)" target_load_slow
check "p1 registers and enables during the target's init" klp_insmod klp_test_p1
assert_eq "p1: object loaded, both funcs patched at once" "1 1 1" "$(loaded_patched klp_test_p1)"
check "the target's init completes" wait $TARGET_PID
assert_eq "p1 wins once the target is live" "1001 1002" "$(target a) $(target b)"
assert_eq "original never entered" "0 0" "$(entered a) $(entered b)"

check "target unloads (p1 reverted)" rmmod klp_test_target
check "target module in its init again" target_load_slow
check "p2 registers, not enabled, during the target's init" klp_insmod klp_test_p2 enable=0
assert_eq "p2: object loaded, nothing patched" "1 0 0" "$(loaded_patched klp_test_p2)"
check "the target's init completes" wait $TARGET_PID
check "p2 enabled from sysfs once the target is live" set_enabled klp_test_p2 1
assert_eq "p2 over p1" "2001 2002 1/2" \
	"$(target a) $(target b) $(func_attr klp_test_p2 klp_test_target klp_target_a stack_pos)/$(func_attr klp_test_p2 klp_test_target klp_target_a stack_depth)"

# --- __init functions are refused at registration ----------------------
check "target unloads" rmmod klp_test_target
check "target module in its init again" target_load_slow
dmesg_mark
check "a patch of the target's __init function is refused" \
	eval '! klp_insmod klp_test_probe objname=klp_test_target funcs=klp_target_init'
check "the log names the __init function" eval \
	"dmesg_since | grep -qF \"function 'klp_target_init' of object 'klp_test_target' is __init code, freed once init is done: it cannot be patched\""
check "the target's init completes" wait $TARGET_PID
assert_eq "p2 still wins, nothing else registered" "2001 no" \
	"$(target a) $([ -e $KLP_SYSFS/klp_test_probe ] && echo yes || echo no)"
# vmlinux: kernel_init_freeable is __init; kallsyms still lists it.
dmesg_mark
check "a patch of vmlinux's __init kernel_init_freeable is refused" \
	eval '! klp_insmod klp_test_probe funcs=kernel_init_freeable'
check "the log names it as __init" eval \
	"dmesg_since | grep -qF \"function 'kernel_init_freeable' of object 'vmlinux' is __init code\""

# --- a disabled patch cannot refuse its module's load --------------------
check "target unloads" rmmod klp_test_target
check "a patch naming a symbol the target lacks registers, disabled" \
	klp_insmod klp_test_probe2 objname=klp_test_target funcs=klp_target_a,klp_target_zz enable=0
dmesg_mark
check "the target still loads" klp_insmod klp_test_target
check "the log warns, naming the patch and the module" eval \
	"dmesg_since | grep -qF \"patch 'klp_test_probe2' cannot be resolved for loading module 'klp_test_target' (-2): enabling it will fail\""
assert_eq "p2 over p1 reapplied" "2001 2002" "$(target a) $(target b)"
dmesg_mark
err=$(werr "$KLP_SYSFS/klp_test_probe2/enabled" 1)
check "enabling it fails (ENOENT)" eval 'echo "$err" | grep -q "No such file or directory"'
check "with the resolution error again" eval \
	"dmesg_since | grep -qF \"symbol 'klp_target_zz' not found in object 'klp_test_target'\""
assert_eq "it stays disabled, nothing applied" "0 0 2001" \
	"$(patch_enabled klp_test_probe2) $(func_attr klp_test_probe2 klp_test_target klp_target_a patched) $(target a)"

# --- a patch module whose init fails with its patch applied --------------
dmesg_mark
check "p3 whose init fails after enabling its patch is refused" \
	eval '! klp_insmod klp_test_p3 fail_init=1'
check "the log says the patch is reverted and unregistered" eval \
	"dmesg_since | grep -qF \"patch module 'klp_test_p3' is going away with its patch still registered and enabled: reverting and unregistering it\""
assert_eq "p2 wins again, p3 left no sysfs entry" "2001 2002 no" \
	"$(target a) $(target b) $([ -e $KLP_SYSFS/klp_test_p3 ] && echo yes || echo no)"
assert_eq "stacks hold p2 over p1 only" "klp_test_target klp_target_a 2 klp_test_p2 klp_test_p1" \
	"$(grep ' klp_target_a ' /sys/kernel/debug/klp/stacks | sed 's/:[0-9]*//g')"
check "p3 loads normally afterwards" klp_insmod klp_test_p3
assert_eq "p3 wins" "3001 3002" "$(target a) $(target b)"

# --- a patched idle function: redirected, never reported ----------------
# default_idle() runs after RCU stopped watching the CPU: the handler
# redirects it, but klp:klp_redirect must not fire there (lockdep warns at
# every such call, and BPF and perf consumers need RCU).  The calls are
# counted by the replacement itself.  Since 6.2 the idle path is noinstr
# (not traceable): nothing there can be patched, so nothing to check.
if ! grep -qx default_idle $TRACEFS/available_filter_functions; then
	skip "a patched idle function is redirected but not reported" \
		"default_idle is not traceable on $(uname -r) (noinstr idle path)"
	ktap_finish
fi
echo > $TRACEFS/trace
echo 1 > $TRACEFS/events/klp/klp_redirect/enable
check "a patch of default_idle loads" klp_insmod klp_test_idle
calls0=$(cat /sys/module/klp_test_idle/parameters/calls)
sleep 2
calls1=$(cat /sys/module/klp_test_idle/parameters/calls)
target_call a 1000 > /dev/null
echo 0 > $TRACEFS/events/klp/klp_redirect/enable
diag "default_idle replacement ran $((calls1 - calls0)) times in 2 s"
check "the idle loop runs the replacement" test "$calls1" -gt "$calls0"
assert_eq "no klp_redirect event from default_idle" 0 "$(grep -c 'default_idle' $TRACEFS/trace)"
assert_eq "klp_redirect still fires where RCU watches (1000 calls of a)" 1000 \
	"$(grep -c 'klp_target_a.* -> ' $TRACEFS/trace)"
check "the idle patch disables" set_enabled klp_test_idle 0
ktap_finish
