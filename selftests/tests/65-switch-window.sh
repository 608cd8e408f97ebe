#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# klp-cost: 51
# klp-min-results: 14
# The first guarantee under real parallelism: a switch between winners never
# lets the original run.  p1 stays enabled on klp_target_a and _b, so their
# func_stacks never empty and no switch rewrites kernel text: that runs on
# multi-threaded TCG (the default accel), a vCPU thread each.  One caller
# per CPU but the switcher's calls klp_target_a in a kernel loop while
# p2 and p3 are stacked and unstacked over p1 more than 1000 times (every
# push and pop order, each sysfs write checked).  The original's entry
# count must not move at all, and every value a call got must be that of a
# patch enabled at some point (1001, 2001, 3001; never the original's 100).
# The switches are counted by the core itself (histogram triggers on its
# klp_func_push and klp_func_pop events for klp_target_a, by the depth
# they leave: never 0), and every caller must have completed whole call
# loops between the first switch and the last.
. "$(dirname "$0")/../lib.sh"
ktap_start "switch window: stacking under parallel calls never runs the original"

ROUNDS=130	# 8 switches each
LOOP=5000	# calls per write to the target's call file
work=$(mktemp -d /tmp/klp-window.XXXXXX)
trap 'touch $work/stop' EXIT

ncpu=$(nproc)
[ "$ncpu" -ge 2 ] || bail "at least two CPUs (got $ncpu)"
klp_insmod klp || bail "core loads"
klp_insmod klp_test_target || bail "target loads"
klp_insmod klp_test_p1 || bail "p1 enabled on klp_target_a and _b"
for p in 2 3; do klp_insmod klp_test_p$p enable=0 || bail "p$p registers"; done
assert_eq "p1 alone on klp_target_a's stack" "1001 1/1" \
	"$(target a) $(func_attr klp_test_p1 klp_test_target klp_target_a stack_pos)/$(func_attr klp_test_p1 klp_test_target klp_target_a stack_depth)"

# The switcher on CPU 0, one caller on each other CPU.
taskset -pc 0 $$ > /dev/null || bail "switcher pinned to CPU 0"
# The core's pushes and pops on klp_target_a, by the depth they leave.
# Comm recording off first: its scheduler hooks are no text to rewrite
# under multi-threaded TCG (lib.sh).
trace_no_comm || bail "comm recording off"
for ev in push pop; do
	echo 'hist:keys=depth if func == "klp_target_a"' \
		> "$TRACEFS/events/klp/klp_func_$ev/trigger" || bail "a histogram on klp_func_$ev"
done
# depths EVENT: "depth:count ..." the histogram counted, by depth
depths() {
	awk '$1 == "{" && $2 == "depth:" { printf "%s:%s ", $3, $6 }' \
		"$TRACEFS/events/klp/klp_func_$1/hist" | sed 's/ $//'
}
e0=$(entered a)
echo > "$KLP_TARGET/values"
callers=()
for ((cpu = 1; cpu < ncpu; cpu++)); do
	taskset -c $cpu bash -c "n=0; while [ ! -e $work/stop ]; do
		echo 'a $LOOP' > $KLP_TARGET/call || exit 1; n=\$((n + 1))
		echo \$n > $work/n.$cpu; done" &
	callers+=($!)
done
# pinned: each caller's affinity list (taskset sets it right after the fork)
pinned() {
	local cpu
	for ((cpu = 1; cpu < ncpu; cpu++)); do
		printf '%s ' "$(taskset -pc "${callers[cpu - 1]}" | sed 's/.*: //')"
	done
}
want_pinned=$(for ((cpu = 1; cpu < ncpu; cpu++)); do printf '%s ' $cpu; done)
wait_until 5 eval '[ "$(pinned)" = "$want_pinned" ]'
assert_eq "one caller pinned to each CPU but the switcher's" "$want_pinned" "$(pinned)"
sleep 1

# sw PATCH 0|1: one switch, counted; a failed write is counted too
switches=0
failed=0
sw() {
	echo "$2" > "$KLP_SYSFS/klp_test_p$1/enabled" || failed=$((failed + 1))
	switches=$((switches + 1))
}

