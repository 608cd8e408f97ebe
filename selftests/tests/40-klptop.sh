#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# klp-cost: 339
# klp-accel: tcg,thread=single
# Single-threaded TCG: on 6.12 the builtin livepatch's transition rewrites
# every cond_resched() call site (sched_dynamic_klp_enable()) while the
# other CPUs run, which multi-threaded TCG mis-emulates (an "Oops: int3"
# in rcu_gp_fqs_loop ended this group once; doc/testing.md).
# klptop and its BPF counters.  With klptop --json attached: after exactly
# N calls the counter of the winning (function, id) pair grew by exactly N
# and every other pair by 0 -- single patch, two stacked, top disabled,
# three stacked with disables in the middle, on top and at the bottom,
# nothing enabled, a refused patch that left nothing, and patches waiting for
# their module; a winner switch in the middle of a call stream loses no
# call and never lets the original run; klptop's JSON reports the new
# stack in its first interval after every transition, and the same totals
# as the map.
# klp-min-results: 111
. "$(dirname "$0")/../lib.sh"
ktap_start "klptop: BPF redirection counters and --json"

T=/tmp/klptop-40
mkdir -p "$T"
KT_JSON=$T/klptop.json
KT_PID=
KT_MAP=
TGT=klp_test_target

cleanup() {
	[ -n "$KT_PID" ] && kill "$KT_PID" 2>/dev/null
	[ -e "$T/stop" ] || touch "$T/stop"
}
trap cleanup EXIT

# --- klptop --json in the background ---------------------------------------

kt_lines() {
	wc -l < "$KT_JSON"
}

kt_line() {
	sed -n "$1p" "$KT_JSON"
}

