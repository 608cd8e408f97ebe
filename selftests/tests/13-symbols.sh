#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# klp-cost: 39
# klp-accel: tcg,thread=single
# klp-boot-args: nokaslr
# klp-min-results: 22
# Symbol resolution with the seed's rules, on a kernel at its link address
# (nokaslr) so that old_addr hints are verified: a missing name, an
# ambiguous name and a wrong old_addr each fail the registration with an
# error naming the symbol, and leave nothing behind.
. "$(dirname "$0")/../lib.sh"
ktap_start "symbol resolution (nokaslr)"

klp_insmod klp || bail "core loads"
klp_insmod klp_test_target || bail "target loads"
assert_eq "kernel runs at its link address" ffffffff81000000 \
	"$(awk '$3 == "_text" { print $1 }' /proc/kallsyms)"
cmdline=$(cat /proc/cmdline)
ftrace_before=$(sort "$TRACEFS/enabled_functions")

# nothing_left NAME: no sysfs entry, no new ftrace user, originals intact
nothing_left() {
	assert_eq "$1: nothing left behind" "absent|$ftrace_before|$cmdline|100 200 300" \
		"$([ -e "$KLP_SYSFS/klp_test_probe" ] && echo present || echo absent)|$(sort "$TRACEFS/enabled_functions")|$(cat /proc/cmdline)|$(target a) $(target b) $(target c)"
}

dmesg_mark
check "missing vmlinux symbol refused" eval '! klp_insmod klp_test_probe funcs=klp_no_such_function'
check "error names the missing symbol" dmesg_has "symbol 'klp_no_such_function' not found in object 'vmlinux'"
nothing_left "missing vmlinux symbol"

dmesg_mark
check "missing module symbol refused" eval '! klp_insmod klp_test_probe objname=klp_test_target funcs=klp_target_a,klp_target_zz'
check "error names the missing module symbol" dmesg_has "symbol 'klp_target_zz' not found in object 'klp_test_target'"
nothing_left "missing module symbol"

# A vmlinux name that kallsyms lists more than once.
amb=$(awk 'NF == 3 && ($2 == "t" || $2 == "T") { n[$3]++ } END { for (s in n) if (n[s] == 2) print s }' /proc/kallsyms |
	grep -v -e '\.' -e '^__' | sort | head -n 1)
amb_addrs=$(awk -v s="$amb" 'NF == 3 && $3 == s { print $1 }' /proc/kallsyms)
diag "ambiguous symbol: $amb at" $amb_addrs
check "found an ambiguous vmlinux symbol" test -n "$amb"
dmesg_mark
check "ambiguous symbol refused" eval "! klp_insmod klp_test_probe funcs=$amb"
check "error names the ambiguity" dmesg_has "unresolvable ambiguity (2 matches) on symbol '$amb' in object 'vmlinux'"
nothing_left "ambiguous symbol"

real=$(awk 'NF == 3 && $3 == "cmdline_proc_show" { print $1 }' /proc/kallsyms)
wrong=$(printf '0x%x' $((0x$real + 16)))
dmesg_mark
check "wrong old_addr refused" eval "! klp_insmod klp_test_probe funcs=cmdline_proc_show old_addr=$wrong"
check "error names symbol and address" dmesg_has "symbol 'cmdline_proc_show' not found at specified address 0x0*${wrong#0x}"
nothing_left "wrong old_addr"

first=$(echo "$amb_addrs" | head -n 1)
check "old_addr resolves the ambiguity (register only)" \
	klp_insmod klp_test_probe2 funcs="$amb" old_addr="0x$first" enable=0
assert_eq "sysfs shows the hinted address" "0x$first" \
	"$(func_attr klp_test_probe2 vmlinux "$amb" old_addr)"

# SYSCALL_DEFINE0 makes __x64_sys_getppid and __ia32_sys_getppid aliases
# of one function: one patch naming both would give it two places on one
# func_stack.  Refused at registration, naming both and the address.
x64=$(awk '$3 == "__x64_sys_getppid" { print $1; exit }' /proc/kallsyms)
ia32=$(awk '$3 == "__ia32_sys_getppid" { print $1; exit }' /proc/kallsyms)
check "__x64_sys_getppid and __ia32_sys_getppid are one address" eval '[ -n "$x64" ] && [ "$x64" = "$ia32" ]'
dmesg_mark
check "a patch of both aliases is refused" \
	eval '! klp_insmod klp_test_probe funcs=__x64_sys_getppid,__ia32_sys_getppid'
check "the error names both functions and the address" dmesg_has \
	"functions '__x64_sys_getppid' (object 'vmlinux') and '__ia32_sys_getppid' (object 'vmlinux') of patch 'klp_test_probe' are one function at 0x$x64: a patch may replace it once"
nothing_left "aliased functions"

check "correct old_addr accepted and enabled" klp_insmod klp_test_probe funcs=cmdline_proc_show old_addr="0x$real"
assert_eq "cmdline_proc_show redirected (probe prints nothing)" "" "$(cat /proc/cmdline)"
ktap_finish
