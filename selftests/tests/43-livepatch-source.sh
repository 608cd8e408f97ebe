#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# klp-cost: 246
# klp-accel: tcg,thread=single
# klp-min-results: 110
# Single-threaded TCG: the builtin livepatch's enables and disables
# rewrite call sites while the other CPU runs (on 6.12 every
# cond_resched() one, sched_dynamic_klp_enable()), which multi-threaded
# TCG mis-emulates (ENVIRONMENT.md, doc/testing.md).
# klptop's second source, the kernel's builtin livepatch: two builtin
# patches stacked on klp_target_c beside a klp patch on klp_target_a and
# _b.  klptop --json names each row's core, the builtin's winner and the
# stack below it as the builtin's own func_stack holds them (read through
# BPF), counts exactly the calls each (function, winner) gets with a
# caller on every CPU, and moves the count to the next patch when the top
# one is disabled; the screen shows the CORE column.  A builtin patch
# loaded again under its name between two of klptop's reads: its calls
# counted exactly, the old load's probe closed and its slot freed.  With
# the builtin unreadable (kptr_restrict=2), klptop shows klp's patches
# and says why;
# a builtin func no kprobe may probe shows its counts unknown (null, ?).
# klp-exporter puts a kprobe on each builtin func's new function and its
# program on klp:klp_redirect, and counts both cores' calls; with
# --no-collector.calls neither, and serves no series of the calls.
# Before klp.ko is loaded, klptop shows the builtin patches alone, and
# klp-trace (started then, so it traces the builtin's records only) prints
# every builtin event of the test, in order: enable, transition start and
# complete, disable, a transition reversed midway (held by a kthread asleep
# in the patched function), a refused enable with its error, and a forced
# one; its kprobe events are gone when it ends.  While a builtin transition
# is held, klp-trace names the task (pid, comm, the patched function on
# its stack, on_stack) within its interval, with the transition's progress,
# before the transition's end.  A klp-trace of the builtin's calls
# (-e klp_redirect: a kprobe event on each func's new function, the funcs
# and winners from its walk of the builtin's klp_ops through /proc/kcore)
# prints exactly one record per call, naming the top patch as winner; after
# the top one is disabled it walks again, and the next calls are recorded
# for the patch below; a builtin patch enabled while it runs is traced from
# its enable on, and the module it patches reloaded again and again leaves
# one record per call and one call event per func.  klp-traces killed
# (SIGKILL) leave their instance and kprobe group, still firing; the next
# klp-trace removes them as it starts, also when the dead one's pid went
# to sleep or to that klp-trace itself, and leaves a running one's alone.
. "$(dirname "$0")/../lib.sh"
ktap_start "klptop: the builtin livepatch as a second source"

T=/tmp/klptop-43
mkdir -p "$T"
KT_JSON=$T/klptop.json
KT_PID=
LP=/sys/kernel/livepatch

TRACEFS=/sys/kernel/tracing
LT_PIDS=
cleanup() {
	[ -n "$KT_PID" ] && kill "$KT_PID" 2>/dev/null
	for p in $LT_PIDS; do kill -INT -- "-$p" 2>/dev/null; done
}
trap cleanup EXIT

# kt_next: a JSON object of an interval that began after this call (the
# second line printed from now: the first may have ended just before)
kt_next() {
	local n tries
	n=$(wc -l < "$KT_JSON")
	for ((tries = 0; tries < 100; tries++)); do
		if [ "$(wc -l < "$KT_JSON")" -ge $((n + 2)) ]; then
			sed -n "$((n + 2))p" "$KT_JSON"
			return 0
		fi
		kill -0 "$KT_PID" 2>/dev/null || return 1
		sleep 0.2
	done
	return 1
}

# row LINE FUNC: "core winner stack,... depth" of FUNC
row() {
	jq -r --arg f "$2" '.rows[] | select(.function == $f) |
		"\(.core) \(.winner // "-") \(.stack | join(",")) \(.depth)"' <<< "$1"
}

# totals LINE FUNC: "patch:core:hits_total" of each func of FUNC, by patch
totals() {
	jq -r --arg f "$2" '.rows[] | select(.function == $f) | .funcs[] |
		"\(.patch):\(.core):\(.hits_total)"' <<< "$1" | LC_ALL=C sort | paste -sd' ' -
}

builtin_settled() {	# builtin_settled PATCH: no transition, or freed
	[ ! -e $LP/$1 ] || [ "$(cat $LP/$1/transition 2>/dev/null)" = 0 ]
}

# calls_every_cpu N: N calls of klp_target_c from a kernel loop on each CPU
# at once; prints "value calls" of what they got
calls_every_cpu() {
	local cpu
	echo > "$KLP_TARGET/values"
	for ((cpu = 0; cpu < NCPU; cpu++)); do
		taskset -c $cpu sh -c "echo 'c $1' > $KLP_TARGET/call" &
	done
	wait
	paste -sd' ' - < "$KLP_TARGET/values"
}

