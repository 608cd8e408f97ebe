#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# klp-cost: 141
# klp-accel: tcg,thread=single
# klp-min-results: 75
# The consistency model (core/transition.c): a patch that changes
# klp_cm_f() and the klp_cm_g() it calls twice, around a sleep
# (klp_test_cm.h), never lets a task run a mix of the two versions: over
# rounds of enable and disable, with kthreads and user tasks asleep inside
# klp_cm_f() on every CPU, every call returns 11 (old pair) or 122 (new
# pair).  Each transition is watched through its events (klp_transition,
# klp_task_blocked), sysfs "transition" and klp/state; the patch, enabled
# with klp_enable_patch() alone, is freed after each disable and its
# module removed.  Then the tasks that hold a transition back: a kthread
# asleep in a patched function (named with its pid, comm and function
# within a sweep; force completes it and pins the module), a user task
# asleep in a patched syscall (a fake signal after 15 s), a CPU-bound
# kthread and a CPU-bound user task; a reversal midway; a second
# transition refused with EBUSY.
# Single-threaded TCG: the first and last patch of a function rewrite its
# call site under parallel callers (doc/testing.md).
. "$(dirname "$0")/../lib.sh"
ktap_start "consistency model"

CM=/sys/kernel/debug/klp_cm
P=klp_test_cm_patch
INST=$TRACEFS/instances/klp-cm-test

klp_insmod klp || bail "core loads"
klp_insmod klp_test_cm || bail "target loads"
klp_insmod klp_test_target || bail "second target loads"
trace_no_comm || bail "tracefs"
mkdir -p "$INST" && echo 8192 > "$INST/buffer_size_kb" || bail "trace instance"
for e in klp_transition klp_task_blocked klp_func_push klp_func_pop; do
	echo 1 > "$INST/events/klp/$e/enable" || bail "enable $e"
done

# results: "<value>:<count> ..." of the calls since the last clear
results() {
	awk '{ printf "%s%s:%s", sep, $1, $2; sep = " " }' "$CM/results"
}
mixed() {	# calls that got neither 11 nor 122
	awk '$1 != 11 && $1 != 122 { n += $2 } END { print n + 0 }' "$CM/results"
}
count_of() {
	awk -v v="$1" '$1 == v { n = $2 } END { print n + 0 }' "$CM/results"
}
in_transition() {
	[ "$(cat "$KLP_SYSFS/$P/transition" 2>/dev/null)" = 1 ]
}
gone() {
	[ ! -e "$KLP_SYSFS/$P" ]
}
trace_clear() {
	echo > "$INST/trace"
}
# the transition records of the instance: "<action> target=<t> pending=<n>"
tr_actions() {
	sed -n 's/.*klp_transition: .* target=\([01]\) \([a-z]*\) sweep=[0-9]* pending=\([0-9]*\).*/\2 target=\1 pending=\3/p' \
		"$INST/trace"
}
enable_patch() {
	insmod "$(klp_modpath $P)" "$@"
}
disable_patch() {
	echo 0 > "$KLP_SYSFS/$P/enabled"
}
# unload: the patch freed (its sysfs dir gone), then its module removed
# (its module reference goes just after its sysfs directory)
unload_patch() {
	wait_until 30 gone && wait_until 5 eval "rmmod $P 2>/dev/null"
}
insmod_err() {	# the error insmod gives for a module ("ok" if none)
	local out
	out=$(insmod "$(klp_modpath "$1")" 2>&1) && { echo ok; return; }
	echo "${out##*: }"
}

# --- 1: never mixed ------------------------------------------------------
# ROUNDS rounds of enable and disable under callers asleep inside
# klp_cm_f(), on the handler's untraced path, then (traced) with
# klp:klp_redirect enabled, its other path (klp_traced_winner()).  Each
# counts only if the window was hit: a sweep found a caller inside
# klp_cm_f() (a klp_task_blocked event naming it).
never_mixed() {	# never_mixed WHAT ROUNDS
	local what=$1 n=$2 r pids=() i
	echo > "$CM/results"
	echo "4 40" > "$CM/kthreads" || bail "caller kthreads"
	for i in 1 2; do
		( while :; do echo 25 > "$CM/call"; done ) 2>/dev/null &
		pids+=($!)
	done
	sleep 1
	rounds=0 complete=0 unloaded=0 held=0
	for r in $(seq "$n"); do
		trace_clear
		enable_patch || break
		wait_until 60 eval '! in_transition' || break
		sleep 0.3
		disable_patch || break
		wait_until 60 eval '! in_transition' || break
		unload_patch && unloaded=$((unloaded + 1))
		tr_actions | grep -q '^complete target=0' &&
			complete=$((complete + 1))
		grep -q 'klp_task_blocked: .* func=klp_cm_f on_stack' "$INST/trace" &&
			held=$((held + 1))
		rounds=$((rounds + 1))
		sleep 0.3
	done
	kill "${pids[@]}" 2>/dev/null
	wait "${pids[@]}" 2>/dev/null
	echo 0 > "$CM/kthreads"
	assert_eq "$what: $n rounds of enable and disable" "$n" "$rounds"
	assert_eq "$what: each disable's transition completed (event)" "$n" "$complete"
	assert_eq "$what: each time the patch was freed and its module removed" "$n" "$unloaded"
	check "$what: a sweep found a caller inside klp_cm_f() ($held of $n rounds)" \
		test "$held" -gt 0
	assert_eq "$what: no call got a mix of old and new (values: $(results))" 0 "$(mixed)"
	check "$what: old pairs ran ($(count_of 11))" test "$(count_of 11)" -gt 0
	check "$what: new pairs ran ($(count_of 122))" test "$(count_of 122)" -gt 0
}
never_mixed mixed 6
echo 1 > "$INST/events/klp/klp_redirect/enable" || bail "enable klp_redirect"
never_mixed "mixed, traced" 3
echo 0 > "$INST/events/klp/klp_redirect/enable"

