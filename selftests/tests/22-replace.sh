#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# klp-cost: 110
# klp-min-results: 33
# Atomic replace (core/replace.c), after the replace part of upstream's
# test-livepatch.sh, written anew, and past it.  Three patches stacked on
# klp_target_a and _b and one deferred (its module not loaded) are
# replaced by one patch of klp_target_a and _c and of klp_test_dup: the
# exact event sequence (its pushes, then, once its transition completed,
# every other patch's pops with cause replace, klp_target_b's last pop
# leaving the original, one klp_patch_replaced each), the values each function returns, sysfs
# replace/replaced_by, klp/state and the stacks; the deferred module
# loading gets the replace patch's func and not the replaced patch's;
# disabling the replace patch brings none back; a replaced patch can be
# enabled again and replaced again.  Then under real parallelism (every
# func_stack stays non-empty, so no kernel text is rewritten and the
# default multi-threaded TCG runs it): a caller on every CPU but one calls
# klp_target_a while a replace patch replaces p1 and is stacked over and
# disabled, again and again; the original never runs, every call returns
# an enabled patch's value, and klptop's BPF counters per func id equal
# the values the calls got, exactly.  Last, the replace sample.
. "$(dirname "$0")/../lib.sh"
ktap_start "atomic replace"

klp_insmod klp || bail "core loads"
klp_insmod klp_test_target || bail "target loads"
for p in 1 2 3; do klp_insmod klp_test_p$p || bail "p$p enabled"; done
klp_insmod klp_test_probe objname=klp_test_dup funcs=klp_dup_fn sympos=1 ||
	bail "a patch of klp_test_dup (not loaded) enabled, deferred"
INST=$TRACEFS/instances/klp-replace-test
EVENTS="klp_func_push klp_func_pop klp_object klp_patch_replaced klp_patch_enable klp_patch_disable klp_enable_failed"
R=klp_test_replace
values() { echo "$(target a) $(target b) $(target c)"; }
assert_eq "three patches stacked on a and b, p3 wins" "3001 3002 300" "$(values)"

trace_on() {
	local e
	trace_no_comm || return
	mkdir -p "$INST" && echo 4096 > "$INST/buffer_size_kb" || return
	for e in $EVENTS; do
		echo 1 > "$INST/events/klp/$e/enable" || return
	done
}
# events: the trace in the core's order, one compact line per event
events() {
	sed -n 's/.* \(klp_[a-z_]*\): seq=\([0-9]*\) \(.*\)/\2 \1 \3/p' "$INST/trace" | sort -n |
		awk '{ ev = $2; sub(/^klp_/, "", ev); line = ev
			for (i = 3; i <= NF; i++) {
				if ($i ~ /^(id|winner_id)=/) continue
				sub(/^(patch|object|cause)=/, "", $i); line = line " " $i
			}
			print line }'
}
check "tracing the transition events" trace_on

echo > "$INST/trace"
check "replace patch of a, c and klp_test_dup's second klp_dup_fn loads" \
	klp_insmod $R funcs=a,c dup_pos=2
assert_eq "its deferred object, its pushes (the newly hooked c, then a on its stack), the write, then once every task switched every other patch's pops (cause replace), then one replaced event each" \
"object $R klp_test_dup deferred enable
func_push klp_test_target:klp_target_c $R depth=1 winner=$R enable
func_push klp_test_target:klp_target_a $R depth=4 winner=$R enable
patch_enable $R ret=0
func_pop klp_test_target:klp_target_b klp_test_p1 depth=2 winner=klp_test_p3 replace
func_pop klp_test_target:klp_target_a klp_test_p1 depth=3 winner=$R replace
func_pop klp_test_target:klp_target_b klp_test_p2 depth=1 winner=klp_test_p3 replace
func_pop klp_test_target:klp_target_a klp_test_p2 depth=2 winner=$R replace
func_pop klp_test_target:klp_target_b klp_test_p3 depth=0 winner= replace
func_pop klp_test_target:klp_target_a klp_test_p3 depth=1 winner=$R replace
patch_replaced klp_test_p1 by=$R
patch_replaced klp_test_p2 by=$R
patch_replaced klp_test_p3 by=$R
patch_replaced klp_test_probe by=$R" "$(events)"
assert_eq "a and c run the replace patch, b the original again" "5001 200 5003" "$(values)"
assert_eq "enabled: only the replace patch" "0 0 0 0 1" \
	"$(for p in klp_test_p1 klp_test_p2 klp_test_p3 klp_test_probe $R; do printf '%s ' "$(patch_enabled $p)"; done | sed 's/ $//')"
assert_eq "sysfs replace: 1 for the replace patch only" "1 0" \
	"$(cat $KLP_SYSFS/$R/replace) $(cat $KLP_SYSFS/klp_test_p1/replace)"
assert_eq "sysfs replaced_by names it on each replaced patch, on none else" \
	"$R $R $R $R -" \
	"$(for p in klp_test_p1 klp_test_p2 klp_test_p3 klp_test_probe $R; do rb=$(cat $KLP_SYSFS/$p/replaced_by); printf '%s ' "${rb:--}"; done | sed 's/ $//')"
assert_eq "klp/state: a replace record for each" \
"replace klp_test_p1 0 $R
replace klp_test_p2 0 $R
replace klp_test_p3 0 $R
replace klp_test_probe 0 $R
replace $R 1 -" "$(grep '^replace ' "$KLP_STATE")"
assert_eq "the stacks: a and c, the replace patch alone" \
	"klp_test_target klp_target_a 1|klp_test_target klp_target_c 1" \
	"$(cut -d' ' -f1-3 /sys/kernel/debug/klp/stacks | sort | paste -sd'|')"