NCPU=$(nproc)
N=20000
diag "$NCPU CPUs, $N calls on each"

# --- before klp.ko: the builtin alone -------------------------------------
klp_insmod klp_test_target || bail "target loads"
klp_insmod klp_test_sleeper || bail "the sleeper module loads"
check "klp-trace, no klp core, no builtin patch: fails naming both" \
	eval '! "$KLP_BIN/klp-trace" -t 1 > "$T/none.out" 2>&1 && grep -q "is the klp core loaded?" "$T/none.out" && grep -q "nor has the builtin livepatch a patch" "$T/none.out"'
check "builtin klp_test_builtin on klp_target_c" klp_insmod klp_test_builtin func=klp_target_c
check "its transition completes" wait_until 10 builtin_settled klp_test_builtin

# klp-trace, text and JSON, from now to the end of the test
lt_start() {	# lt_start NAME ARGS...: in its own process group
	setsid "$KLP_BIN/klp-trace" "${@:2}" > "$T/$1.out" 2> "$T/$1.err" &
	LT_PIDS="$LT_PIDS $!"
	eval "LT_$1=$!"
}
lt_start text --no-redirect
lt_start json --no-redirect --json
lt_ready() { grep -q '^Tracing the builtin' "$T/text.err" && grep -q '^Tracing the builtin' "$T/json.err"; }
check "klp-trace without the klp core: traces the builtin's records" wait_until 60 lt_ready
check "... and says the klp core is not loaded" \
	grep -q "the klp core is not loaded: tracing the builtin livepatch's records only" "$T/text.err"
assert_eq "its kprobe events: 6 in a group of its own (one per klp-trace)" "12 2" \
	"$(grep -cE '^[pr][0-9]*:klp_trace_[0-9]+_[0-9]+/' $TRACEFS/kprobe_events) $(grep -oE '^[pr][0-9]*:klp_trace_[0-9]+_[0-9]+' $TRACEFS/kprobe_events | sed 's/^[^:]*://' | sort -u | wc -l)"
assert_eq "... enabled only in klp-trace's instances, not at the top level" "0" \
	"$(cat $TRACEFS/events/klp_trace_*/*/enable | grep -c 1)"

"$KLP_BIN/klptop" --json 1 1 > "$T/pre.json" 2> "$T/pre.err"
assert_eq "klptop --json without the klp core: the builtin's row" \
	"livepatch klp_test_builtin klp_test_builtin 1" "$(row "$(cat "$T/pre.json")" klp_target_c)"
check "... and it says the klp core is not loaded" grep -q "the klp core is not loaded" "$T/pre.err"
screen=$("$KLP_BIN/klptop" -C --once 2>&1)
check "klptop's screen without the klp core: the builtin's row" \
	grep -qE '^livepatch +klp_test_target +klp_target_c +klp_test_builtin ' <<< "$screen"

# a transition held by the sleeper, reversed midway
SLEEPER="func=klp_sleeper_wait objname=klp_test_sleeper"
check "klp_test_builtin2 on klp_sleeper_wait: its transition held" \
	eval "klp_insmod klp_test_builtin2 $SLEEPER && sleep 1 && [ \"\$(cat $LP/klp_test_builtin2/transition)\" = 1 ]"
SPID=$(pgrep -x klp_sleeper)
BLOCKED="klp_task_blocked: core=livepatch patch=klp_test_builtin2 pid=$SPID comm=klp_sleeper func=klp_sleeper_wait reason=on_stack"
check "klp-trace names the task that holds it (pid $SPID, comm, the function on its stack, on_stack)" \
	wait_until 10 grep -q "$BLOCKED" "$T/text.out"
check "... with the transition's progress: a sweep, tasks left of all" \
	grep -qE "klp_transition: core=livepatch patch=klp_test_builtin2 target=1 action=sweep pending=[1-9][0-9]* total=[1-9][0-9]*$" "$T/text.out"
json_blocked() {
	jq -r 'select(.event == "klp_task_blocked") | "\(.core) \(.patch) \(.pid) \(.comm) \(.func) \(.reason_sym)"' \
		"$T/json.out" 2>/dev/null |
		grep -qx "livepatch klp_test_builtin2 $SPID klp_sleeper klp_sleeper_wait on_stack"
}
check "klp-trace --json names it too" wait_until 10 json_blocked
check "enabled written 0 midway: reversed, then freed" \
	eval "echo 0 > $LP/klp_test_builtin2/enabled && wait_until 20 eval '[ ! -e $LP/klp_test_builtin2 ]'"
check "its module unloads" wait_until 10 rmmod klp_test_builtin2
check "an enable the builtin refuses (no such function): insmod fails" \
	eval '! klp_insmod klp_test_builtin2 func=klp_no_such_function objname=vmlinux'

# --- klp.ko beside it ------------------------------------------------------
klp_insmod klp || bail "core loads"
check "klp_test_p1 (klp) patches klp_target_a and _b" klp_insmod klp_test_p1

