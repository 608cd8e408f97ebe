# SPDX-License-Identifier: GPL-2.0
# bench/guest-site.sh - what a per-call figure's calls went through, sourced
# by bench/guest.sh (its paths: TR; measure() calls site_state after each
# figure's loops).  Records, one a key, beside the figure's samples:
#
#   S|<section>|<config>|<round>|<key>|<value>
#
#   site     klp_target_a's line of tracing/enabled_functions, or "not
#            hooked": how many ftrace_ops are on the call site, its flags
#            (R regs, I ipmodify, D direct), and what the site calls: its
#            one ops' own trampoline ("tramp: ADDR (handler)") or, with
#            more than one ops on it, the list function that walks every
#            registered ops (e.g. "->arch_ftrace_ops_list_func")
#   calls    that in a word: "trampoline", "list", "none"
#   ops      the count of ftrace_ops on the site (0 when not hooked)
#   kprobes  kprobes on klp_target_a (debugfs kprobes/list)
#   transition  the patches of either core in a transition, or "none":
#            outside one, neither handler looks at the calling task (the
#            builtin's reads its func's transition flag, klp's its stack's
#            mark, and each finds it clear)
#   pcs      the code every call enters by a jump the emulator cannot chain
#            (an indirect or cross-page call, or a return): NAME=ADDR for
#            the target, the trampoline, the point it returns to after
#            the handler, the handler and the new function, and the two
#            the loop enters on each call whatever the core
#            (__SCT__cond_resched, __cond_resched); not the loop's own
#            return addresses, nor the retpoline thunk of its call
#   jc       which of those share a slot of QEMU's TB jump cache, or "none"
#            (below)
#
# QEMU's TCG finds the translated block of each such jump in a per-vCPU
# cache of 4096 slots indexed by bits 0-23 of the address (its
# tb_jmp_cache_hash_func, QEMU 7.2 as Debian 12 ships it): two of them
# that share a slot evict each other on every call, and each call then
# takes the slow lookup twice.  Module code lands at a random address
# every boot (KASLR), so whether a core's path collides is a matter of the
# boot, and every redirected call pays for it (doc/performance.md).
# shellcheck shell=bash

# jc_slot ADDR: the TB jump cache slot of ADDR (hex, without 0x)
jc_slot() {
	local a=$((16#${1: -6}))
	local t=$((a ^ (a >> 6)))
	echo $((((t >> 6) & 0xfc0) | (t & 0x3f)))
}

# ksym NAME [MODULE]: NAME's address in /proc/kallsyms (of [MODULE], or
# the first), nothing if there is none
ksym() {
	awk -v n="$1" -v m="${2:+[$2]}" '$3 == n && (m == "" || $4 == m) { print $1; exit }' /proc/kallsyms
}

# once NAME [MODULE]: ksym NAME [MODULE] into KS_ONCE[NAME MODULE], read
# once a boot (for code that stays where it is: the kernel's, and modules
# loaded once; a full read of kallsyms takes a while on TCG)
declare -A KS_ONCE
once() {
	[ -n "${KS_ONCE[$1 ${2:-}]+set}" ] || KS_ONCE[$1 ${2:-}]=$(ksym "$1" "${2:-}")
}

# site_state CONFIG ROUND WANT: the records above for CONFIG's figure of
# ROUND (section MSEC, default redirect), whose calls returned WANT
site_state() {
	local sec=${MSEC:-redirect} cfg=$1 r=$2 line calls=none ops=0 kp tr new= mod tramp h hmod
	local pcs name addr slot jc= seen=
	line=$(grep '^klp_target_a ' "$TR/enabled_functions" 2>/dev/null | tr '\t' ' ' | tr -s ' ')
	if [ -n "$line" ]; then
		ops=$(echo "$line" | sed -n 's/.*(\([0-9]*\)).*/\1/p')
		case $line in
		*tramp:*) calls=trampoline ;;
		*list_func*) calls=list ;;
		*) calls=other ;;
		esac
	fi
	kp=$(grep -c ' klp_target_a+0x0 ' /sys/kernel/debug/kprobes/list 2>/dev/null)
	echo "S|$sec|$cfg|$r|site|${line:-not hooked}"
	echo "S|$sec|$cfg|$r|calls|$calls"
	echo "S|$sec|$cfg|$r|ops|${ops:-?}"
	echo "S|$sec|$cfg|$r|kprobes|${kp:-0}"
	tr=$(grep -l '^1$' /sys/kernel/klp/*/transition /sys/kernel/livepatch/*/transition 2>/dev/null |
		awk -F/ '{ print $(NF - 1) }' | paste -sd ' ')
	echo "S|$sec|$cfg|$r|transition|${tr:-none}"

	once klp_target_a klp_test_target
	pcs="tgt=${KS_ONCE[klp_target_a klp_test_target]}"
	tramp=$(echo "$line" | sed -n 's/.*tramp: 0x\([0-9a-f]*\).*/\1/p')
	if [ -n "$tramp" ]; then
		# the trampoline is a copy of ftrace_caller (no R: both cores
		# take ftrace_regs, not pt_regs, on 6.1 and 6.12)
		once ftrace_call
		once ftrace_caller
		pcs+=" tramp=$tramp tramp_ret=$(printf %x $((16#$tramp + 16#${KS_ONCE[ftrace_call ]} - 16#${KS_ONCE[ftrace_caller ]} + 5)))"
	fi
	# the handler: "(klp_ftrace_handler+0x0/0x1f0 [klp])" is klp's, without
	# a module the kernel's own; "->NAME+..." a list function
	h=$(echo "$line" | sed -n 's/.*tramp: 0x[0-9a-f]* (\([a-z_0-9]*\)+.*/\1/p; s/.*->\([a-z_0-9]*\)+.*/\1/p' | head -n 1)
	hmod=$(echo "$line" | sed -n 's/.*tramp: 0x[0-9a-f]* ([^)]* \[\([a-z_0-9]*\)\]).*/\1/p')
	if [ -n "$h" ]; then
		once "$h" "$hmod"
		pcs+=" handler=${KS_ONCE[$h $hmod]}"
	fi
	case $3:$cfg in
	100:* | *:disabling_*) mod= ;;
	*:enabling_ours) mod=bench_tr_ours ;;
	*:enabling_builtin) mod=bench_tr_builtin ;;
	*:builtin*) mod=bench_builtin1 ;;
	*:ours*) mod=bench_ours1 ;;
	esac
	[ -n "$mod" ] && new=$(ksym bench_new_a "$mod")
	[ -n "$new" ] && pcs+=" new=$new"
	once __SCT__cond_resched
	once __cond_resched
	pcs+=" sct=${KS_ONCE[__SCT__cond_resched ]} cond_resched=${KS_ONCE[__cond_resched ]}"
	echo "S|$sec|$cfg|$r|pcs|$pcs"

	for name in $pcs; do
		addr=${name#*=}
		[ -n "$addr" ] || continue
		slot=$(jc_slot "$addr")
		case " $seen " in
		*" $slot:"*)
			jc+="${jc:+ }$(echo " $seen " | sed -n "s/.* $slot:\([a-z_]*\) .*/\1/p")=${name%%=*}" ;;
		esac
		seen+=" $slot:${name%%=*}"
	done
	echo "S|$sec|$cfg|$r|jc|${jc:-none}"
}
