#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# klp-cost: 107
# klp-accel: tcg,thread=single
# klp-min-results: 26
# Single-threaded TCG, as 14-builtin: on 6.12 the builtin livepatch's
# transition rewrites every cond_resched() call site while the other CPUs
# run, which multi-threaded TCG mis-emulates (doc/testing.md).
# A builtin livepatch transition held back by a kthread asleep in the
# function it patches (upstream's "busy target" case): klptop --json, its
# screen and klp-exporter name the task (pid, comm, function, on_stack)
# in their first interval; when the kthread returns from the function the
# transition completes, and the tools see it end.  Then the same for a
# klp transition held by a kthread asleep in klp_cm_hold (klp_test_cm).
. "$(dirname "$0")/../lib.sh"
ktap_start "transitions: a builtin transition held by a kthread, as klptop and klp-exporter show it"

T=/tmp/transitions-45
mkdir -p "$T"
KT_PID=
trap '[ -n "$KT_PID" ] && kill "$KT_PID" 2>/dev/null' EXIT
BUILTIN=/sys/kernel/livepatch/klp_test_builtin
RELEASE=/sys/module/klp_test_sleeper/parameters/release

klp_insmod klp || bail "core loads (klptop and klp-exporter attach to it)"
klp_insmod klp_test_sleeper || bail "the sleeper module loads"
sleeper_pid() {
	local c
	for c in /proc/[0-9]*/comm; do
		[ "$(cat "$c" 2>/dev/null)" = klp_sleeper ] && { c=${c#/proc/}; echo "${c%/comm}"; return; }
	done
}
PID=$(sleeper_pid)
[ -n "$PID" ] || bail "the klp_sleeper kthread runs"
check "the kthread sleeps in klp_sleeper_wait" \
	wait_until 10 grep -q '^\[<[0-9a-f]*>\] klp_sleeper_wait+' "/proc/$PID/stack"

check "a builtin patch of klp_sleeper_wait loads" \
	klp_insmod klp_test_builtin func=klp_sleeper_wait objname=klp_test_sleeper
sleep 2	# two of the builtin's sweeps: the kthread stays
assert_eq "its transition is held: transition 1, the kthread unpatched (patch_state 0)" \
	"1 0" "$(cat $BUILTIN/transition) $(cat "/proc/$PID/patch_state")"

# the transition named in klptop's first interval
"$KLP_BIN/klptop" --json 1 1 > "$T/one.json" 2> "$T/one.err"
tr_json='.transitions_in_progress[] | select(.core == "livepatch" and .patch == "klp_test_builtin")'
assert_eq "klptop --json, first interval: the builtin transition, enabling, its elapsed time from first seen" \
	"1 first_seen" "$(jq -r "$tr_json | \"\(.target) \(.elapsed_from)\"" "$T/one.json")"
assert_eq "... the kthread among the tasks that hold it: pid, comm, function, why" \
	"$PID klp_sleeper klp_sleeper_wait on_stack" \
	"$(jq -r "$tr_json | .blocked[] | select(.pid == $PID) | \"\(.pid) \(.comm) \(.function) \(.reason)\"" "$T/one.json")"
check "... switched + pending = total, and most tasks switched" \
	eval 'jq -e "$tr_json | .switched + .pending == .total and .switched > .pending" "$T/one.json" > /dev/null'
[ "$_ktap_fail" = 0 ] || diag "$(cat "$T/one.json" "$T/one.err")"

"$KLP_BIN/klptop" -C 1 1 > "$T/screen" 2>&1
check "klptop's screen: the transition line" \
	grep -qE '^TRANSITION livepatch klp_test_builtin enabling  [0-9.]+s \(seen\)  switched [0-9]+/[0-9]+$' "$T/screen"
check "... and the kthread under it with its function" \
	grep -qE "^ +$PID klp_sleeper +on_stack +klp_sleeper_wait$" "$T/screen"
diag "klptop's screen:"
sed -n '/^TRANSITION/,/^$/p' "$T/screen" | while IFS= read -r l; do diag "$l"; done

# The sleeper wakes every half second: a scan that meets it runnable (R)
# counts it as running, as /proc cannot tell runnable from on a CPU (a
# clean-clone CI on 6.12 met it once).  A few scrapes, 0.2 s apart, until
# one finds it asleep.
for ((i = 0; i < 10; i++)); do
	"$KLP_BIN/klp-exporter" --once --format text > "$T/metrics" 2> "$T/metrics.err"
	grep -q "pid=\"$PID\",.*reason=\"on_stack\"" "$T/metrics" && break
	sleep 0.2
done
assert_eq "klp-exporter: the builtin transition in progress" \
	'klp_transition_in_progress{core="livepatch",patch="klp_test_builtin"} 1' \
	"$(grep '^klp_transition_in_progress{core="livepatch"' "$T/metrics")"
check "klp-exporter: the kthread named (pid, comm, function, reason)" grep -qF \
	"klp_transition_blocked_task_info{core=\"livepatch\",patch=\"klp_test_builtin\",pid=\"$PID\",comm=\"klp_sleeper\",function=\"klp_sleeper_wait\",reason=\"on_stack\"} 1" \
	"$T/metrics"
check "klp-exporter: at least one task blocked with the function on its stack" \
	grep -qE '^klp_transition_blocked_tasks\{core="livepatch",patch="klp_test_builtin",reason="on_stack"\} [1-9]' "$T/metrics"