"$KLP_BIN/klptop" --json 1 > "$KT_JSON" 2> "$KT_JSON.err" &
KT_PID=$!
line=$(kt_next) || bail "klptop --json runs (stderr: $(cat "$KT_JSON.err"))"
assert_eq "one builtin patch: core, winner, stack, depth" \
	"livepatch klp_test_builtin klp_test_builtin 1" "$(row "$line" klp_target_c)"
assert_eq "the klp patch beside it, with its core" \
	"klp klp_test_p1 klp_test_p1 1" "$(row "$line" klp_target_a)"
assert_eq "the builtin's object is patched (its sysfs)" true \
	"$(jq -r '.rows[] | select(.function == "klp_target_c") | .funcs[0].patched' <<< "$line")"

check "builtin klp_test_builtin2 stacks on klp_target_c" klp_insmod klp_test_builtin2 func=klp_target_c
check "its transition completes" wait_until 10 builtin_settled klp_test_builtin2
line=$(kt_next) || bail "klptop goes on"
assert_eq "the last enabled wins; the first below it" \
	"livepatch klp_test_builtin2 klp_test_builtin2,klp_test_builtin 2" \
	"$(row "$line" klp_target_c)"
assert_eq "the klp patch's row unchanged" \
	"klp klp_test_p1 klp_test_p1 1" "$(row "$line" klp_target_a)"

# Two open files per counted function (a perf event, a BPF link): a
# klptop whose soft limit stops one short of the highest file the running
# one holds still counts both builtin funcs (it raises the limit), as a
# 1000-function patch needs past the usual 1024.
maxfd=$(ls /proc/$KT_PID/fd | sort -n | tail -n 1)
(ulimit -Sn "$maxfd" && "$KLP_BIN/klptop" --json 1 2) > "$T/nofile.json" 2> "$T/nofile.err"
assert_eq "klptop under a soft limit of $maxfd open files: both builtin funcs on their row" \
	"livepatch klp_test_builtin2 klp_test_builtin2,klp_test_builtin 2" \
	"$(row "$(tail -n 1 "$T/nofile.json")" klp_target_c)"
assert_eq "... every call countable: no 'cannot count' on stderr" "" \
	"$(grep 'cannot count' "$T/nofile.err" 2>&1)"

# exact counts: every call goes to the winner's pair, none to the other
before=$line
assert_eq "calls on every CPU get the top patch's value" \
	"7100 $((N * NCPU))" "$(calls_every_cpu $N)"
line=$(kt_next) || bail "klptop goes on"
b1=$(jq -r '.rows[] | select(.function == "klp_target_c") | .funcs[] | select(.patch == "klp_test_builtin") | .hits_total' <<< "$before")
b2=$(jq -r '.rows[] | select(.function == "klp_target_c") | .funcs[] | select(.patch == "klp_test_builtin2") | .hits_total' <<< "$before")
assert_eq "exactly the calls on the winner's pair, none below" \
	"klp_test_builtin2:livepatch:$((b2 + N * NCPU)) klp_test_builtin:livepatch:$b1" \
	"$(totals "$line" klp_target_c)"
a1=$(jq -r '.rows[] | select(.function == "klp_target_a") | .hits_total' <<< "$line")
assert_eq "klp_target_a: klp_test_p1's value" 1001 "$(target_call a 5)"
line=$(kt_next) || bail "klptop goes on"
assert_eq "klp's calls counted by klp's source beside it" "$((a1 + 5))" \
	"$(jq -r '.rows[] | select(.function == "klp_target_a") | .hits_total' <<< "$line")"

# klp-trace's record of each builtin call, from a walk through /proc/kcore
M=500
lt_start calls --core livepatch -e klp_redirect
lt_walks() { grep -c "builtin livepatch: the calls of 2 funcs traced" "$T/calls.err"; }
check "klp-trace -e klp_redirect: both builtin funcs of klp_target_c traced" \
	wait_until 60 eval '[ "$(lt_walks)" = 1 ]'
assert_eq "... their kprobe events, on each func's new function" 2 \
	"$(grep -cE "^p[0-9]*:klp_trace_${LT_calls}_[0-9]+/call_[0-9]+ 0x" $TRACEFS/kprobe_events)"
assert_eq "calls on every CPU get the top patch's value" \
	"7100 $((M * NCPU))" "$(calls_every_cpu $M)"

# the top one disabled: the count moves to the next
check "klp_test_builtin2 disabled" eval "echo 0 > $LP/klp_test_builtin2/enabled"
check "its transition completes, the patch is freed" wait_until 10 eval "[ ! -e $LP/klp_test_builtin2 ]"
line=$(kt_next) || bail "klptop goes on"
assert_eq "klp_test_builtin wins again, alone" \
	"livepatch klp_test_builtin klp_test_builtin 1" "$(row "$line" klp_target_c)"
check "klp-trace walked the func_stacks again: the new winner, the gone func's event off" \
	wait_until 30 grep -q "builtin livepatch: the calls of 1 func traced" "$T/calls.err"
