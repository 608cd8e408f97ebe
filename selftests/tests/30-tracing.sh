#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# klp-cost: 230
# klp-accel: tcg,thread=single
# klp-min-results: 51
# The klp:* tracepoints through perf, bpftrace and klp-trace, each run as
# the one-liner doc/tracing.md shows (extracted from its "Tracing klp with perf
# and bpftrace" section, markers <!-- oneliner:NAME -->):
#  - one scripted sequence of loads, stacking, disables, enables and two
#    failing enables, observed at once by perf record, bpftrace and two
#    klp-trace; each must report every transition, in order, with the right
#    patch, func, depth and winner;
#  - N calls from two tasks pinned to CPU 0 and CPU 1, counted exactly by
#    perf stat (in total and per CPU) and bpftrace (by id, by function).
# Single-threaded TCG: perf and bpftrace attaching rewrite kernel text
# (jump labels) while both vCPUs run it, and multi-threaded TCG then
# leaves a stale int3 behind (an "Oops: int3" in __schedule on 6.12 in
# CI; ENVIRONMENT.md); the two pinned callers still run on two vCPUs.
# perf record and perf script walk /lib/modules/$(uname -r) for .ko files;
# the guest's is Debian's whole tree over 9p (a minute under TCG) and holds
# none of our modules, so they run in a mount namespace where it is empty.
. "$(dirname "$0")/../lib.sh"
ktap_start "tracing: perf, bpftrace and klp-trace on the klp:* events"

N=20000			# calls in the counting phase, N/2 per CPU
KT=$KLP_BIN/klp-trace
tmp=$(mktemp -d /tmp/klp-tracing.XXXXXX)
declare -A pgid

# oneliner NAME: the command in doc/tracing.md's ```sh block after the marker
oneliner() {
	awk -v m="<!-- oneliner:$1 -->" '
		$0 == m { on = 1; next }
		on == 1 && /^```sh$/ { on = 2; next }
		on == 2 && /^```$/ { exit }
		on == 2 { print }
	' "$KLP_TOP/doc/tracing.md"
}

# start NAME DIR [nomods]: run one-liner NAME in DIR, in a process group of
# its own (so a Ctrl-C reaches whatever it runs); output in $tmp/NAME.out.
start() {
	local cmd mods
	mods=/lib/modules/$(uname -r)/kernel
	cmd=$(oneliner "$1")
	if [ -z "$cmd" ] || [ "$(printf '%s\n' "$cmd" | wc -l)" != 1 ]; then
		not_ok "doc/tracing.md has the one-line command $1"
		return 1
	fi
	diag "$1: $cmd"
	if [ "${3:-}" = nomods ]; then
		(cd "$2" && exec unshare -m sh -c 'mount -t tmpfs none "$1" && exec setsid bash -c "$2"' \
			sh "$mods" "$cmd") > "$tmp/$1.out" 2>&1 < /dev/null &
	else
		(cd "$2" && exec setsid bash -c "$cmd") > "$tmp/$1.out" 2>&1 < /dev/null &
	fi
	pgid[$1]=$!
}

running() { kill -0 "${pgid[$1]}" 2> /dev/null; }

# perf_fds NAME: perf_event fds held by NAME's processes
perf_fds() {
	perf_event_fds $(pgrep -g "${pgid[$1]}")
}

# bpf_tps NAME: tracepoints NAME's BPF programs are attached to
bpf_tps() {
	local p n=0
	for p in $(pgrep -g "${pgid[$1]}"); do
		n=$((n + $(bpftool perf list 2> /dev/null | grep -c "^pid $p .* tracepoint ")))
	done
	echo $n
}

# ready NAME perf|bpf N: wait until NAME holds N perf events, and no more
# come for a second (opened; perf enables them all right after), or until
# its BPF programs are attached to N tracepoints
ready() {
	local n last=-1
	for _ in $(seq 480); do
		running "$1" || break
		n=$("${2}_count" "$1")
		if [ "$n" -ge "$3" ]; then
			[ "$2" = bpf ] || [ "$n" = "$last" ] && return 0
			last=$n
			sleep 1
			continue
		fi
		sleep 0.25
	done
	diag "$1 not ready: $n of $3 ($2); output:"
	sed 's/^/#   /' "$tmp/$1.out"
	return 1
}
perf_count() { perf_fds "$1"; }
bpf_count() { bpf_tps "$1"; }