# --- 2: a user task asleep in a patched syscall ----------------------------
echo > "$CM/rearm"
echo > "$CM/results"
echo wait > "$CM/call" &
waiter=$!
sleep 0.5
trace_clear
dmesg_mark
start=$SECONDS
started=0
check "syscall: the patch loads (its transition starts)" eval 'enable_patch && started=1'
check "syscall: sysfs transition is 1" in_transition
assert_eq "syscall: sysfs enabled shows the target" 1 "$(patch_enabled $P)"
check "syscall: the blocked event names the task, its function and why" \
	wait_until 5 eval "grep -q 'klp_task_blocked: .*pid=$waiter comm=[^ ]* func=klp_cm_wait on_stack' $INST/trace"
check "syscall: klp/state has the transition" \
	eval "grep -q '^transition $P 1 ' /sys/kernel/debug/klp/state"
check "syscall: klp/state names the blocked task" \
	eval "grep -q '^blocked $waiter 3 klp_cm_wait ' /sys/kernel/debug/klp/state"
assert_eq "syscall: another enable meanwhile is refused with EBUSY" \
	"Device or resource busy" "$(insmod_err klp_test_p1)"
check "syscall: the log names the transition in progress" \
	dmesg_has "patch '$P' is in transition to enabled"
# (only if that transition started: a patch left enabled before would
# be "not in transition" at once)
check "syscall: a fake signal switches it (within 30 s)" \
	eval '[ $started = 1 ] && wait_until 30 eval "! in_transition"'
check "syscall: that took the 15 s of upstream's fake signal" \
	test $((SECONDS - start)) -ge 14
check "syscall: the task still waits, in the new function" \
	kill -0 $waiter
echo > "$CM/release"
wait $waiter
assert_eq "syscall: its restarted call ran the new function" "2:1" "$(results)"
check "syscall: transition events start, complete" \
	eval "tr_actions | grep -q '^start target=1' && tr_actions | grep -q '^complete target=1 pending=0'"

# --- 3: CPU-bound tasks ------------------------------------------------------
echo > "$CM/rearm"
echo 1 > "$CM/spin" || bail "spinning kthread"
( while :; do :; done ) &
spinner=$!
sleep 0.5
trace_clear
disable_patch
check "cpu-bound: a spinning kthread and a spinning user task switch (disable)" \
	wait_until 20 eval '! in_transition'
check "cpu-bound: freed, module removed" unload_patch
trace_clear
check "cpu-bound: enable again" enable_patch
check "cpu-bound: they switch (enable)" wait_until 20 eval '! in_transition'
kill $spinner; wait $spinner 2>/dev/null
echo 0 > "$CM/spin"

# --- 4: reversal midway ------------------------------------------------------
echo > "$CM/rearm"
echo 1 > "$CM/hold" || bail "holder kthread"
sleep 0.5
trace_clear
disable_patch
check "reverse: the held disable is in transition" in_transition
assert_eq "reverse: enabled shows the target 0" 0 "$(patch_enabled $P)"
assert_eq "reverse: writing 0 again -> EINVAL" "Invalid argument" \
	"$(write_err $KLP_SYSFS/$P/enabled 0)"
assert_eq "reverse: writing 1 reverses it" ok "$(write_err $KLP_SYSFS/$P/enabled 1)"
check "reverse: event reversed" eval "tr_actions | grep -q '^reversed target=1'"
check "reverse: back to enabled, complete (the holder sleeps in new code)" \
	wait_until 20 eval '! in_transition'
assert_eq "reverse: enabled" 1 "$(patch_enabled $P)"
check "reverse: still enabled, not freed" test -e "$KLP_SYSFS/$P"
echo > "$CM/release"
echo 0 > "$CM/hold"

# --- 5: an atomic replace, and a module coming, during a transition --------
# klp_test_cm_patch2 replaces klp_cm_g (3) but not klp_cm_f: a switched
# task's klp_cm_f is the original with the new klp_cm_g (33), an
# unswitched one's the first patch's pair (122).
P2=klp_test_cm_patch2
ok_values() {	# calls that got neither 122 nor 33
	awk '$1 != 122 && $1 != 33 { n += $2 } END { print n + 0 }' "$CM/results"
}
echo > "$CM/rearm"
echo 1 > "$CM/hold" || bail "holder kthread"
echo "2 30" > "$CM/kthreads" || bail "caller kthreads"
rmmod klp_test_target
sleep 0.5
echo > "$CM/results"
trace_clear
check "replace: the replace patch loads" insmod "$(klp_modpath $P2)"
check "replace: its transition is held" \
	eval "[ \$(cat $KLP_SYSFS/$P2/transition) = 1 ]"