assert_eq "calls on every CPU get the next patch's value" \
	"7000 $((M * NCPU))" "$(calls_every_cpu $M)"
sleep 0.5	# its next buffer read
kill -INT -- "-$LT_calls" && wait "$LT_calls"
assert_eq "klp-trace ends on SIGINT, status 0" "0" "$?"
LT_PIDS=${LT_PIDS/ $LT_calls/}
calls=$(sed -n 's/^[0-9.]* \[[0-9]*\] .*-[0-9]* klp_redirect: core=livepatch old_addr=\([^ ]*\) new_func=[^ ]* func=\([^ ]*\) patch=\([^ ]*\) winner=\([^ ]*\)$/\1 \2 \3 \4/p' "$T/calls.out" | uniq -c | awk '{ print $1, $2, $3, $4, $5 }')
assert_eq "klp-trace: one record per call, each naming the top patch as winner; after the disable, the patch below" \
	"$((M * NCPU)) klp_target_c klp_target_c klp_test_builtin2 klp_test_builtin2
$((M * NCPU)) klp_target_c klp_target_c klp_test_builtin klp_test_builtin" "$calls"
assert_eq "... and nothing else" "$((2 * M * NCPU))" "$(wc -l < "$T/calls.out")"
assert_eq "... its call events gone" 0 "$(grep -c "klp_trace_${LT_calls}_" $TRACEFS/kprobe_events)"
line=$(kt_next) || bail "klptop goes on"
before=$line
assert_eq "calls on every CPU get the next patch's value" \
	"7000 $((N * NCPU))" "$(calls_every_cpu $N)"
line=$(kt_next) || bail "klptop goes on"
b1=$(jq -r '.rows[] | select(.function == "klp_target_c") | .funcs[] | select(.patch == "klp_test_builtin") | .hits_total' <<< "$before")
assert_eq "the calls now on klp_test_builtin's pair; the freed patch gone" \
	"klp_test_builtin:livepatch:$((b1 + N * NCPU))" "$(totals "$line" klp_target_c)"
assert_eq "the summary counts both cores' patches" "2 2" \
	"$(jq -r '"\(.summary.patches) \(.summary.enabled)"' <<< "$line")"

# the screen: a CORE column
screen=$("$KLP_BIN/klptop" -C --once 2>&1)
check "the screen's header has CORE" grep -q '^CORE  *OBJECT' <<< "$screen"
check "klp_target_c's row says livepatch" grep -qE '^livepatch +klp_test_target +klp_target_c +klp_test_builtin ' <<< "$screen"
check "klp_target_a's row says klp" grep -qE '^klp +klp_test_target +klp_target_a +klp_test_p1 ' <<< "$screen"

# the builtin's source unable to open beside klp's (kernel.kptr_restrict=2
# hides klp_ops from /proc/kallsyms, root too): klptop says why and shows
# klp's patches, as the exporter carries on
kr=$(cat /proc/sys/kernel/kptr_restrict)
echo 2 > /proc/sys/kernel/kptr_restrict
"$KLP_BIN/klptop" --json 1 1 > "$T/kr.json" 2> "$T/kr.err"
rc=$?
echo "$kr" > /proc/sys/kernel/kptr_restrict
assert_eq "kptr_restrict=2, the builtin's func_stacks unreadable: klptop runs, klp's rows" \
	"0 klp_target_a klp_target_b" \
	"$rc $(jq -r '[.rows[] | select(.core == "klp") | .function] | sort | join(" ")' "$T/kr.json")"
check "... and says why the builtin's are not" \
	grep -q 'klp_ops not in /proc/kallsyms' "$T/kr.err"

# the last builtin patch goes: its rows go with it
check "klp_test_builtin disabled" eval "echo 0 > $LP/klp_test_builtin/enabled"
check "its transition completes, the patch is freed" wait_until 10 eval "[ ! -e $LP/klp_test_builtin ]"
line=$(kt_next) || bail "klptop goes on"
assert_eq "no builtin row left; klp's stays" "klp_target_a klp_target_b" \
	"$(jq -r '[.rows[].function] | sort | join(" ")' <<< "$line")"

# the builtin's events, from BPF on its own functions, in order
b2=klp_test_builtin2
assert_eq "klp_test_builtin2's events in the JSON, in order, with klp's causes" \
"transition enable patch $b2 (livepatch) enabling: transition started
transition enable patch $b2 (livepatch) enabling: transition complete
enable enable patch $b2 (livepatch) enabled
transition disable patch $b2 (livepatch) disabling: transition started
transition disable patch $b2 (livepatch) disabling: transition complete
disable disable patch $b2 (livepatch) disabled" \
	"$(jq -r --arg p $b2 '.transitions[] | select(.patch == $p) | "\(.event) \(.cause) \(.text)"' "$KT_JSON")"