[ "$_ktap_fail" = 0 ] || diag "$(grep -E '^klp_transition|^klp_up' "$T/metrics"; cat "$T/metrics.err")"
# (promtool: prometheus's, which scripts/deps.sh installs)
check "klp-exporter: promtool check metrics" promtool check metrics < "$T/metrics"

# the kthread returns: the transition completes, klptop sees it end
"$KLP_BIN/klptop" --json 1 > "$T/run.json" 2> "$T/run.err" &
KT_PID=$!
wait_until 40 eval '[ "$(wc -l < "$T/run.json")" -ge 1 ]'
echo 1 > "$RELEASE"
check "the kthread returned: the transition completes" \
	wait_until 20 eval '[ "$(cat $BUILTIN/transition)" = 0 ]'
n=$(wc -l < "$T/run.json")
wait_until 10 eval '[ "$(wc -l < "$T/run.json")" -ge $((n + 2)) ]'
kill "$KT_PID"
wait "$KT_PID" 2>/dev/null
KT_PID=
assert_eq "klptop --json, running across it: the transition shown, then gone (first line, last line)" \
	"1 0" "$(jq -c "[$tr_json] | length" "$T/run.json" | sed -n '1p;$p' | tr '\n' ' ' | sed 's/ $//')"
"$KLP_BIN/klp-exporter" --once --format text > "$T/metrics2" 2>&1
assert_eq "klp-exporter: the builtin patch not in transition any more, no task named" \
	'klp_transition_in_progress{core="livepatch",patch="klp_test_builtin"} 0' \
	"$(grep -E '^klp_transition_[a-z_]*\{core="livepatch"' "$T/metrics2")"

check "the builtin patch disabled" eval "echo 0 > $BUILTIN/enabled"
check "its transition completes" wait_until 20 eval '[ ! -e $BUILTIN ] || [ "$(cat $BUILTIN/transition 2>/dev/null)" != 1 ]'
check "the modules unload" eval 'wait_until 5 rmmod klp_test_builtin 2>/dev/null && rmmod klp_test_sleeper'

# --- the same for klp's own transition (core/transition.c) ------------------
CM=/sys/kernel/debug/klp_cm
P=klp_test_cm_patch
klp_insmod klp_test_cm || bail "the consistency target loads"
echo 1 > "$CM/hold" || bail "its holder kthread"
HOLDER=$(pgrep -x klp_cm_holder)
sleep 0.5
check "klp: a patch of klp_cm_hold loads, its transition held by the holder" \
	eval 'insmod "$(klp_modpath $P)" && [ "$(cat $KLP_SYSFS/$P/transition)" = 1 ]'
sleep 1	# a sweep after the three of the write
"$KLP_BIN/klptop" --json 1 1 > "$T/klp.json" 2> "$T/klp.err"
klp_json='.transitions_in_progress[] | select(.core == "klp" and .patch == "klp_test_cm_patch")'
assert_eq "klp: klptop --json, first interval: the transition, enabling" \
	"1" "$(jq -r "$klp_json | .target" "$T/klp.json")"
assert_eq "klp: ... the holder named: pid, comm, function, why" \
	"$HOLDER klp_cm_holder klp_cm_hold on_stack" \
	"$(jq -r "$klp_json | .blocked[] | select(.pid == $HOLDER) | \"\(.pid) \(.comm) \(.function) \(.reason)\"" "$T/klp.json")"
[ "$_ktap_fail" = 0 ] || diag "$(cat "$T/klp.json" "$T/klp.err")"
"$KLP_BIN/klptop" -C 1 1 > "$T/klp.screen" 2>&1
check "klp: klptop's screen: the transition line" \
	grep -qE '^TRANSITION klp +klp_test_cm_patch enabling ' "$T/klp.screen"
check "klp: ... and the holder under it" \
	grep -qE "^ +$HOLDER klp_cm_holder +on_stack +klp_cm_hold$" "$T/klp.screen"
"$KLP_BIN/klp-exporter" --once --format text > "$T/klp.metrics" 2>&1
assert_eq "klp: klp-exporter: the transition in progress" \
	'klp_transition_in_progress{core="klp",patch="klp_test_cm_patch"} 1' \
	"$(grep '^klp_transition_in_progress{core="klp",patch="klp_test_cm_patch"}' "$T/klp.metrics")"
check "klp: klp-exporter: the holder named" grep -qF \
	"klp_transition_blocked_task_info{core=\"klp\",patch=\"klp_test_cm_patch\",pid=\"$HOLDER\",comm=\"klp_cm_holder\",function=\"klp_cm_hold\",reason=\"on_stack\"} 1" \
	"$T/klp.metrics"
echo > "$CM/release"
check "klp: the holder returned: the transition completes" \
	wait_until 20 eval '[ "$(cat $KLP_SYSFS/$P/transition)" = 0 ]'
"$KLP_BIN/klp-exporter" --once --format text > "$T/klp.metrics2" 2>&1
assert_eq "klp: klp-exporter: not in transition any more, no task named" \
	'klp_transition_in_progress{core="klp",patch="klp_test_cm_patch"} 0' \
	"$(grep -E '^klp_transition_[a-z_]*\{core="klp",patch="klp_test_cm_patch"' "$T/klp.metrics2")"
echo 0 > "$CM/hold"
check "klp: disabled, freed, removed" eval \
	"echo 0 > $KLP_SYSFS/$P/enabled && wait_until 20 eval '[ ! -e $KLP_SYSFS/$P ]' && wait_until 5 eval 'rmmod $P 2>/dev/null'"
ktap_finish
