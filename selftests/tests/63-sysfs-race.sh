#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Concurrent sysfs writers: several processes write 0 and 1 to the same and
# to different enabled files at once.  Nothing may deadlock (every writer is
# bounded by a timeout), and the final state must be the one of the last
# successful write to each file, in the order klp serialized them (read
# back from the klp:klp_patch_enable/disable tracepoints), with the
# func_stacks agreeing.
. "$(dirname "$0")/../lib.sh"
ktap_start "concurrent sysfs writers"

klp_insmod klp || { not_ok "core loads"; ktap_finish; }
klp_insmod klp_test_target || { not_ok "target loads"; ktap_finish; }
for p in 1 2 3; do klp_insmod klp_test_p$p enable=0 || not_ok "p$p registers"; done

echo > $TRACEFS/trace
echo 1 > $TRACEFS/events/klp/klp_patch_enable/enable
echo 1 > $TRACEFS/events/klp/klp_patch_disable/enable
echo 1 > $TRACEFS/tracing_on

writer() {	# writer PATCH N: N random 0/1 writes
	local i
	for ((i = 0; i < $2; i++)); do
		echo $((RANDOM % 2)) > "$KLP_SYSFS/$1/enabled" 2>/dev/null
	done
	return 0	# same-state writes fail by design
}

# a hang is a writer past this; slower kernels (make check-debug) get longer
limit=$((240 * ${KLP_TIMEOUT_SCALE:-1}))
t0=$(date +%s)
pids=()
for p in klp_test_p1 klp_test_p1 klp_test_p1 klp_test_p2 klp_test_p3; do
	timeout $limit bash -c "$(declare -f writer); KLP_SYSFS=$KLP_SYSFS; writer $p 150" &
	pids+=($!)
done
# readers too, since show takes the same mutex
timeout $limit bash -c "for i in \$(seq 300); do cat $KLP_SYSFS/*/klp_test_target/*/stack_pos > /dev/null; done" &
pids+=($!)
rcs=""
for pid in "${pids[@]}"; do wait "$pid"; rcs+="$? "; done
diag "writers done in $(( $(date +%s) - t0 )) s"
echo 0 > $TRACEFS/tracing_on
assert_eq "no writer or reader hung (none hit the timeout)" "0 0 0 0 0 0" "${rcs% }"

# The last successful transition per patch, in klp's own order.
last() {
	grep -E "klp_patch_(enable|disable): patch=$1 ret=0" $TRACEFS/trace | tail -n 1 |
		sed -n 's/.*klp_patch_\(enable\|disable\):.*/\1/p'
}
order=()
for p in 1 2 3; do
	want=$(last klp_test_p$p)
	case $want in enable) want=1 ;; disable) want=0 ;; *) want=0 ;; esac
	assert_eq "p$p: enabled is the last successful write" "$want" "$(patch_enabled klp_test_p$p)"
	assert_eq "p$p: its funcs are patched exactly when enabled" "$want $want" \
		"$(func_attr klp_test_p$p klp_test_target klp_target_a patched) $(func_attr klp_test_p$p klp_test_target klp_target_b patched)"
done

# The winner is the enabled patch whose last enable came last.
winner=$(grep -E 'klp_patch_enable: patch=klp_test_p[123] ret=0' $TRACEFS/trace |
	sed -n 's/.*patch=klp_test_p\([123]\).*/\1/p' | tac |
	while read -r p; do [ "$(patch_enabled klp_test_p$p)" = 1 ] && { echo $p; break; }; done)
if [ -n "$winner" ]; then
	assert_eq "winner is the most recently enabled patch" "$((winner * 1000 + 1)) 1/$(cat $KLP_SYSFS/klp_test_p*/enabled | grep -c 1)" \
		"$(target a) $(func_attr klp_test_p$winner klp_test_target klp_target_a stack_pos)/$(func_attr klp_test_p$winner klp_test_target klp_target_a stack_depth)"
else
	assert_eq "no patch enabled: original runs" 100 "$(target a)"
fi
check "the trace buffer did not overflow" eval "! grep -q 'LOST' $TRACEFS/trace"
ktap_finish
