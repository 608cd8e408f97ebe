#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Refuse, naming the option, a kernel build tree the klp core cannot work on
# (seed 005's lesson: a clear failure, not a broken build).
# Usage: scripts/check-kernel.sh KDIR
set -euo pipefail
kdir=$1
conf=$kdir/include/config/auto.conf

if [ ! -f "$kdir/Makefile" ] || [ ! -f "$conf" ]; then
	echo "klp: no kernel build tree at $kdir: install linux-headers-\$(uname -r)" \
		"or the headers of your target kernel (Debian: apt-get install linux-headers-amd64)," \
		"or pass KVER=<version> / KDIR=<dir>" >&2
	exit 1
fi

has() { grep -q "^$1=y" "$conf"; }
fail=0
if ! has CONFIG_DYNAMIC_FTRACE_WITH_REGS && ! has CONFIG_DYNAMIC_FTRACE_WITH_ARGS; then
	echo "klp: $kdir lacks CONFIG_DYNAMIC_FTRACE_WITH_REGS (or CONFIG_DYNAMIC_FTRACE_WITH_ARGS): ftrace cannot redirect calls" >&2
	fail=1
fi
for opt in CONFIG_MODULES CONFIG_SYSFS CONFIG_KALLSYMS_ALL CONFIG_KPROBES; do
	if ! has $opt; then
		case $opt in
		CONFIG_KPROBES) why="the core recovers kallsyms_lookup_name through a kprobe" ;;
		CONFIG_KALLSYMS_ALL) why="patched functions and relocations are resolved by name" ;;
		CONFIG_MODULES) why="the core and patches are modules" ;;
		CONFIG_SYSFS) why="patches are controlled through sysfs" ;;
		esac
		echo "klp: $kdir lacks $opt: $why" >&2
		fail=1
	fi
done
exit $fail
