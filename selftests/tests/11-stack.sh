#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# klp-cost: 200
# klp-accel: tcg,thread=single
# klp-min-results: 294
# func_stack semantics (seed 008): two and three patches on one function,
# enabled and disabled in every order; the most recently enabled wins,
# disabling the top falls back to the one below, the last one unregisters
# the shared ftrace_ops.
. "$(dirname "$0")/../lib.sh"
ktap_start "func_stack: every enable and disable order"

klp_insmod klp || bail "core loads"
klp_insmod klp_test_target || bail "target loads"
for p in 1 2 3; do
	check "p$p registers (not enabled)" klp_insmod klp_test_p$p enable=0
done
assert_eq "nothing enabled: originals run" "100 200" "$(target a) $(target b)"
assert_eq "original klp_target_a entered exactly once" 1 "$(entered a)"

# The model: $stack lists enabled patches, most recently enabled last.
stack=()
expect_a() {	# value of klp_target_a for the current model
	local n=${#stack[@]}
	if [ "$n" = 0 ]; then echo 100; else echo $((stack[n - 1] * 1000 + 1)); fi
}

# verify WHAT: klp_target_a and _b from userspace and from a kernel loop,
# and the sysfs stack position of every patch, against the model.
verify() {
	local what=$1 n=${#stack[@]} want_b got pos want_pos i p
	local va vc vb at depth
	want_b=$(( n ? stack[n - 1] * 1000 + 2 : 200 ))
	# (bash's own reads where the file allows: a process started costs a
	# tenth of a second in the guest, and this runs 200 times; the
	# target's a and b run the function on every read(), so one read)
	va=$(target a)
	echo "a 50" > "$KLP_TARGET/call" && read -r vc _ < "$KLP_TARGET/call"
	vb=$(target b)
	got="$va $vc $vb"
	want="$(expect_a) $(expect_a) $want_b"
	pos=""
	want_pos=""
	for p in 1 2 3; do
		read -r at < "$KLP_SYSFS/klp_test_p$p/klp_test_target/klp_target_a/stack_pos"
		read -r depth < "$KLP_SYSFS/klp_test_p$p/klp_test_target/klp_target_a/stack_depth"
		pos+="$at/$depth "
		want=${want% }
		i=0
		for ((i = 0; i < n; i++)); do
			[ "${stack[i]}" = "$p" ] && break
		done
		if [ "$i" -lt "$n" ]; then want_pos+="$((n - i))/$n "; else want_pos+="0/0 "; fi
	done
	assert_eq "$what: winner value and stack positions" "$want | $want_pos" "$got | $pos"
	# the core's state file, in one read, says the same
	state=$(cat $KLP_STATE)
	pos=""
	for p in 1 2 3; do
		pos+=$(awk -v p=klp_test_p$p '$1 == "func" && $2 == p && $4 == "klp_target_a" { print $6 "/" $7 }' <<< "$state")" "
	done
	assert_eq "$what: the state file's positions, its stacks add up" "$want_pos 0" \
		"$pos $(state_torn <<< "$state")"
}

enable() {
	if set_enabled "klp_test_p$1" 1; then stack+=("$1"); else not_ok "enable p$1 failed"; fi
}

disable() {
	local i keep=()
	if ! set_enabled "klp_test_p$1" 0; then not_ok "disable p$1 failed"; return; fi
	for i in "${stack[@]}"; do [ "$i" = "$1" ] || keep+=("$i"); done
	stack=("${keep[@]}")
}

perms3="123 132 213 231 312 321"

# Two patches: both enable orders, both disable orders.
for en in 12 21; do
	for dis in 12 21; do
		enable "${en:0:1}"; verify "2 stacked, enabled ${en:0:1}"
		enable "${en:1:1}"; verify "2 stacked, enabled $en"
		disable "${dis:0:1}"; verify "2 stacked ($en), disabled ${dis:0:1}"
		disable "${dis:1:1}"; verify "2 stacked ($en), disabled $dis"
	done
done

# Three patches: every enable order times every disable order.
for en in $perms3; do
	for dis in $perms3; do
		for i in 0 1 2; do enable "${en:i:1}"; done
		verify "3 stacked, enabled $en"
		for i in 0 1; do
			disable "${dis:i:1}"; verify "3 stacked ($en), disabled ${dis:0:i+1}"
		done
		disable "${dis:2:1}"
		assert_eq "3 stacked ($en), disabled $dis: original runs, no ftrace_ops left" \
			"100 200 0" "$(target a) $(target b) $(grep -c '^klp_target_[ab] ' $TRACEFS/enabled_functions)"
	done
done

# Re-enabling a func in the middle moves it to the top.
entered_before=$(entered a)
enable 1; enable 2; enable 3; disable 2; enable 2
verify "p2 re-enabled over p3 and p1"
assert_eq "debugfs stacks shows p2 on top" "klp_test_target klp_target_a 3 klp_test_p2:" \
	"$(grep ' klp_target_a ' /sys/kernel/debug/klp/stacks | cut -d' ' -f1-4 | sed 's/:[0-9]*$/:/')"
diag "$(grep '^klp_target_a ' $TRACEFS/enabled_functions)"
assert_eq "one shared ftrace_ops for 3 stacked funcs (enabled_functions)" 1 \
	"$(grep -c '^klp_target_a .*(1) ' $TRACEFS/enabled_functions)"
assert_same "original not entered while patches were stacked" "$entered_before" "$(entered a)"
ktap_finish