# ready_kt NAME: klp-trace says "Tracing" once its events are enabled
ready_kt() {
	for _ in $(seq 200); do
		grep -q '^Tracing ' "$tmp/$1.out" && return 0
		running "$1" || break
		sleep 0.1
	done
	diag "$1 not ready; output:"
	sed 's/^/#   /' "$tmp/$1.out"
	return 1
}

# stop NAME [SIG]: Ctrl-C (or SIG) to NAME's process group; its exit status
stop() {
	local sig
	for sig in "${2:-INT}" KILL; do
		kill -"$sig" -- "-${pgid[$1]}" 2> /dev/null
		for _ in $(seq 120); do
			running "$1" || break 2
			sleep 0.25
		done
		diag "$1 did not stop on SIG$sig in 30 s:"
		ps -o pid,stat,wchan:24,etime,args -g "${pgid[$1]}" | sed 's/^/#   /'
		sed 's/^/#   out: /' "$tmp/$1.out"
	done
	wait "${pgid[$1]}"
}

# fails_with TEXT CMD...: CMD fails and says TEXT
fails_with() {
	local out rc
	out=$("${@:2}" 2>&1)
	rc=$?
	[ $rc != 0 ] && [[ $out == *"$1"* ]] && return 0
	diag "exit $rc: $out"
	return 1
}

# no_instances: no klp-trace instance is left in tracefs
no_instances() { ! compgen -G "$TRACEFS/instances/klp-trace.*" > /dev/null; }

# show FILE: a file's lines as TAP diagnostics (on a failure)
show() { sed 's/^/#   /' "$1"; }

# assert_file_eq NAME EXPECTED-FILE ACTUAL-FILE
assert_file_eq() {
	if cmp -s "$2" "$3"; then
		ok "$1"
	else
		not_ok "$1"
		diff -u "$2" "$3" | sed 's/^/#   /'
	fi
}

# A hung guest shows nothing before boot.sh kills it: after 540 s, say
# what every task waits on.
(
	sleep 540
	diag "watchdog: still running after 540 s"
	ps -eo pid,stat,wchan:32,etime,args | grep -v ' \[' | sed 's/^/#   /'
	for p in /proc/[0-9]*; do
		[ "$(awk '{ print $3 }' "$p/stat" 2> /dev/null)" = D ] || continue
		diag "$p ($(cat "$p/comm")) in D state:"
		sed 's/^/#     /' "$p/stack"
	done
	dmesg | tail -n 40 | sed 's/^/#   /'
) &
watchdog=$!

# --- klp-trace's errors, before the core is loaded ---------------------
check "klp-trace without the core: fails naming the core" \
	fails_with "is the klp core loaded?" "$KT"
# the fault-injection build: a failing enable is one of the traced events
# (it publishes nothing: only klp_enable_failed, no push, no rollback)
klp_events_load || bail "klp_events (the tracepoints) loads"
insmod "$KLP_TOP/build/core-fault/klp.ko" || bail "core (fault build) loads"