check "module coming: the target loads during the transition" \
	klp_insmod klp_test_target
assert_eq "module coming: patched for this (switched) task" 7001 "$(target a)"
assert_eq "module coming: its object is loaded" 1 \
	"$(cat $KLP_SYSFS/$P2/klp_test_target/loaded)"
sleep 2
check "replace: the first patch is still there meanwhile" test -e "$KLP_SYSFS/$P"
echo > "$CM/release"
check "replace: completes once the holder returns" \
	wait_until 20 eval "[ \$(cat $KLP_SYSFS/$P2/transition) = 0 ]"
check "replace: the replaced patch is freed" wait_until 20 gone
check "replace: and its module removed" wait_until 5 eval "rmmod $P 2>/dev/null"
echo 0 > "$CM/kthreads"
echo 0 > "$CM/hold"
assert_eq "replace: no call got a mix (values: $(results))" 0 "$(ok_values)"
check "replace: switched callers ran the original klp_cm_f, new klp_cm_g" \
	test "$(count_of 33)" -gt 0
echo > "$CM/results"
echo 0 > "$CM/call"
assert_eq "replace: after it, klp_cm_f is the original with the new klp_cm_g" \
	"33:1" "$(results)"
assert_eq "module coming: still patched" 7001 "$(target a)"
check "replace: disable" eval "echo 0 > $KLP_SYSFS/$P2/enabled"
check "replace: freed" wait_until 20 eval "[ ! -e $KLP_SYSFS/$P2 ]"
check "replace: its module removed" wait_until 5 eval "rmmod $P2 2>/dev/null"
assert_eq "replace: the original again" 100 "$(target a)"

# --- 6: 1000 functions, 300 more tasks --------------------------------------
# klp_test_many1k_tgt's sum calls its 1024 functions: 523776 unpatched,
# 1000 more for each of the 1000 the patch replaces once this task has
# switched.
klp_insmod klp_test_many1k_tgt || bail "the 1024-function target loads"
SUM1K=/sys/kernel/debug/klp_test_many1k/sum
assert_eq "many: the 1024 functions unpatched" 523776 "$(cat $SUM1K)"
sleepers=()
for i in $(seq 300); do
	sleep 1000 &
	sleepers+=($!)
done
trace_clear
check "many: a 1000-function patch enables" insmod "$(klp_modpath klp_test_many1000)" enable=1
check "many: its transition completes" \
	wait_until 30 eval "[ \$(cat $KLP_SYSFS/klp_test_many1000/transition) = 0 ]"
total=$(tr_actions | sed -n 's/^complete target=1 pending=0$/x/p' | wc -l)
assert_eq "many: one complete event" 1 "$total"
check "many: the sweeps saw the 300 tasks" eval \
	"grep -q 'klp_transition: .* target=1 sweep sweep=1 pending=[0-9]* total=[3-9][0-9][0-9]' $INST/trace"
assert_eq "many: every one of the 1000 replaced" 1523776 "$(cat $SUM1K)"
check "many: disable completes (set_enabled waits for it)" set_enabled klp_test_many1000 0
assert_eq "many: the 1024 originals again" 523776 "$(cat $SUM1K)"
kill "${sleepers[@]}"
wait "${sleepers[@]}" 2>/dev/null

# --- 7: a kthread asleep in a patched function; force ----------------------
check "force: the patch loads again" enable_patch
echo > "$CM/rearm"
echo 1 > "$CM/hold" || bail "holder kthread"
sleep 0.5
holder=$(pgrep -x klp_cm_holder)
trace_clear
dmesg_mark
check "hold: disable starts its transition" disable_patch
check "hold: blocked event: pid, comm, function, why" \
	wait_until 5 eval "grep -q 'klp_task_blocked: .*pid=$holder comm=klp_cm_holder func=klp_cm_hold on_stack' $INST/trace"
check "hold: klp/state names it" \
	eval "grep -qx 'blocked $holder 3 klp_cm_hold klp_cm_holder' /sys/kernel/debug/klp/state"
sleep 2
check "hold: still in transition 2 s later" in_transition
assert_eq "force: accepted" ok "$(write_err $KLP_SYSFS/$P/force 1)"
check "force: the transition is over" eval '! in_transition'
check "force: the log names the task it overrode" \
	dmesg_has "forced task $holder (klp_cm_holder), not switched"
check "force: event forced" eval "tr_actions | grep -q '^forced target=0 pending=1'"
check "force: the patch is freed" wait_until 30 gone
check "force: its module stays pinned for good" eval '! rmmod $P 2>/dev/null'
echo > "$CM/release"
echo 0 > "$CM/hold"

ktap_finish