# loops: each caller's completed call loops so far (none before its first
# file; read again when caught between the file's truncation and write)
loops() {
	local cpu v
	for ((cpu = 1; cpu < ncpu; cpu++)); do
		v=
		[ -e "$work/n.$cpu" ] || v=0
		until [ -n "$v" ]; do v=$(< "$work/n.$cpu"); done
		printf '%s ' "$v"
	done
}
seq0=$(cat /sys/kernel/debug/klp/seq)
loops0=$(loops)
t0=$SECONDS
for ((r = 0; r < ROUNDS; r++)); do
	# push over p1, push over p2, pop the top, pop the top back to p1
	sw 2 1; sw 3 1; sw 3 0; sw 2 0
	# push over p1, push over p3, pop the one below the top, pop the top
	sw 3 1; sw 2 1; sw 3 0; sw 2 0
done
elapsed=$((SECONDS - t0))
loops1=$(loops)
seq1=$(cat /sys/kernel/debug/klp/seq)
touch "$work/stop"
cfail=0
for p in "${callers[@]}"; do wait "$p" || cfail=$((cfail + 1)); done
entered_delta=$(count_diff "entries of klp_target_a" "$(entered a)" "$e0")
hist=$(sort -n "$KLP_TARGET/values")
calls=""
for ((cpu = 1; cpu < ncpu; cpu++)); do calls+="$(cat "$work/n.$cpu" 2> /dev/null) "; done
diag "$switches switches in $elapsed s; call loops of $LOOP per CPU 1..$((ncpu - 1)): $calls"
diag "values: $(paste -sd' ' <<< "$hist")"
pushes=$(depths push)
pops=$(depths pop)
diag "the core's events: pushes $pushes; pops $pops; seq $seq0 -> $seq1"
diag "call loops completed per CPU 1..$((ncpu - 1)) by the first switch: $loops0; by the last: $loops1"
for ev in push pop; do
	echo '!hist:keys=depth if func == "klp_target_a"' > "$TRACEFS/events/klp/klp_func_$ev/trigger"
done

assert_eq "all $switches switch writes succeeded" 0 "$failed"
core_switches=$(awk '{ for (i = 1; i <= NF; i++) { split($i, a, ":"); s += a[2] } } END { print s + 0 }' <<< "$pushes $pops")
check "the core switched klp_target_a's winner at least 1000 times ($core_switches pushes and pops)" \
	test "$core_switches" -ge 1000
assert_eq "one push or pop on klp_target_a per switch write" "$switches" "$core_switches"
assert_eq "the pushes left depths 2 and 3, the pops 2 and 1 (never 0), $((ROUNDS * 2)) each" \
	"2:$((ROUNDS * 2)) 3:$((ROUNDS * 2))|1:$((ROUNDS * 2)) 2:$((ROUNDS * 2))" \
	"$(tr ' ' '\n' <<< "$pushes" | sort -n | paste -sd' ')|$(tr ' ' '\n' <<< "$pops" | sort -n | paste -sd' ')"
check "every caller completed whole call loops during the switches" eval \
	'paste <(tr " " "\n" <<< "${loops0% }") <(tr " " "\n" <<< "${loops1% }") |
	 awk -v want=$((ncpu - 1)) "\$2 - \$1 >= 2 { n++ } END { exit n != want }"'
assert_eq "every caller's writes to the call file succeeded" 0 "$cfail"
check "the callers made calls on every CPU but the switcher's" \
	eval '[ "$(wc -w <<< "$calls")" = $((ncpu - 1)) ] && ! grep -qw 0 <<< "$calls"'
assert_eq "the original klp_target_a was never entered" 0 "$entered_delta"
assert_eq "every call got the value of an enabled patch (never 100, none lost)" "" \
	"$(awk 'NF { n++ } NF && $1 != 1001 && $1 != 2001 && $1 != 3001 { print }
		END { if (!n) print "no values recorded" }' <<< "$hist")"
check "calls ran while p2 or p3 was on top (2001 or 3001 seen)" \
	eval 'grep -qE "^(2001|3001) " <<< "$hist"'
assert_eq "the values add up to the calls made" \
	"$(awk -v l=$LOOP 'NF { s += $1 * l; n++ } END { print n ? s : "no call loops recorded" }' <<< "${calls// /$'\n'}")" \
	"$(awk '{ s += $2 } END { print s + 0 }' <<< "$hist")"
assert_eq "p1 alone on klp_target_a's stack again, p2 and p3 disabled" "1001 1/1 0 0" \
	"$(target a) $(func_attr klp_test_p1 klp_test_target klp_target_a stack_pos)/$(func_attr klp_test_p1 klp_test_target klp_target_a stack_depth) $(patch_enabled klp_test_p2) $(patch_enabled klp_test_p3)"
diag "script time: ${SECONDS} s"
ktap_finish