# --- the observers ---------------------------------------------------------
nev=$(ls -d "$TRACEFS"/events/klp/*/ | wc -l)
ncpu=$(nproc)
# klp-trace must leave the top-level event settings alone: set one first
echo 1 > "$TRACEFS/events/klp/klp_object/enable"
grep -H . "$TRACEFS"/events/klp/*/enable > "$tmp/enable.before"

# All at once: they take a minute to start under TCG, the checks below
# run meanwhile.
start perf-record "$tmp" nomods
start bpftrace-transitions "$tmp"
start bpftrace-by-id "$tmp"
start bpftrace-by-func "$tmp"
start klp-trace "$KLP_TOP"
start klp-trace-json "$KLP_TOP"

check "klp-trace as non-root: fails asking for root" \
	fails_with "must be run as root" setpriv --reuid=65534 --regid=65534 --clear-groups "$KT"
check "klp-trace -e with an unknown event: fails naming it" \
	fails_with "no event klp:klp_nosuch" "$KT" -e klp_nosuch
check "klp-trace -c 0: a usage error" fails_with "invalid count: 0" "$KT" -c 0
quiet() { "$@" > /dev/null 2>&1; }
check "klp-trace -t 1 ends by itself, status 0" quiet timeout $((60 * ${KLP_TIMEOUT_SCALE:-1})) "$KT" -t 1 --json

# klp-trace whose terminal goes away: SIGHUP ends it as Ctrl-C does, its
# events disabled and its instance removed (killed by it, it left them)
# hup_ready OUT: klp-trace said "Tracing" in OUT (its events are enabled)
hup_ready() { grep -q '^Tracing ' "$1"; }
"$KT" --no-redirect > "$tmp/hup.out" 2>&1 < /dev/null &
hup=$!
wait_until 120 hup_ready "$tmp/hup.out" || { diag "klp-trace (SIGHUP) not ready:"; show "$tmp/hup.out"; }
hup_inst=$(compgen -G "$TRACEFS/instances/klp-trace.$hup.*")	# <pid>.<start>
check "klp-trace, SIGHUP: tracing in its instance" test -n "$hup_inst" -a -d "$hup_inst"
kill -HUP "$hup"
wait_until 60 eval "! kill -0 $hup 2> /dev/null" || { diag "klp-trace still runs 60 s after SIGHUP"; kill -KILL "$hup"; }
check "klp-trace exits 0 on SIGHUP" wait "$hup"
if [ -n "$hup_inst" ] && [ -e "$hup_inst" ]; then
	not_ok "klp-trace removed its instance on SIGHUP"
	rmdir "$hup_inst"	# for the checks below
else
	ok "klp-trace removed its instance on SIGHUP"
fi
# the real thing: klp-trace on a terminal (script's pty, klp-trace the
# session leader there) that hangs up
script -qfec "exec $KT --no-redirect" /dev/null > "$tmp/pty.out" 2>&1 < /dev/null &
pty=$!
wait_until 120 hup_ready "$tmp/pty.out" || { diag "klp-trace on a pty not ready:"; show "$tmp/pty.out"; }
kpid=$(pgrep -P "$pty" -x klp-trace)
inst=
[ -n "$kpid" ] && inst=$(compgen -G "$TRACEFS/instances/klp-trace.$kpid.*")
check "klp-trace on a terminal: tracing in an instance of its own" test -n "$inst" -a -d "$inst"
kill -KILL "$pty"		# the pty's master closes: its session gets SIGHUP
wait "$pty" 2> /dev/null
gone() { [ -n "$inst" ] && [ ! -e "$inst" ]; }
if wait_until 30 gone; then
	ok "klp-trace removed its instance when its terminal hung up"
else
	not_ok "klp-trace removed its instance when its terminal hung up"
	ps -eo pid,stat,args | grep '[k]lp-trace' | sed 's/^/#   /'
	[ -n "$inst" ] && kill -KILL "$kpid" && rmdir "$inst"
fi

check "perf record is recording" ready perf-record perf $((nev * ncpu))
check "bpftrace (transitions) is attached" ready bpftrace-transitions bpf 4
check "bpftrace (by id) is attached" ready bpftrace-by-id bpf 1
check "bpftrace (by function) is attached" ready bpftrace-by-func bpf 1
check "klp-trace is tracing" ready_kt klp-trace
check "klp-trace --json is tracing" ready_kt klp-trace-json
assert_eq "klp-trace created one instance each" 2 \
	"$(compgen -G "$TRACEFS/instances/klp-trace.*" | wc -l)"
sleep 1		# the last ones attached are enabled by now
diag "t=${SECONDS}s: all observers ready"

# --- the sequence ----------------------------------------------------------
check "p1 loads while its target is absent" klp_insmod klp_test_p1
check "target loads: p1 applied" klp_insmod klp_test_target
assert_eq "b redirected to p1" 1002 "$(target b)"
check "p2 loads, stacked on p1" klp_insmod klp_test_p2
assert_eq "b redirected to p2" 2002 "$(target b)"
check "p2 disabled" set_enabled klp_test_p2 0
check "p1 disabled" set_enabled klp_test_p1 0
check "p1 enabled again" set_enabled klp_test_p1 1
echo "enable_func 2" > /sys/module/klp/parameters/fault_inject
check "p2 enable fails on its second func (fault injection)" eval '! set_enabled klp_test_p2 1'
check "p1 enable fails: already enabled" eval '! set_enabled klp_test_p1 1'
seq_end=$(cat /sys/kernel/debug/klp/seq)
assert_eq "b redirected to p1 again" 1002 "$(target b)"

a1=$(func_attr klp_test_p1 klp_test_target klp_target_a id)
b1=$(func_attr klp_test_p1 klp_test_target klp_target_b id)
a2=$(func_attr klp_test_p2 klp_test_target klp_target_a id)
b2=$(func_attr klp_test_p2 klp_test_target klp_target_b id)
diag "ids: p1 a=$a1 b=$b1, p2 a=$a2 b=$b2"

P1=klp_test_p1 P2=klp_test_p2 T=klp_test_target
A=$T:klp_target_a B=$T:klp_target_b
cat > "$tmp/expected" <<EOF
klp_patch_register $P1 ret=0
klp_object $P1 $T deferred cause=enable
klp_patch_enable $P1 ret=0
klp_func_push $P1 $A id=$a1 depth=1 winner=$P1 winner_id=$a1 cause=module_coming
klp_func_push $P1 $B id=$b1 depth=1 winner=$P1 winner_id=$b1 cause=module_coming
klp_object $P1 $T applied cause=module_coming
klp_redirect klp_target_b -> klp_test_new_b id=$b1
klp_patch_register $P2 ret=0
klp_func_push $P2 $A id=$a2 depth=2 winner=$P2 winner_id=$a2 cause=enable
klp_func_push $P2 $B id=$b2 depth=2 winner=$P2 winner_id=$b2 cause=enable
klp_patch_enable $P2 ret=0
klp_redirect klp_target_b -> klp_test_new_b id=$b2
klp_patch_disable $P2 ret=0
klp_func_pop $P2 $B id=$b2 depth=1 winner=$P1 winner_id=$b1 cause=disable
klp_func_pop $P2 $A id=$a2 depth=1 winner=$P1 winner_id=$a1 cause=disable
klp_patch_disable $P1 ret=0
klp_func_pop $P1 $B id=$b1 depth=0 winner= winner_id=0 cause=disable
klp_func_pop $P1 $A id=$a1 depth=0 winner= winner_id=0 cause=disable
klp_func_push $P1 $A id=$a1 depth=1 winner=$P1 winner_id=$a1 cause=enable
klp_func_push $P1 $B id=$b1 depth=1 winner=$P1 winner_id=$b1 cause=enable
klp_patch_enable $P1 ret=0
klp_enable_failed $P2 $B err=-5
klp_patch_enable $P2 ret=-5
klp_patch_enable $P1 ret=-22
klp_redirect klp_target_b -> klp_test_new_b id=$b1
EOF
grep -v '^klp_redirect' "$tmp/expected" > "$tmp/expected.transitions"

stop perf-record
check "klp-trace exits 0 on SIGINT" stop klp-trace INT
check "klp-trace --json exits 0 on SIGTERM" stop klp-trace-json TERM
stop bpftrace-transitions

# --- (b) perf record + perf script ---------------------------------------
start perf-script "$tmp" nomods && wait "${pgid[perf-script]}"
diag "t=${SECONDS}s: perf script done"
assert_eq "perf script: no FAILED TO PARSE" 0 "$(grep -c 'FAILED TO PARSE' "$tmp/perf-script.out")"
# "comm pid [cpu] ts: klp:EVENT: <TP_printk text>" -> the expected form
# each enable and disable of the sequence (5) is a transition: its start
# and its end (the sweeps between vary with what the tasks were doing)
assert_eq "perf script: 5 transitions started and completed, in pairs" \
	"$(printf 'start\ncomplete\n%.0s' 1 2 3 4 5)" \
	"$(sed -n 's/^.* klp:klp_transition: .* target=[01] \(start\|complete\) .*/\1/p' "$tmp/perf-script.out")"
sed -n 's/^.* klp:\(klp_[a-z_]*\): \(.*\)$/\1 \2/p' "$tmp/perf-script.out" | sed 's/ seq=[0-9]*//' | awk '
	$1 == "klp_transition" || $1 == "klp_task_blocked" { next }
	$1 ~ /^klp_patch_/ { sub(/^patch=/, "", $2); print $1, $2, $3; next }
	$1 ~ /^klp_func_/ { sub(/^patch=/, "", $3); print $1, $3, $2, $4, $5, $6, $7, $8; next }
	$1 == "klp_object" { sub(/^patch=/, "", $2); sub(/^object=/, "", $3); print $1, $2, $3, $4, $5; next }
	$1 == "klp_enable_failed" { sub(/^patch=/, "", $2); print $1, $2, $3, $4; next }
	$1 == "klp_redirect" { for (i = 2; i <= NF; i++) if ($i ~ /^id=/) print $1, $i; next }
	{ print }
' > "$tmp/perf.seq"
# perf resolves %ps of modules loaded after perf record started only now
# and then: compare klp_redirect by id
sed 's/^klp_redirect .* id=/klp_redirect id=/' "$tmp/expected" > "$tmp/expected.perf"
assert_file_eq "perf script shows every event of the sequence in order" \
	"$tmp/expected.perf" "$tmp/perf.seq"
grep ' klp:klp_redirect: ' "$tmp/perf-script.out" | sed 's/^ */#   /' 

# --- (d) klp-trace text and JSON -------------------------------------------
# "ts [cpu] comm-pid EVENT: k=v ..." -> the expected form
awk '
	{
		ev = ""
		delete kv
		for (i = 1; i <= NF; i++) {
			if (ev == "" && $i ~ /^klp_[a-z_]+:$/) { ev = substr($i, 1, length($i) - 1); continue }
			if (ev == "") continue
			k = $i; sub(/=.*/, "", k); v = $i; sub(/^[^=]*=/, "", v)
			if (v == "\"\"") v = ""
			kv[k] = v
		}
		if (ev ~ /^klp_patch_/) print ev, kv["patch"], "ret=" kv["ret"]
		else if (ev ~ /^klp_func_/) print ev, kv["patch"], kv["object"] ":" kv["func"], "id=" kv["id"], "depth=" kv["depth"], "winner=" kv["winner"], "winner_id=" kv["winner_id"], "cause=" kv["cause"]
		else if (ev == "klp_object") print ev, kv["patch"], kv["object"], kv["action"], "cause=" kv["cause"]
		else if (ev == "klp_enable_failed") print ev, kv["patch"], kv["object"] ":" kv["func"], "err=" kv["err"]
		else if (ev == "klp_redirect") print ev, kv["old_addr"], "->", kv["new_func"], "id=" kv["id"]
	}' "$tmp/klp-trace.out" > "$tmp/kt.seq"
assert_file_eq "klp-trace --no-redirect shows every transition in order" \
	"$tmp/expected.transitions" "$tmp/kt.seq"
grep -v '^Tracing ' "$tmp/klp-trace-json.out" > "$tmp/kt.json"
json_ok() { jq -e . "$1" > /dev/null; }
check "klp-trace --json prints valid JSON lines" json_ok "$tmp/kt.json"
jq -r 'select(.event != "klp_transition" and .event != "klp_task_blocked") |
	if (.event | startswith("klp_patch_")) then "\(.event) \(.patch) ret=\(.ret)"
	elif (.event | startswith("klp_func_")) then
		"\(.event) \(.patch) \(.object):\(.func) id=\(.id) depth=\(.depth) winner=\(.winner) winner_id=\(.winner_id) cause=\(.cause_sym)"
	elif .event == "klp_object" then "\(.event) \(.patch) \(.object) \(.action_sym) cause=\(.cause_sym)"
	elif .event == "klp_enable_failed" then "\(.event) \(.patch) \(.object):\(.func) err=\(.err)"
	else "\(.event) \(.old_addr_sym) -> \(.new_func_sym) id=\(.id)" end' "$tmp/kt.json" > "$tmp/ktj.seq" 2> /dev/null
assert_file_eq "klp-trace --json shows every transition in order" \
	"$tmp/expected.transitions" "$tmp/ktj.seq"
# seq: one number per transition, none skipped, the last one in debugfs
jq -r 'select(.seq != null) | .seq' "$tmp/kt.json" > "$tmp/kt.seqnos"
assert_eq "klp-trace --json: seq counts up by one, event by event" "" \
	"$(awk 'NR > 1 && $1 != prev + 1 { print "after " prev ": " $1 } { prev = $1 }
		END { if (NR < 2) print NR " seqs only" }' "$tmp/kt.seqnos")"
assert_eq "klp-trace --json: one seq per state change (and per transition record), the last is debugfs klp/seq" \
	"$(wc -l < "$tmp/expected.transitions") $seq_end" \
	"$(jq -r 'select(.seq != null and .event != "klp_transition" and .event != "klp_task_blocked") | .seq' "$tmp/kt.json" | wc -l) $(tail -n1 "$tmp/kt.seqnos")"
assert_eq "klp-trace --json: old_addr symbolized, action numeric" "klp_target_a 0" \
	"$(jq -r 'select(.event == "klp_func_push") | .old_addr_sym' "$tmp/kt.json" | head -n1) $(jq -r 'select(.event == "klp_object") | .action' "$tmp/kt.json" | head -n1)"
grep -H . "$TRACEFS"/events/klp/*/enable > "$tmp/enable.after"
assert_file_eq "klp-trace left the top-level event enables as they were" \
	"$tmp/enable.before" "$tmp/enable.after"
check "klp-trace removed its instances" no_instances
echo 0 > "$TRACEFS/events/klp/klp_object/enable"

# --- bpftrace transitions ----------------------------------------------------
# "seq tracepoint:klp:EVENT patch ..." in the core's order, ids dropped
grep -E '^[0-9]+ tracepoint:klp:' "$tmp/bpftrace-transitions.out" | sort -n -k1,1 |
	cut -d' ' -f2- | sed 's/^tracepoint:klp://' > "$tmp/bt.seq"
grep -E '^klp_(patch_enable|patch_disable|func_push|func_pop) ' "$tmp/expected" |
	sed 's/ id=[0-9]*//; s/ winner_id=[0-9]*//; s/ cause=[a-z_]*//' > "$tmp/expected.bt"
assert_file_eq "bpftrace shows every enable, disable, push and pop in order" \
	"$tmp/expected.bt" "$tmp/bt.seq"

# --- (a), (c) N calls from two CPUs -------------------------------------------
start perf-stat "$tmp"
start perf-stat-per-cpu "$tmp"
start klp-trace-redirect "$KLP_TOP"
check "perf stat is counting" ready perf-stat perf "$ncpu"
check "perf stat -A is counting" ready perf-stat-per-cpu perf "$ncpu"
check "klp-trace -e klp_redirect is tracing" ready_kt klp-trace-redirect
diag "t=${SECONDS}s: counting"
entered_before=$(entered a)
taskset -c 0 sh -c "echo 'a $((N / 2))' > $KLP_TARGET/call" &
w0=$!
taskset -c 1 sh -c "echo 'a $((N / 2))' > $KLP_TARGET/call" &
w1=$!
check "$((N / 2)) calls on CPU 0" wait $w0
check "$((N / 2)) calls on CPU 1" wait $w1
assert_same "the original klp_target_a never ran" "$entered_before" "$(entered a)"
assert_eq "the last call went to p1" 1001 "$(cut -d' ' -f1 "$KLP_TARGET/call")"
stop perf-stat
stop perf-stat-per-cpu
stop bpftrace-by-id
stop bpftrace-by-func

assert_eq "perf stat counts exactly $N klp_redirect" "$N" \
	"$(awk '/klp:klp_redirect/ { gsub(",", "", $1); print $1 }' "$tmp/perf-stat.out")"
assert_eq "perf stat -A: $((N / 2)) on each CPU" "CPU0 $((N / 2)) CPU1 $((N / 2))" \
	"$(awk '/klp:klp_redirect/ { gsub(",", "", $2); print $1, $2 }' "$tmp/perf-stat-per-cpu.out" | paste -sd' ')"
assert_eq "bpftrace by id: $N for the winner's id $a1, and the sequence's calls of b" \
	"$(printf '@[%s]: %s\n' "$a1" "$N" "$b1" 2 "$b2" 1 | sort | paste -sd' ')" \
	"$(grep '^@\[' "$tmp/bpftrace-by-id.out" | sort | paste -sd' ')"
# named by the core, not by kallsyms: right on 6.12 too, where a module's
# address can still carry the name of freed init code
assert_eq "bpftrace by function: $N for klp_target_a, 2 + 1 for klp_target_b" \
	"@[klp_target_a, klp_test_p1]: $N @[klp_target_b, klp_test_p1]: 2 @[klp_target_b, klp_test_p2]: 1" \
	"$(grep '^@\[' "$tmp/bpftrace-by-func.out" | sort | paste -sd' ')"

# klp-trace -c 10 stopped by itself after 10 of those calls
wait_until 10 eval '! running klp-trace-redirect'
check "klp-trace -c 10 exits by itself, status 0" wait "${pgid[klp-trace-redirect]}"
grep -v '^Tracing ' "$tmp/klp-trace-redirect.out" > "$tmp/ktr.out"
assert_eq "klp-trace -c 10: 10 lines" 10 "$(wc -l < "$tmp/ktr.out")"
assert_eq "klp-trace -c 10: each klp_target_a -> p1's klp_test_new_a" \
	"klp_redirect: old_addr=klp_target_a new_func=klp_test_new_a id=$a1 func=klp_target_a patch=klp_test_p1" \
	"$(awk '{ $1 = $2 = $3 = ""; sub(/^ +/, ""); print }' "$tmp/ktr.out" | sort -u)"
check "klp-trace -c 10 removed its instance" no_instances

rm -rf "$tmp"
kill "$watchdog" 2> /dev/null
ktap_finish
