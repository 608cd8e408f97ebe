#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The build refuses, naming the option or the package, a kernel tree the
# core cannot work on (seed 005: a clear failure, not a broken build).
. "$(dirname "$0")/../lib.sh"
ktap_start "kernel build tree checks"

kdir=${KDIR:-/lib/modules/${KVER:-$("$KLP_TOP/scripts/kver.sh")}/build}
check "the target kernel tree passes" "$KLP_TOP/scripts/check-kernel.sh" "$kdir"

fake=$(mktemp -d)
trap 'rm -rf "$fake"' EXIT
mkdir -p "$fake/include/config"
touch "$fake/Makefile"
full="CONFIG_DYNAMIC_FTRACE_WITH_REGS=y
CONFIG_DYNAMIC_FTRACE_WITH_ARGS=y
CONFIG_MODULES=y
CONFIG_SYSFS=y
CONFIG_KALLSYMS_ALL=y
CONFIG_KPROBES=y"

for opt in MODULES SYSFS KALLSYMS_ALL KPROBES; do
	echo "$full" | grep -v "^CONFIG_$opt=" > "$fake/include/config/auto.conf"
	msg=$("$KLP_TOP/scripts/check-kernel.sh" "$fake" 2>&1)
	rc=$?
	if [ $rc != 0 ] && echo "$msg" | grep -q "lacks CONFIG_$opt"; then
		ok "refuses a kernel without CONFIG_$opt, naming it"
	else
		not_ok "refuses a kernel without CONFIG_$opt, naming it"; diag "$msg"
	fi
done

echo "$full" | grep -v '^CONFIG_DYNAMIC_FTRACE_WITH_ARGS=' > "$fake/include/config/auto.conf"
check "WITH_REGS alone is enough" "$KLP_TOP/scripts/check-kernel.sh" "$fake"
echo "$full" | grep -v '^CONFIG_DYNAMIC_FTRACE_WITH_REGS=' > "$fake/include/config/auto.conf"
check "WITH_ARGS alone is enough" "$KLP_TOP/scripts/check-kernel.sh" "$fake"
echo "$full" | grep -v '^CONFIG_DYNAMIC_FTRACE_WITH' > "$fake/include/config/auto.conf"
msg=$("$KLP_TOP/scripts/check-kernel.sh" "$fake" 2>&1)
check "refuses a kernel without DYNAMIC_FTRACE_WITH_REGS/ARGS, naming it" \
	eval '! "$KLP_TOP/scripts/check-kernel.sh" "$fake" 2>/dev/null && echo "$msg" | grep -q "lacks CONFIG_DYNAMIC_FTRACE_WITH_REGS"'

msg=$(make -s -C "$KLP_TOP" modules KDIR=/nonexistent 2>&1)
check "make without headers names the package" eval 'echo "$msg" | grep -q "apt-get install linux-headers"'
ktap_finish