kill "$KT_PID"
wait "$KT_PID"
rc=$?
KT_PID=
assert_eq "SIGTERM ends klptop cleanly" 0 "$rc"
assert_eq "klptop wrote nothing to stderr" "" "$(cat "$KT_JSON.err" 2>&1)"

# --- a held transition forced; then klp-trace's records ---------------------
nblocked=$(grep -c "$BLOCKED" "$T/text.out")
check "klp_test_builtin2 again, on klp_sleeper_wait: held" \
	eval "wait_until 10 rmmod klp_test_builtin2 && klp_insmod klp_test_builtin2 $SLEEPER && sleep 1 && [ \"\$(cat $LP/klp_test_builtin2/transition)\" = 1 ]"
check "klp-trace names the task that holds it again" \
	wait_until 10 eval '[ "$(grep -c "$BLOCKED" "$T/text.out")" -gt "$nblocked" ]'
check "force written: the transition completes" \
	eval "echo 1 > $LP/klp_test_builtin2/force && wait_until 20 builtin_settled klp_test_builtin2"
# lt_stop NAME SIG: the klp-trace ends on SIG with status 0
lt_stop() {
	local pid
	pid=$(eval echo "\$LT_$1")
	kill -"$2" -- "-$pid" && wait "$pid"
}
sleep 0.5	# its next buffer read
check "klp-trace ends on SIGINT, status 0" lt_stop text INT
check "klp-trace --json ends on SIGTERM, status 0" lt_stop json TERM
LT_PIDS=
b1=klp_test_builtin
b2=klp_test_builtin2
expected="klp_transition $b2 target=1 action=start
klp_transition $b2 target=0 action=reversed
klp_transition $b2 target=0 action=complete
klp_patch_disable $b2 ret=0
klp_patch_enable $b2 ret=-22
klp_transition $b2 target=1 action=start
klp_transition $b2 target=1 action=complete
klp_patch_enable $b2 ret=0
klp_transition $b2 target=0 action=start
klp_transition $b2 target=0 action=complete
klp_patch_disable $b2 ret=0
klp_transition $b1 target=0 action=start
klp_transition $b1 target=0 action=complete
klp_patch_disable $b1 ret=0
klp_transition $b2 target=1 action=start
klp_transition $b2 target=1 action=forced
klp_transition $b2 target=1 action=complete
klp_patch_enable $b2 ret=0"
assert_eq "klp-trace: every builtin event, in order, with klp's names (held, reversed, refused, stacked, disabled, forced)" \
	"$expected" "$(grep -v -e klp_task_blocked -e action=sweep "$T/text.out" | sed -n 's/^[0-9.]* \[[0-9]*\] .*-[0-9]* \(klp_[a-z_]*\): core=livepatch patch=\([^ ]*\) /\1 \2 /p')"
first_blocked=$(grep -n -m1 "$BLOCKED" "$T/text.out" | cut -d: -f1)
reversed_end=$(grep -n -m1 "klp_transition: core=livepatch patch=$b2 target=0 action=complete" "$T/text.out" | cut -d: -f1)
check "klp-trace: the held transition's blocked task before its end" \
	eval '[ -n "$first_blocked" ] && [ -n "$reversed_end" ] && [ "$first_blocked" -lt "$reversed_end" ]'
check "klp-trace: only the builtin's records (started without the klp core)" \
	eval '! grep -v "core=livepatch" "$T/text.out" | grep -q .'
assert_eq "klp-trace --json: the same records" "$expected" \
	"$(jq -r 'select(.core == "livepatch" and .event != "klp_task_blocked" and .action_sym != "sweep") | if .event == "klp_transition"
		then "\(.event) \(.patch) target=\(.target) action=\(.action_sym)"
		else "\(.event) \(.patch) ret=\(.ret)" end' "$T/json.out")"
assert_eq "klp-trace: no kprobe event, no instance, no event group left" "0 0 0" \
	"$(grep -c klp_trace_ $TRACEFS/kprobe_events) $(compgen -G "$TRACEFS/instances/klp-trace.*" | wc -l) $(compgen -G "$TRACEFS/events/klp_trace_*" | wc -l)"

# a builtin patch enabled while klp-trace runs: its func traced from then on
lt_start later --core livepatch -e klp_redirect
check "klp-trace -e klp_redirect with one builtin func (on klp_sleeper_wait)" \
	wait_until 60 grep -q "the calls of 1 func traced" "$T/later.err"
check "klp_test_builtin loaded again on klp_target_c while it runs" \
	eval "rmmod klp_test_builtin && klp_insmod klp_test_builtin func=klp_target_c && wait_until 10 builtin_settled klp_test_builtin"
check "... klp-trace walks again: its func traced" \
	wait_until 30 grep -q "the calls of 2 funcs traced" "$T/later.err"
assert_eq "its calls get its value" 7000 "$(target_call c 100)"