check "the deferred module loads" klp_insmod klp_test_dup
assert_eq "it gets the replace patch's func, not the replaced patch's" "1 5102" \
	"$(cat /sys/kernel/debug/klp_test_dup/1) $(cat /sys/kernel/debug/klp_test_dup/2)"

check "disable the replace patch" set_enabled $R 0
assert_eq "every function original again" "100 200 300 1 2" \
	"$(values) $(cat /sys/kernel/debug/klp_test_dup/1) $(cat /sys/kernel/debug/klp_test_dup/2)"
assert_eq "no replaced patch came back" "0 0 0 0" \
	"$(for p in klp_test_p1 klp_test_p2 klp_test_p3 klp_test_probe; do printf '%s ' "$(patch_enabled $p)"; done | sed 's/ $//')"
check "a replaced patch can be enabled again" set_enabled klp_test_p2 1
assert_eq "it runs, its replaced_by is cleared" "2001 2002 300|" \
	"$(values)|$(cat $KLP_SYSFS/klp_test_p2/replaced_by)"
check "and replaced again" set_enabled $R 1
assert_eq "by the replace patch" "5001 200 5003 0 $R" \
	"$(values) $(patch_enabled klp_test_p2) $(cat $KLP_SYSFS/klp_test_p2/replaced_by)"
check "disable the replace patch, enable p1" eval "set_enabled $R 0 && set_enabled klp_test_p1 1"

# --- under calls on every CPU but the switcher's -------------------------
ROUNDS=40	# 3 switches each: replace p1, stack p1 over, unstack
LOOP=5000
R2=klp_test_replace2
check "second replace patch (a and b) registers" klp_insmod $R2 funcs=a,b enable=0
check "klptop --json attached (its BPF counters)" klptop_attach /tmp/klptop.json
id_p1=$(func_attr klp_test_p1 klp_test_target klp_target_a id)
id_r2=$(func_attr $R2 klp_test_target klp_target_a id)
hits() { bpf_counts | awk -v id="$1" '$2 == id { print $3 }'; }
work=$(mktemp -d /tmp/klp-replace.XXXXXX)
trap 'touch $work/stop; kill $KT_PID 2>/dev/null' EXIT
ncpu=$(nproc)
taskset -pc 0 $$ > /dev/null || bail "switcher pinned to CPU 0"
e0=$(entered a)
h0_p1=$(hits "$id_p1")
h0_r2=$(hits "$id_r2")
echo > "$KLP_TARGET/values"
callers=()
for ((cpu = 1; cpu < ncpu; cpu++)); do
	taskset -c $cpu bash -c "n=0; while [ ! -e $work/stop ]; do
		echo 'a $LOOP' > $KLP_TARGET/call || exit 1; n=\$((n + 1)); done
		echo \$n > $work/n.$cpu" &
	callers+=($!)
done
sleep 1
failed=0
switches=0
sw() {
	echo "$2" > "$KLP_SYSFS/$1/enabled" || failed=$((failed + 1))
	switches=$((switches + 1))
}
for ((r = 0; r < ROUNDS; r++)); do
	sw $R2 1; sw klp_test_p1 1; sw $R2 0
done
touch "$work/stop"
cfail=0
for p in "${callers[@]}"; do wait "$p" || cfail=$((cfail + 1)); done
calls=""
for ((cpu = 1; cpu < ncpu; cpu++)); do calls+="$(cat "$work/n.$cpu" 2> /dev/null) "; done
hist=$(sort -n "$KLP_TARGET/values")
diag "$switches switches; call loops of $LOOP on CPUs 1..$((ncpu - 1)): $calls; values: $(paste -sd' ' <<< "$hist")"
assert_eq "all $switches switch writes succeeded" 0 "$failed"
assert_eq "every caller's calls succeeded" 0 "$cfail"
check "the callers made calls on every CPU but the switcher's" \
	eval '[ "$(wc -w <<< "$calls")" = $((ncpu - 1)) ] && ! grep -qw 0 <<< "$calls"'
assert_eq "the original klp_target_a never ran" 0 "$(count_diff "entries of klp_target_a" "$(entered a)" "$e0")"
assert_eq "every call got p1's or the replace patch's value" "" \
	"$(awk 'NF { n++ } NF && $1 != 1001 && $1 != 6001 { print } END { if (!n) print "no values recorded" }' <<< "$hist")"
check "both won at times" eval 'grep -q "^1001 " <<< "$hist" && grep -q "^6001 " <<< "$hist"'
assert_eq "klptop's BPF counts per func id equal the values the calls got" \
	"$(awk '$1 == 1001 { p = $2 } $1 == 6001 { r = $2 } END { print p + 0, r + 0 }' <<< "$hist")" \
	"$(count_diff "p1's hits" "$(hits "$id_p1")" "$h0_p1") $(count_diff "the replace patch's hits" "$(hits "$id_r2")" "$h0_r2")"
assert_eq "p1 alone again" "1001 1002" "$(target a) $(target b)"
kill $KT_PID 2>/dev/null

# The sample replaces livepatch-sample (and every other enabled patch).
check "livepatch-sample loads" klp_insmod livepatch-sample
check "livepatch-replace loads" klp_insmod livepatch-replace
assert_eq "its cmdline_proc_show runs; the others are replaced" \
	"this has been live patched (cumulative)|0 livepatch_replace|0 livepatch_replace|100" \
	"$(cat /proc/cmdline)|$(patch_enabled livepatch_sample) $(cat $KLP_SYSFS/livepatch_sample/replaced_by)|$(patch_enabled klp_test_p1) $(cat $KLP_SYSFS/klp_test_p1/replaced_by)|$(target a)"
ktap_finish