# kt_ts LINE: the end of a JSON object's interval, in microseconds
kt_ts() {
	local ts=${1#*\"timestamp\":}
	ts=${ts%%,*}
	echo "${ts/./}"
}

# kt_after: the first JSON object of an interval that ended after now.
# Events and counters are taken in at the end of each interval, so that
# object shows everything done before this call.
kt_after() {
	local t0 i tries line
	t0=$(date +%s%6N)
	i=$(kt_lines)
	[ "$i" -ge 1 ] || i=1
	for ((tries = 0; tries < 200; tries++)); do
		while [ "$i" -le "$(kt_lines)" ]; do
			line=$(kt_line "$i")
			if [ "$(kt_ts "$line")" -gt "$t0" ]; then
				echo "$line"
				return 0
			fi
			i=$((i + 1))
		done
		kill -0 "$KT_PID" 2>/dev/null || return 1
		sleep 0.2
	done
	return 1
}

# kt_stack LINE FUNC: "winner|stack,...|id,..." of FUNC in a JSON object
kt_stack() {
	jq -r --arg f "$2" '.rows[] | select(.function == $f) |
		"\(.winner // "-")|\(.stack | join(","))|\(.ids | map(tostring) | join(","))"' <<< "$1"
}

# --- the model ----------------------------------------------------------------

# stack_of "3 1": the expected kt_stack of klp_target_FN for patches 3 over 1
stack_of() {	# stack_of FN NUMS...
	local fn=$1 names="" ids="" n
	shift
	for n in "$@"; do
		names+="${names:+,}klp_test_p$n"
		ids+="${ids:+,}$(func_attr klp_test_p$n $TGT klp_target_$fn id)"
	done
	if [ $# = 0 ]; then echo "-||"; else echo "klp_test_p$1|$names|$ids"; fi
}

# after WHAT NUMS...: a transition just happened; sysfs and klptop's first
# interval after it show the stack NUMS (winner first) on both functions
after() {
	local what=$1 line fn want got
	shift
	want=""
	got=""
	for fn in a b; do
		want+="$fn=$(stack_of $fn "$@") "
	done
	line=$(kt_after) || { not_ok "$what: klptop reports an interval after it"; return; }
	for fn in a b; do
		got+="$fn=$(kt_stack "$line" klp_target_$fn) "
	done
	assert_eq "$what: klptop's first interval after it shows the new stack" "$want" "$got"
}

addr_of() {	# addr_of FN: old_addr of klp_target_FN as in the map key
	map_addr "$(func_attr klp_test_p1 $TGT klp_target_$1 old_addr)"
}

# count WHAT WIN NA NB: NA calls of klp_target_a and NB of klp_target_b
# with patch WIN winning both (0: none, the originals run).  Exactly NA
# and NB land on WIN's pairs, every other pair stays, and klptop reports
# the map's totals per id.
count() {
	local what=$1 win=$2 na=$3 nb=$4
	local va vb ea eb want got line
	ea=$(entered a)
	eb=$(entered b)
	bpf_counts > "$T/before"
	va=$(target_call a "$na")
	vb=$(target_call b "$nb")
	bpf_counts > "$T/after"
	if [ "$win" = 0 ]; then
		want="100 200"
	else
		want="$((win * 1000 + 1)) $((win * 1000 + 2))"
	fi
	assert_eq "$what: the calls return the winner's values" "$want" "$va $vb"

	got=$(awk 'FILENAME == ARGV[1] { old[$1 " " $2] = $3; next }
		   { d = $3 - old[$1 " " $2]; if (d) print $1, $2, d }' \
		  "$T/before" "$T/after" | sort)
	# (every count shows: p1..p3 stay registered whatever is enabled)
	[ -s "$T/before" ] && [ -s "$T/after" ] || got="no BPF counts read"
	want=""
	if [ "$win" != 0 ]; then
		want=$(printf '%s %s %s\n%s %s %s\n' \
			"$(addr_of a)" "$(func_attr klp_test_p$win $TGT klp_target_a id)" "$na" \
			"$(addr_of b)" "$(func_attr klp_test_p$win $TGT klp_target_b id)" "$nb" | sort)
	fi
	assert_eq "$what: BPF counters grew by exactly $na/$nb on the winner's pairs, 0 on every other" \
		"$want" "$got"
	if [ "$win" = 0 ]; then want="$na $nb"; else want="0 0"; fi
	assert_eq "$what: original bodies entered" "$want" \
		"$(count_diff "entries of klp_target_a" "$(entered a)" "$ea") $(count_diff "entries of klp_target_b" "$(entered b)" "$eb")"

	line=$(kt_after) || { not_ok "$what: klptop reports an interval after the calls"; return; }
	want=$(awk '{ s[$2] += $3 } END { for (i in s) if (s[i]) print i, s[i] }' "$T/after" | sort -n)
	got=$(jq -r '.rows[] | select(.object == "klp_test_target") | .funcs[] |
		select(.hits_total > 0) | "\(.id) \(.hits_total)"' <<< "$line" | sort -n)
	assert_eq "$what: klptop's hits_total per id equal the map's" "$want" "$got"
}

# --- errors before anything is loaded -------------------------------------

out=$("$KLP_BIN/klptop" --once 2>&1)
rc=$?
diag "$out"
assert_eq "no core: klptop exits 1 naming $KLP_SYSFS" \
	"1 1" "$rc $(grep -c "klp core is not loaded ($KLP_SYSFS missing)" <<< "$out")"
out=$("$KLP_BIN/klptop" -s bogus 2>&1)
rc=$?
assert_eq "bad sort key: usage error" "64 1" "$rc $(grep -c 'invalid sort: bogus' <<< "$out")"

klp_insmod klp || bail "core loads"
klp_insmod $TGT || bail "target loads"

# (setpriv is util-linux's, on every Debian system)
out=$(setpriv --reuid=65534 --regid=65534 --clear-groups \
	"$KLP_BIN/klptop" --once 2>&1)
rc=$?
diag "$(tail -n 1 <<< "$out")"
assert_eq "unprivileged: klptop exits 1 asking for root or CAP_BPF/CAP_PERFMON" \
	"1 1" "$rc $(grep -c 'needs root, or CAP_BPF and CAP_PERFMON' <<< "$out")"

klptop_attach "$KT_JSON" || bail "klptop --json starts, its hits map is found (stderr: $(cat "$KT_JSON.err"))"
ok "klptop attached, hits map id $KT_MAP"
assert_eq "no patch yet: klptop shows no rows" 0 "$(kt_line 1 | jq '.rows | length')"

# --- single patch, stacked, top disabled -----------------------------------

klp_insmod klp_test_p1 || bail "p1 loads"
after "p1 loaded" 1
count "p1 alone" 1 5000 3000

klp_insmod klp_test_p2 || bail "p2 loads"
after "p2 loaded on p1" 2 1
count "p2 on p1" 2 5000 3000

set_enabled klp_test_p2 0 || not_ok "disable p2"
after "p2 disabled" 1
count "p2 disabled, p1 again" 1 5000 3000

# --- an enable that fails and rolls back -----------------------------------

# The builtin livepatch takes klp_target_c; a patch of klp_target_a and _c
# then fails on c before anything of it is published (nothing pushed on
# a), and unregisters.
BUILTIN=/sys/kernel/livepatch/klp_test_builtin
builtin_settled() {	# the builtin patch is out of transition or gone
	[ ! -e $BUILTIN ] || [ "$(cat $BUILTIN/transition 2>/dev/null)" = 0 ]
}
wait_builtin() {
	wait_until 10 builtin_settled
}
if klp_insmod klp_test_builtin func=klp_target_c && wait_builtin; then
	check "a patch on the builtin's klp_target_c is refused" \
		eval '! klp_insmod klp_test_probe objname=$TGT funcs=klp_target_a,klp_target_c'
	after "refused patch left nothing" 1
	count "after the refused patch" 1 5000 3000
	echo 0 > $BUILTIN/enabled
	wait_builtin
	wait_until 5 rmmod klp_test_builtin 2>/dev/null
	check "builtin patch removed again" test ! -e $BUILTIN
else
	not_ok "builtin patch on klp_target_c loads"
fi

# --- three stacked, disabled in the middle, on top, at the bottom ------------

klp_insmod klp_test_p3 || bail "p3 loads"
after "p3 loaded on p1" 3 1
set_enabled klp_test_p2 1 || not_ok "enable p2"
after "p2 enabled on p3, p1" 2 3 1
count "three stacked" 2 5000 3000

line=$("$KLP_BIN/klptop" --json --once 2> "$T/once.err")
assert_eq "a second klptop --once reads the same stack from sysfs" \
	"$(stack_of a 2 3 1)" "$(kt_stack "$line" klp_target_a)"

# klptop on a terminal, its real loop (BPF, ppoll, SIGWINCH, keys), on a
# pseudo-terminal with host/23's terminal emulator: the screen fits a
# 24x100 terminal, and an 8x40 one once resized; '/' filters; q quits.
# Each screen is looked at once it shows what it waits for, not after a
# quiet while: a guest slowed by its neighbours answers late.
cat > "$T/pty.steps" <<'EOF'
deadline 20
wait klp_target_a
check
resize 8x40
check
screen
keys /zz\r
wait filter: zz
settle
screen
keys q
EOF
out=$(timeout 120 python3 "$KLP_TOP/selftests/host/klptop_pty.py" 24x100 "$T/pty.steps" \
	-- "$KLP_BIN/klptop" -s name 1 2>&1)
assert_eq "klptop on a terminal: fits 24x100, then 8x40 (SIGWINCH); q: exit 0; nothing cleared" \
	"fits fits exit 0 clears 0" "$(grep -E '^(fits|wrapped|scrolled|exit|clears)' <<< "$out" | paste -sd' ')"
assert_eq "... at 8x40 the status line says the rows shown; /zz: none, said" \
	"rows 1-N of N  h: help|rows 0-0 of 0  filter: zz  h: help" \
	"$(awk '/^--- screen$/ { getline; getline; printf "%s%s", sep, $0; sep = "|" }' <<< "$out" |
	   sed -E 's/rows 1-[1-9][0-9]* of [1-9][0-9]*/rows 1-N of N/')"

set_enabled klp_test_p3 0 || not_ok "disable p3"
after "p3 disabled in the middle" 2 1
count "p3 gone from the middle" 2 5000 3000
set_enabled klp_test_p2 0 || not_ok "disable p2"
after "p2 disabled on top" 1
set_enabled klp_test_p1 0 || not_ok "disable p1"
after "p1 disabled, nothing left" 
count "nothing enabled" 0 5000 3000

set_enabled klp_test_p3 1 || not_ok "enable p3"
set_enabled klp_test_p1 1 || not_ok "enable p1"
after "p3 then p1 enabled: the last enabled wins" 1 3
count "p1 on p3" 1 5000 3000

# --- patches waiting for their module ---------------------------------------

rmmod $TGT || bail "target unloads"
after "target unloaded: every stack empty"
assert_eq "target unloaded: no func patched" "0 0 0" \
	"$(func_attr klp_test_p1 $TGT klp_target_a patched) $(func_attr klp_test_p3 $TGT klp_target_a patched) $(func_attr klp_test_p1 $TGT klp_target_a stack_depth)"
set_enabled klp_test_p2 1 || not_ok "enable p2 without its module"
klp_insmod $TGT || bail "target loads again"
after "target loaded: applied in enable order (p3, p1, p2), the last enabled wins" 2 1 3
count "after the module came back" 2 5000 3000

# --- a switch in the middle of a call stream --------------------------------

set_enabled klp_test_p3 0 || not_ok "disable p3"
set_enabled klp_test_p2 0 || not_ok "disable p2"
after "back to p1 alone" 1

progress() {	# call loops the stream has made so far
	local n
	n=$(cat "$T/progress" 2>/dev/null)
	echo "${n:-0}"
}

# wait_progress N: until the stream has made N call loops (at most ~60 s)
wait_progress() {
	local n=$1
	wait_until 60 eval '[ "$(progress)" -ge "$n" ]'
}

ea=$(entered a)
bpf_counts > "$T/before"
rm -f "$T/stop" "$T/progress" "$T/chunks"
(
	n=0
	while [ ! -e "$T/stop" ]; do
		echo "a 2000" > "$KLP_TARGET/call" || break
		n=$((n + 1))
		echo "$n" > "$T/progress"
	done
	echo "$n" > "$T/chunks"
) &
stream=$!
wait_progress 3 || not_ok "stream runs"
set_enabled klp_test_p2 1 || not_ok "enable p2 during the stream"
wait_progress $(($(progress) + 3)) || not_ok "stream goes on"
touch "$T/stop"
wait "$stream"
chunks=$(cat "$T/chunks")
calls=$([[ $chunks =~ ^[0-9]+$ ]] && echo $((chunks * 2000)))
bpf_counts > "$T/after"
delta() {	# delta PATCH: growth of PATCH's klp_target_a pair
	local key
	key="$(addr_of a) $(func_attr "$1" $TGT klp_target_a id)"
	awk -v k="$key" 'FILENAME == ARGV[1] { if ($1 " " $2 == k) o = $3; next }
			 $1 " " $2 == k { print $3 - o; exit }' "$T/before" "$T/after"
}
h1=$(delta klp_test_p1)
h2=$(delta klp_test_p2)
diag "stream: $calls calls, p1 $h1, p2 $h2"
assert_same "stream: hits(p1) + hits(p2) == calls made" "$calls" \
	"$(if [[ $h1 =~ ^[0-9]+$ && $h2 =~ ^[0-9]+$ ]]; then echo $((h1 + h2)); else echo "hits '$h1' + '$h2'"; fi)"
check "stream: both patches got calls (the switch came mid-stream)" [ "${h1:-0}" -gt 0 -a "${h2:-0}" -gt 0 ]
assert_same "stream: the original klp_target_a never ran" "$ea" "$(entered a)"
after "p2 enabled during the stream" 2 1
count "after the stream" 2 5000 3000

# klptop only watches: perf still sees every event beside it (a tracepoint
# program returning 0 would drop the event for perf).
check "perf stat starts beside klptop" perf_count_start "$T/perf.csv"
target_call a 4000 > /dev/null
perf_count_stop "$T/perf.csv"
assert_eq "perf stat beside klptop counts every redirection" 4000 "$PERF_COUNT"

# --- the transition log and the summary ---------------------------------------

# --- a module coming while a patch is enabled ---------------------------------
# The target's init sleeps: the core applies p1 and p2 to it (cause
# module_coming) while p3 is enabled from sysfs in the middle; klptop
# applies the two streams of events in the core's order.

set_enabled klp_test_p2 0 || not_ok "disable p2"
rmmod $TGT || bail "target unloads"
after "target gone: every stack empty"
from=$(($(kt_lines) + 1))
check "target module in its init (COMING)" target_load_slow
check "p3 enabled while the target is in its init" set_enabled klp_test_p3 1
check "the target's init completes" wait $TARGET_PID
after "module coming and an enable interleaved" 3 1
count "after the interleave" 3 5000 3000
assert_eq "the interleave logged in the core's order" \
	"patch klp_test_p1 applying to module klp_test_target: klp_target_a now -> klp_test_p1 (depth 1)
patch klp_test_p3 enabling: klp_target_a now -> klp_test_p3 (depth 2)" \
	"$(tail -n +$from "$KT_JSON" | jq -r '.transitions[].text' | grep -E '^patch klp_test_p[13] (applying|enabling).*: klp_target_a now')"

head -n "$(kt_lines)" "$KT_JSON" | jq -r '.transitions[].text' > "$T/transitions"
for t in \
	"patch klp_test_p1 registered" \
	"patch klp_test_p1 enabling: klp_target_a now -> klp_test_p1 (depth 1)" \
	"patch klp_test_p1 enabled" \
	"patch klp_test_p2 enabling: klp_target_a now -> klp_test_p2 (depth 2)" \
	"patch klp_test_p2 disabling: klp_target_b now -> klp_test_p1 (depth 1)" \
	"patch klp_test_p2 disabled" \
	"patch klp_test_p3 disabling: klp_target_a now -> klp_test_p2 (depth 2)" \
	"patch klp_test_p1 disabling: klp_target_a now -> original (depth 0)" \
	"patch klp_test_p1 reverting, module klp_test_target going: klp_target_a now -> klp_test_p3 (depth 1)" \
	"patch klp_test_p1 reverted, module klp_test_target going" \
	"patch klp_test_p2 deferred: module klp_test_target not loaded" \
	"patch klp_test_p3 applying to module klp_test_target: klp_target_a now -> klp_test_p3 (depth 1)" \
	"patch klp_test_p2 applying to module klp_test_target: klp_target_a now -> klp_test_p2 (depth 3)" \
	"patch klp_test_p3 applied to module klp_test_target" \
	"patch klp_test_probe failed on klp_test_target:klp_target_c: Device or resource busy (-16)" \
	"patch klp_test_probe enable failed: Device or resource busy (-16)" \
	"patch klp_test_probe unregistered"; do
	check "transition logged: $t" grep -qxF "$t" "$T/transitions"
done
# (the builtin livepatch's, seq 0, number nothing: klp_test_builtin above)
seqs=$(head -n "$(kt_lines)" "$KT_JSON" |
	jq -r '.transitions[] | select(.seq != 0) | "\(.seq) \(.event) \(.text)"')
assert_eq "every klp transition carries the core's seq, strictly increasing (at least 20)" "" \
	"$(awk '$1 <= p { print "after " p ": " $0 } { p = $1; n++ } END { if (n < 20) print n " only" }' <<< "$seqs")"
# a failed enable publishes nothing: no push of it, so nothing to roll back
assert_eq "the refused patch logged no push and no rollback" 0 \
	"$(grep -cE '^patch klp_test_probe (enabling|rolled back): ' "$T/transitions")"
assert_eq "pushes and pops name their cause, every cause seen" \
	"disable enable module_coming module_going" \
	"$(head -n "$(kt_lines)" "$KT_JSON" |
		jq -r '.transitions[] | select(.event == "push" or .event == "pop") | .cause' |
		sort -u | paste -sd ' ')"
line=$(kt_after)
assert_eq "summary: 3 patches, 2 enabled, 1 disabled, 2 functions patched" "3 2 1 2" \
	"$(jq -r '.summary | "\(.patches) \(.enabled) \(.disabled) \(.functions)"' <<< "$line")"
assert_eq "nothing lost" "0 0" "$(jq -r '.summary | "\(.lost_hits) \(.lost_events)"' <<< "$line")"

# --- events lost: klptop reads the state again -----------------------------
# Stopped, klptop drains nothing: 200 disable/enable rounds of p3 (6 events
# each) overflow its ring buffer.  Resumed, it counts the lost events and
# reads the core's state file instead of trusting what it has.
kill -STOP "$KT_PID"
for ((i = 0; i < 200; i++)); do
	set_enabled klp_test_p3 0 && set_enabled klp_test_p3 1 || { not_ok "p3 round $i"; break; }
done
set_enabled klp_test_p1 0 && set_enabled klp_test_p1 1 || not_ok "p1 re-enabled"
kill -CONT "$KT_PID"
after "events lost, the state read again: p1 re-enabled wins" 1 3
count "after the lost events" 1 5000 3000
line=$(kt_after)
check "klptop counts the lost events" [ "$(jq -r '.summary.lost_events' <<< "$line")" -gt 0 ]

kill -TERM "$KT_PID"
wait "$KT_PID"
rc=$?
KT_PID=
assert_eq "SIGTERM ends klptop cleanly" 0 "$rc"
assert_eq "klptop wrote nothing to stderr" "" "$(cat "$KT_JSON.err" 2>&1)"
assert_eq "klptop --json 1 2 prints two objects and exits" 2 \
	"$("$KLP_BIN/klptop" --json 1 2 | jq -c .summary | wc -l)"

ktap_finish