# The patched module reloaded again and again under klp-trace: each time
# klp_test_builtin's func leaves the stacks and comes back, its old event
# goes and a new one comes: one event per func on the stacks, one record
# per call (a kept event beside the new one printed each call twice, and
# took a slot for good).
R=5
lt_said() { grep -c "builtin livepatch: the calls of" "$T/later.err"; }
# lt_walked N: klp-trace said what it traces since it had said N times
lt_walked() { wait_until 30 eval "[ \"\$(lt_said)\" -gt $1 ]"; }
for ((r = 0; r < R; r++)); do
	n=$(lt_said)
	rmmod klp_test_target && lt_walked "$n" || break
	n=$(lt_said)
	klp_insmod klp_test_target && lt_walked "$n" || break
	[ "$(target_call c 10)" = 7000 ] || break
done
assert_eq "klp_test_target reloaded $R times under klp-trace, each seen gone and back, its calls patched" \
	"$R" "$r"
assert_eq "... klp-trace's call events: one per func on the stacks, no more" 2 \
	"$(grep -cE "^p[0-9]*:klp_trace_${LT_later}_[0-9]+/call_" $TRACEFS/kprobe_events)"
sleep 0.5	# its next buffer read
kill -INT -- "-$LT_later" && wait "$LT_later"
assert_eq "exactly those calls recorded, once each, on the new patch, itself the winner" \
	"$((100 + 10 * R)) klp_target_c klp_test_builtin klp_test_builtin" \
	"$(sed -n 's/.* klp_redirect: core=livepatch old_addr=[^ ]* new_func=[^ ]* func=\([^ ]*\) patch=\([^ ]*\) winner=\([^ ]*\)$/\1 \2 \3/p' "$T/later.out" | uniq -c | awk '{ print $1, $2, $3, $4 }')"
assert_eq "... its events gone when it ends" 0 "$(grep -c klp_trace_ $TRACEFS/kprobe_events)"

# klp-exporter's collectors: with the calls collector (the default) it puts
# a kprobe on the builtin winner's new function and klp's counting program
# on klp:klp_redirect; with --no-collector.calls, neither: no cost per call
# on either core, the calls' series absent, the rest served as ever
KPROBES=/sys/kernel/debug/kprobes/list
# xp_run ARGS...: start klp-exporter on 127.0.0.1:9874, scrape it after
# 100 calls of klp_target_a and of _c, into $T/xp.prom; then $T/xp.probes:
# the kprobes it added, and the BPF programs it holds
xp_run() {
	local before xp
	before=$(grep -c . $KPROBES)
	"$KLP_BIN/klp-exporter" -l 127.0.0.1:9874 "$@" 2> "$T/xp.err" &
	xp=$!
	wait_until 60 grep -q "listening on" "$T/xp.err" &&
		curl -sf -o /dev/null http://127.0.0.1:9874/metrics &&
		target_call a 100 > /dev/null && target_call c 100 > /dev/null &&
		curl -sf -o "$T/xp.prom" http://127.0.0.1:9874/metrics
	echo "$(( $(grep -c . $KPROBES) - before ))" \
		"$(grep -l '^prog_type:' /proc/$xp/fdinfo/* 2>/dev/null | wc -l)" > "$T/xp.probes"
	kill "$xp" && wait "$xp"
}
check "klp-exporter with every collector: serves, exits 0" xp_run
read -r probes progs < "$T/xp.probes"
assert_eq "... a kprobe on the new function of each builtin func on a stack (two on klp_target_c)" \
	2 "$probes"
assert_eq "... the calls counted on both cores" \
	'klp_func_redirects_total{object="klp_test_target",function="klp_target_c",patch="klp_test_builtin",core="livepatch"} 100' \
	"$(grep -E '^klp_func_redirects_total\{.*function="klp_target_c"' "$T/xp.prom")"
check "klp-exporter --no-collector.calls: serves, exits 0" xp_run --no-collector.calls
assert_eq "... no kprobe, and one BPF program less: none on klp:klp_redirect" \
	"0 $((progs - 1))" "$(cat "$T/xp.probes")"
assert_eq "... no series of the calls; klp_exporter_collector_enabled says so" \
	'klp_exporter_collector_enabled{collector="calls"} 0' \
	"$(grep -E '^(klp_func_redirects_total|klp_func_uncounted|klp_exporter_(lost_redirects|unattributed_redirects|probe_failures)_total|klp_exporter_collector_enabled)' "$T/xp.prom")"
assert_eq "... the winners of both cores served as ever" \
	"klp_target_a klp
klp_target_b klp
klp_target_c livepatch" \
	"$(sed -n 's/^klp_func_winner{object="klp_test_target",function="\([^"]*\)",patch="[^"]*",core="\([^"]*\)"} 1$/\1 \2/p' "$T/xp.prom" | sort)"

