#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# klp-cost: 41
# klp-accel: tcg,thread=single
# klp-min-results: 55
# Batched switching: enabling or disabling a patch calls into ftrace, and
# waits for grace periods, the same number of times whatever its number of
# functions.  Counted from outside the core, by kprobes (klp_test_kcount)
# on ftrace's entry points, on its code-update pass and on the
# grace-period waits, in the process that writes the patch's sysfs
# "enabled" only.  The per-function ftrace_ops of the core before this
# test (one registration and one tasks-RCU wait per function) failed it:
# 16 and 256 of each where 1 is asserted.
. "$(dirname "$0")/../lib.sh"
ktap_start "batched switching: one ftrace update per patch, whatever its size"

klp_insmod klp || bail "core loads"
klp_insmod klp_test_many_tgt || bail "the 256-function target loads"
SUM=/sys/kernel/debug/klp_test_many/sum
assert_eq "unpatched: the functions return 0 ... 255" 32640 "$(cat $SUM)"

# The calls into ftrace that change what is hooked, ftrace's pass over the
# call sites (one per update), each kind of grace period, and the core's
# wait for its ftrace handlers (schedule_on_each_cpu(): once a transition
# that popped funcs completes, before its stacks are unmarked).
FTRACE_CALLS="ftrace_set_filter_ips ftrace_set_filter_ip register_ftrace_function unregister_ftrace_function"
GPS="synchronize_rcu synchronize_rcu_tasks synchronize_rcu_tasks_rude"
HSYNC=schedule_on_each_cpu
probes=
for f in $FTRACE_CALLS ftrace_modify_all_code $GPS $HSYNC; do
	if awk -v f="$f" '$3 == f { found = 1 } END { exit !found }' /proc/kallsyms; then
		probes+=${probes:+,}$f
	else
		diag "no $f on $(uname -r): not counted"
	fi
done
check "kprobes on ftrace's entry points, its update pass and the grace periods" \
	klp_insmod klp_test_kcount funcs="$probes"
KC=/sys/kernel/debug/klp_test_kcount

# counted PATCH STATE: write STATE to PATCH's enabled; prints
# "<function>=<calls> ..." for the calls that write made
counted() {
	sh -c "echo \$\$ > $KC/pid && echo $2 > $KLP_SYSFS/$1/enabled" || return
	echo 0 > $KC/pid
	awk '{ printf "%s%s=%s", sep, $1, $2; sep = " " }' $KC/counts
}

# calls COUNTS: the sum of the ftrace entry-point calls in COUNTS
calls() {
	local kv n=0
	for kv in $1; do
		[[ " $FTRACE_CALLS " == *" ${kv%=*} "* ]] && n=$((n + ${kv#*=}))
	done
	echo $n
}
# probed FUNC: this kernel has FUNC, and it is counted
probed() { [[ ",$probes," == *",$1,"* ]]; }
# count_of COUNTS FUNC: FUNC's calls in COUNTS (summed, if COUNTS is two
# writes' counts); 0 for a function this kernel lacks (nothing can call
# it), "uncounted" for one COUNTS lacks
count_of() {
	local kv n=
	probed "$2" || { echo 0; return; }
	for kv in $1; do
		[ "${kv%=*}" = "$2" ] && n=$((${n:-0} + ${kv#*=}))
	done
	echo "${n:-uncounted}"
}

declare -A on off
for n in 1 16 256; do
	p=klp_test_many$n
	check "$p registers" klp_insmod $p
	on[$n]=$(counted $p 1)
	diag "enable  $n: ${on[$n]}"
	assert_eq "$p enabled: $n functions replaced" $((32640 + 1000 * n)) "$(cat $SUM)"
	off[$n]=$(counted $p 0)
	diag "disable $n: ${off[$n]}"
	assert_eq "$p disabled: every original again" 32640 "$(cat $SUM)"
	assert_eq "$p disabled: nothing left hooked" 0 \
		"$(grep -c '^klp_many_f' "$TRACEFS/enabled_functions")"
done

# On an empty func_stack table: enable = set the filter + register,
# disable = unregister + clear the filter; one code-update pass each.
for op in on off; do
	declare -n c=$op
	for n in 1 16 256; do
		check "$op, $n functions: counted" eval '[ -n "${c[$n]}" ]'
		assert_eq "$op, $n functions: 2 calls into ftrace" 2 "$(calls "${c[$n]}")"
		assert_eq "$op, $n functions: one pass over the call sites" 1 \
			"$(count_of "${c[$n]}" ftrace_modify_all_code)"
		for gp in $GPS; do
			if probed $gp; then
				v=$(count_of "${c[$n]}" $gp)
				check "$op, $n functions: at most one $gp" [ "$v" -le 1 ]
			else
				skip "$op, $n functions: at most one $gp" "no $gp on $(uname -r)"
			fi
		done
		# a disable pops: one wait for the handlers; an enable none
		assert_eq "$op, $n functions: waits for the handlers" \
			"$([ $op = off ] && echo 1 || echo 0)" "$(count_of "${c[$n]}" $HSYNC)"
	done
	assert_eq "$op: the same counts for 1, 16 and 256 functions" \
		"${c[1]:-uncounted} | ${c[1]:-uncounted}" "${c[16]} | ${c[256]}"
	unset -n c
done

# Added to and removed from a registered ftrace_ops (the 16-function patch
# stays enabled): one filter update each way, no registration.  Stacking
# and unstacking (16 over 256) touch neither ftrace nor a grace period.
check "klp_test_many16 enabled again" set_enabled klp_test_many16 1
c=$(counted klp_test_many256 1)
diag "enable 256 beside 16: $c"
assert_eq "256 over 16: 240 new functions, 16 stacked: 256 replaced" \
	$((32640 + 256000)) "$(cat $SUM)"
assert_eq "enable beside a patch: one call into ftrace (its filter)" \
	"1 1" "$(calls "$c") $(count_of "$c" ftrace_set_filter_ips)"
c=$(counted klp_test_many16 0)
diag "unstack 16 from 256: $c"
c+=" $(counted klp_test_many16 1)"
diag "stack 16 on 256 again: $c"
assert_eq "unstack and stack 16 on 256: no call into ftrace, no grace period, one wait for the handlers (the unstack's)" "0 0 1" \
	"$(calls "$c") $(for gp in $GPS; do count_of "$c" $gp; done |
		awk '$1 !~ /^[0-9]+$/ { bad = 1 } { s += $1 } END { print bad ? "uncounted" : s }') $(count_of "$c" $HSYNC)"
assert_eq "klp_test_many16 on top again" $((32640 + 256000)) "$(cat $SUM)"
c=$(counted klp_test_many256 0)
diag "disable 256 beside 16: $c"
assert_eq "disable beside a patch: one call into ftrace, no grace period but RCU's, one wait for the handlers" \
	"1 1 0 1" "$(calls "$c") $(count_of "$c" synchronize_rcu) $(count_of "$c" synchronize_rcu_tasks) $(count_of "$c" $HSYNC)"
assert_eq "the 16 functions are klp_test_many16's again" $((32640 + 16000)) "$(cat $SUM)"
check "klp_test_many16 disabled" set_enabled klp_test_many16 0

check "probes removed" rmmod klp_test_kcount
ktap_finish