# --- klp-traces killed: what they leave, the next one's start removes ------
# lt_up NAME: klp-trace NAME traces the calls of both builtin funcs
lt_up() { wait_until 60 grep -q "the calls of 2 funcs traced" "$T/$1.err"; }
# lt_left PID: "instances kprobe-events" klp-traces of PID have in tracefs
lt_left() {
	echo "$(compgen -G "$TRACEFS/instances/klp-trace.$1.*" | wc -l) $(grep -c ":klp_trace_$1_" $TRACEFS/kprobe_events)"
}
# next_pid PID: the next process forked gets PID (if no other comes first)
next_pid() { echo $(($1 - 1)) > /proc/sys/kernel/ns_last_pid; }
lt_start live --core livepatch -e klp_redirect
lt_start dead --core livepatch -e klp_redirect
check "two klp-traces of the builtin's calls run" eval 'lt_up live && lt_up dead'
kill -KILL "$LT_dead"
wait "$LT_dead" 2> /dev/null
assert_eq "SIGKILL leaves its instance and its 8 kprobe events (6 + 2 calls)" "1 8" "$(lt_left "$LT_dead")"
target_call c 5 > /dev/null
check "... which keep firing: each call recorded in the dead one's instance" \
	eval '[ "$(grep -c ": call_" $TRACEFS/instances/klp-trace.$LT_dead.*/trace)" -ge 5 ]'
# its pid given to a process that is not klp-trace
for ((i = 0; i < 5; i++)); do
	next_pid "$LT_dead"
	sleep 600 &
	reuser=$!
	[ "$reuser" = "$LT_dead" ] && break
	kill "$reuser"
done
assert_eq "the dead klp-trace's pid reused by sleep" "$LT_dead" "$reuser"
lt_start next --core livepatch -e klp_redirect
check "a klp-trace started then runs" lt_up next
assert_eq "... and removed the dead one's instance and kprobe group (its pid now sleep's)" "0 0" \
	"$(lt_left "$LT_dead")"
check "... saying so" eval "grep -q 'removed tracefs instance klp-trace.$LT_dead\\.[0-9]* of a klp-trace that is gone' '$T/next.err' &&
	grep -q 'removed kprobe group klp_trace_${LT_dead}_[0-9]* of a klp-trace that is gone' '$T/next.err'"
kill "$reuser"
assert_eq "... the live klp-trace's left alone" "1 8" "$(lt_left "$LT_live")"
# a klp-trace killed, the next klp-trace started with its pid
kill -KILL "$LT_next"
wait "$LT_next" 2> /dev/null
old_inst=$(compgen -G "$TRACEFS/instances/klp-trace.$LT_next.*")
for ((i = 0; i < 5; i++)); do
	next_pid "$LT_next"
	lt_start again --core livepatch -e klp_redirect
	[ "$LT_again" = "$LT_next" ] && break
	kill -KILL "$LT_again"
	wait "$LT_again" 2> /dev/null
done
assert_eq "a klp-trace started with the pid of one killed" "$LT_next" "$LT_again"
check "... runs" lt_up again
assert_eq "... and the killed one's instance and group are gone, its own there" "1 8" \
	"$(lt_left "$LT_again")"
check "... a new instance, not the killed one's" \
	eval '[ -n "$old_inst" ] && [ ! -e "$old_inst" ]'
assert_eq "... the live klp-trace's left alone again" "1 8" "$(lt_left "$LT_live")"
n=$(grep -c " klp_redirect: " "$T/live.out")
target_call c 7 > /dev/null
sleep 1.5	# its next buffer read
assert_eq "... and it traces on: each call recorded once" "$((n + 7))" \
	"$(grep -c " klp_redirect: " "$T/live.out")"
check "both end on SIGINT, status 0" eval 'lt_stop live INT && lt_stop again INT'
LT_PIDS=
assert_eq "no klp-trace instance or kprobe event left" "0 0" \
	"$(compgen -G "$TRACEFS/instances/klp-trace.*" | wc -l) $(grep -c klp_trace_ $TRACEFS/kprobe_events)"

# a builtin func whose new function refuses kprobes (NOKPROBE_SYMBOL): its
# calls cannot be counted; klptop names it and shows its counts unknown
check "klp_test_builtin again, its new function one no kprobe may probe" \
	eval "echo 0 > $LP/klp_test_builtin/enabled && wait_until 10 eval '[ ! -e $LP/klp_test_builtin ]' &&
		wait_until 10 rmmod klp_test_builtin &&
		klp_insmod klp_test_builtin func=klp_target_c nokprobe=1 && wait_until 10 builtin_settled klp_test_builtin"
assert_eq "its calls get its value" 7005 "$(target_call c 10)"
"$KLP_BIN/klptop" --json 1 1 > "$T/nk.json" 2> "$T/nk.err"
assert_eq "klptop --json: klp_target_c's counts unknown (null), not 0: the row's and the func's" \
	"null null null null" \
	"$(jq -r '.rows[] | select(.function == "klp_target_c") | "\(.hits_total) \(.hits_interval) \(.rate) \(.funcs[0].hits_total)"' "$T/nk.json")"
check "... klp's rows counted as ever" \
	eval '[ "$(jq -r ".rows[] | select(.function == \"klp_target_a\") | .hits_total | type" "$T/nk.json")" = number ]'
check "... and it says which func it cannot count" \
	grep -q "cannot count the calls of klp_test_builtin's klp_target_c" "$T/nk.err"
screen=$("$KLP_BIN/klptop" -C --once 2>/dev/null)
check "the screen: ? for its HITS, HITS/s and TOTAL" \
	grep -qE '^livepatch +klp_test_target +klp_target_c +klp_test_builtin .* [?] +[?] +[?]$' <<< "$screen"
# --- a builtin patch loaded again under its name between two reads ----------
# klptop stopped (SIGSTOP) while klp_test_builtin is disabled, unloaded and
# loaded again, then let go: its next read finds the same name, another
# load: at other addresses (another module took the memory the old one
# left), or back at an earlier load's (the same .ko, where a probe of that
# load counts nothing: its kprobe went with that load's text).  The
# old load's probe is read, closed and its counter slot freed before the
# new one's is made: the same BPF objects and perf events open after
# every reload, the calls in one slot; the calls of the old load since
# the last read and of the new one counted exactly, on the same func.
lp_reload() {	# lp_reload [FILLER]: FILLER loaded in between
	echo 0 > $LP/klp_test_builtin/enabled &&
		wait_until 20 eval "[ ! -e $LP/klp_test_builtin ]" &&
		wait_until 10 rmmod klp_test_builtin &&
		{ [ -z "$1" ] || klp_insmod "$1"; } &&
		klp_insmod klp_test_builtin func=klp_target_c &&
		{ [ -z "$1" ] || rmmod "$1"; } &&
		wait_until 10 builtin_settled klp_test_builtin
}
check "klp_test_builtin loaded again, its new function probed" lp_reload
# c_total LINE: klp_test_builtin's calls of klp_target_c
c_total() {
	jq -r '.rows[] | select(.function == "klp_target_c") | .funcs[] |
		select(.patch == "klp_test_builtin") | .hits_total' <<< "$1"
}
# kt_files: klptop's open BPF objects and perf events, and the perf
# events of them (its files in sysfs and /proc come and go as it reads)
kt_files() {
	local all
	all=$(ls -l /proc/$KT_PID/fd)
	echo "$(grep -c 'anon_inode:' <<< "$all") $(grep -c 'anon_inode:\[perf_event\]' <<< "$all")"
}
# kt_slots: the counter slots of klptop's builtin source that got calls
kt_slots() {
	local id
	id=$(bpftool map show -j | jq --argjson p "$KT_PID" '.[] |
		select(.name == "lp_hits" and (.pids == null or any(.pids[]; .pid == $p))) | .id')
	bpftool map dump id "$id" -j |
		jq '[.[] | .formatted // . | select(.value != 0) | .key % 4096] | unique | length'
}
"$KLP_BIN/klptop" --json 1 > "$KT_JSON" 2> "$KT_JSON.err" &
KT_PID=$!
line=$(kt_next) || bail "klptop --json runs (stderr: $(cat "$KT_JSON.err"))"
files=$(kt_files)
total=$(c_total "$line")
R=3
reloads=0 exact=0 same_files=0
for ((i = 1; i <= R; i++)); do
	t0=$EPOCHREALTIME
	target_call c 3 > /dev/null	# on the old load, after klptop's last read
	kill -STOP "$KT_PID"
	filler=
	[ $((i % 2)) = 1 ] && filler=klp_test_export	# other addresses
	lp_reload $filler || break
	reloads=$i
	kill -CONT "$KT_PID"
	line=$(kt_next) || break
	target_call c $((10 * i)) > /dev/null
	line=$(kt_next) || break
	total=$((total + 3 + 10 * i))
	[ "$(c_total "$line")" = "$total" ] && exact=$((exact + 1))
	[ "$(kt_files)" = "$files" ] && same_files=$((same_files + 1))
	diag "reload $i${filler:+ ($filler between)}, ${t0%.*}-${EPOCHREALTIME%.*} s: text at $(cat /sys/module/klp_test_builtin/sections/.text), $(kt_files) BPF objects and perf events (before: $files), calls $(c_total "$line") (expected $total)"
done
kill -CONT "$KT_PID" 2> /dev/null
assert_eq "$R reloads of klp_test_builtin between two of klptop's reads" "$R" "$reloads"
assert_eq "... the calls of both loads counted exactly after each" "$R" "$exact"
assert_eq "... the same BPF objects and perf events open after each: the old load's probe closed" "$R" "$same_files"
assert_eq "... every call counted in one slot: the old probe's freed for the new" 1 "$(kt_slots)"
kill "$KT_PID"
wait "$KT_PID"
KT_PID=
assert_eq "... said nothing (no probe failed)" "" "$(cat "$KT_JSON.err" 2>&1)"
[ "$_ktap_fail" = 0 ] || diag "$(cat "$T/text.out" "$T/text.err" "$T/calls.err" "$T/later.err")"
ktap_finish
