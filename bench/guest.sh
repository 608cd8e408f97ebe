#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench/guest.sh - the benchmarks, inside the guest (bench/run.sh boots it
# with selftests/guest/boot.sh).  Everything is measured side by side in
# this one boot; configurations are interleaved within every round and
# their order rotates from round to round, so that drift of the emulated
# CPU hits all of them alike.
#
# Usage: bench/guest.sh [full|quick|tools|transition|builtin] [notools]
#   notools: leave out the klptop and exporter sections (bench/run.sh
#   measures them in a boot of their own, tools mode, on multi-threaded TCG)
#   transition: only what the consistency model changed: the redirect
#   section's unpatched, builtin and ours, the transition section, and the
#   scale section at N = 1000 (bench/run.sh -T)
#   builtin: only the builtin livepatch as klptop and klp-exporter see it,
#   beside klp (bench/guest-builtin.sh, bench/run.sh -B)
#
# Output, one record a line (bench/run.sh parses it; only stdout comes back
# from the guest):
#   B|<section>|<metric>|<config>|<round>|<value>|<unit>   one sample
#   I|<key>|<value>                                        context
#   E|<message>                                            something failed
#   # ...                                                  progress
# A section, round or figure that cannot be measured says so in an E|
# record (never by a figure quietly missing), and a sample that could not
# be taken is -1: bench/report.awk fails the run on either.
#
# Sections:
#   redirect  per-call cost of klp_target_a, from the kernel loop of
#             klp_test_target ("a N" > call) and from userspace (pread()s
#             of bench_caller's file, each one call), for: unpatched,
#             builtin (the builtin livepatch), ours (klp, tracepoints off),
#             ours_klptop (klptop's BPF counters attached), ours_bpf0 (a
#             BPF program that does nothing, bench/src/emptyprog.bpf.c, on
#             the same raw tracepoint: what any program pays before its
#             first instruction), ours_perf (perf stat -e 'klp:*' -a
#             counting).  Measurements are single threaded on CPU 0, and a
#             tracer is attached only while the patch stays put: attach,
#             measure, detach, then switch.  ours_klptop and ours_bpf0
#             also give their program's own cost per run (bpf_ns_per_run,
#             bpf_run_cnt), from the kernel's BPF stats in one more kernel
#             loop after the timed ones.
#             Every switch of ours waits until its transition is over
#             (transition reads 0): these calls run outside a transition.
#   switch    one function: enable, stack a second patch on top, remove it,
#             disable; until the write (or insmod) returns, until this task
#             and a task spinning on CPU 1 see the new winner, and until the
#             transition completes (both cores: `transition` reads 0).
#   transition  per call during a transition, both cores: bench_tr patches
#             klp_target_a and klp_cm_hold() (klp_test_cm) together, and a
#             kthread asleep in klp_cm_hold() ("hold") keeps its enable, then
#             its disable, transition open while this task (switched) times
#             the calls as in redirect (enabling_<core>, disabling_<core>);
#             then the holder is released and the time until the transition
#             completes is taken (release_complete_ms).  Before that, a
#             task on CPU 1 looping inside bench_caller_hold() (which the
#             patch changes too) since before the switch stays unswitched
#             and times its calls, before the switch and during the
#             transition (unswitched_ns, unswitched_before_ns).  And the sweeps a
#             klp transition with no blocked task took, from the complete
#             event of klp:klp_transition (sweeps_at_complete).
#   scale     one patch of N functions (bench/gen-scale.sh): register,
#             enable, disable, for both cores, each until its transition
#             is over; per-function intervals from kprobes on
#             register_/unregister_ftrace_function and the time spent in
#             synchronize_rcu_tasks*().  At the largest N, an unrelated
#             insmod started 0.05 s into each disable, timed until it
#             returns (insmod_wait_ms).
#   klptop    klptop's own CPU time (schedstat, ns) per 1 s interval and memory
#             with the 1000 functions patched, busy and idle, screen and JSON.
#   exporter  klp-exporter's CPU time per scrape and memory, the same way
#             (bench/guest-exporter.sh).
set -u
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

top=${KLP_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$top" || exit 1
MOD=$top/build/bench/mod
BIN=$top/build/bench/bin
KLPTOP=$top/build/bin/klptop
KS=/sys/kernel/klp
KL=/sys/kernel/livepatch
CM=/sys/kernel/debug/klp_cm
TGT=/sys/kernel/debug/klp_target
CALLER=/sys/kernel/debug/klp_bench/a
TR=/sys/kernel/tracing
T=/tmp/klp-bench
mkdir -p "$T"
# shellcheck source=bench/guest-cpu.sh disable=SC1091
. "$top/bench/guest-cpu.sh"
# shellcheck source=bench/guest-exporter.sh disable=SC1091
. "$top/bench/guest-exporter.sh"
# shellcheck source=bench/guest-transition.sh disable=SC1091
. "$top/bench/guest-transition.sh"
# shellcheck source=bench/guest-builtin.sh disable=SC1091
. "$top/bench/guest-builtin.sh"

out() {	# out SECTION METRIC CONFIG ROUND VALUE UNIT
	echo "B|$1|$2|$3|$4|$5|$6"
}

info() {
	echo "I|$1|$2"
}

err() {
	echo "E|$*"
}

now_ns() {
	date +%s%N
}

# ns_to_ms NS: milliseconds; a negative NS (a sentinel: not measured)
# stays -1, never a rounded "-0.000" that would pass for a sample
ns_to_ms() {
	awk -v v="$1" 'BEGIN { if (v !~ /^[0-9]+(\.[0-9]*)?$/) print -1; else printf "%.3f", v / 1e6 }'
}

# switchlat output "write=.. same=.. other=.. trans=.." into variables
parse_sl() {
	local kv
	sl_write=-1 sl_same=-1 sl_other=-1 sl_trans=-1
	for kv in $1; do
		case $kv in
		write=*) sl_write=${kv#write=} ;;
		same=*) sl_same=${kv#same=} ;;
		other=*) sl_other=${kv#other=} ;;
		trans=*) sl_trans=${kv#trans=} ;;
		esac
	done
}

# rmmod_retry MOD: a disabled builtin patch is freed asynchronously
rmmod_retry() {
	local i
	for i in $(seq 200); do
		rmmod "$1" 2>/dev/null && return 0
		sleep 0.05
	done
	err "cannot rmmod $1"
	return 1
}

# bi_gone NAME: until the builtin patch NAME is disabled and freed
bi_gone() {
	local i
	for i in $(seq 6000); do
		[ -e "$KL/$1" ] || return 0
		sleep 0.1
	done
	err "builtin patch $1 still present"
	return 1
}

# bi_settled NAME: until the builtin patch's transition is over
bi_settled() {
	local i
	for i in $(seq 6000); do
		[ "$(cat "$KL/$1/transition" 2>/dev/null)" = 1 ] || return 0
		sleep 0.1
	done
	err "builtin patch $1 stuck in transition"
	return 1
}

bi_load() {	# bi_load MODULE
	insmod "$MOD/$1.ko" || { err "insmod $1"; return 1; }
	bi_settled "$1"
}

bi_unload() {	# bi_unload MODULE
	if [ -e "$KL/$1/enabled" ]; then
		echo 0 > "$KL/$1/enabled" || err "disable $1"
	fi
	bi_gone "$1" && rmmod_retry "$1"
}

# ours_settled PATCH: until klp's transition of PATCH is over
ours_settled() {
	local i
	for i in $(seq 6000); do
		[ "$(cat "$KS/$1/transition" 2>/dev/null)" = 1 ] || return 0
		sleep 0.01
	done
	err "klp patch $1 stuck in transition"
	return 1
}

ours_set() {	# ours_set PATCH 0|1: switched, and its transition over
	echo "$2" > "$KS/$1/enabled" || err "ours_set $1 $2"
	ours_settled "$1"
}

# measure CONFIG ROUND EXPECT: both loops, single threaded on CPU 0 (this
# script and its children are pinned there), the best of REPS runs of each
# (interference only ever adds time)
measure() {
	local v ns i best=
	for ((i = 0; i < REPS; i++)); do
		echo "a $NK" > "$TGT/call"
		read -r v ns < "$TGT/call"
		[ "$v" = "$3" ] || err "$1 round $2: kernel loop got $v, not $3"
		[ -z "$best" ] || [ "$ns" -lt "$best" ] && best=$ns
	done
	out "${MSEC:-redirect}" kernel_ns "$1" "$2" "$((best / NK)).$(printf %02d $((best * 100 / NK % 100)))" ns
	best=
	for ((i = 0; i < REPS; i++)); do
		# shellcheck disable=SC2046	# callloop's fields, split on purpose
		set -- "${@:1:3}" $("$BIN/callloop" "$CALLER" "$NU")
		[ "${5:-}" = "$3" ] || err "$1 round $2: pread loop got ${5:-}, not $3"
		ns=${4%.*}
		[ -z "$best" ] || [ "$ns" -lt "${best%.*}" ] && best=$4
	done
	out "${MSEC:-redirect}" user_ns "$1" "$2" "$best" ns
}

# perf stat runs this script again around the two loops
if [ "${1:-}" = inner-measure ]; then
	shift
	measure "$@"
	exit 0
fi

mode=${1:-full}
case $mode in
full)
	RR=7			# redirect rounds
	RS=5			# switch rounds
	# N:rounds, largest first; 3 at N = 1000 for a median and a range
	# of its klp/builtin ratios (the builtin's disable alone takes
	# about 136 s a round there)
	SCALE="1000:3 100:2 10:3 1:5"
	KT_N=1000 KT_SECS=10
	REPS=4			# a loop figure is the best of REPS runs
	KT_TARGET_S=0.02	# one kernel loop, unpatched, seconds
	UT_TARGET_S=0.03	# one userspace loop, unpatched, seconds
	RT=5			# transition rounds
	;;
quick)
	RR=2 RS=2 SCALE="100:1 10:1 1:2" KT_N=100 KT_SECS=3
	REPS=2 KT_TARGET_S=0.02 UT_TARGET_S=0.02 RT=2
	;;
tools)			# only the tools' cost, on the 1000-function patch
	RR=0 RS=0 SCALE="1000:1" KT_N=1000 KT_SECS=10
	REPS=1 KT_TARGET_S=0.02 UT_TARGET_S=0.02 RT=0
	;;
transition)		# what the consistency model changed (see Usage)
	RR=5 RS=0 SCALE="1000:1" KT_N="" KT_SECS=0
	REPS=4 KT_TARGET_S=0.02 UT_TARGET_S=0.03 RT=5
	;;
builtin)		# the builtin seen by the tools (see Usage)
	# SCALE: the 1000-function modules loaded, no scale rounds
	RR=0 RS=0 SCALE="1000:0" KT_N="" KT_SECS=10
	REPS=4 KT_TARGET_S=0.02 UT_TARGET_S=0.03 RT=0
	RB=5			# per-call rounds
	;;
*)
	echo "usage: $0 [full|quick|tools|transition|builtin] [notools]" >&2
	exit 2
	;;
esac
[ "${2:-}" = notools ] && KT_N=

# --- setup ------------------------------------------------------------------

echo "# bench: setup"
# Everything runs on CPU 0 unless pinned elsewhere (tracers, pollers: CPU 1).
taskset -pc 0 $$ > /dev/null
info kernel "$(uname -r)"
info cpu "$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)"
info cpus "$(nproc --all)"	# the script itself runs pinned to CPU 0
info mode "$mode"
info perf "$(perf version 2>/dev/null | head -n 1)"

# shellcheck disable=SC2015	# C runs if A or B fails, as meant
insmod core/klp_events.ko && insmod core/klp.ko || { err "insmod klp_events.ko, klp.ko"; exit 1; }
insmod selftests/modules/klp_test_target.ko || { err "insmod klp_test_target.ko"; exit 1; }
addr=$(awk '$3 == "klp_target_a" && $4 == "[klp_test_target]" { print $1 }' /proc/kallsyms)
insmod "$MOD/bench_caller.ko" fn=0x"$addr" || { err "insmod bench_caller.ko"; exit 1; }
if [ "$RT" -gt 0 ]; then
	# shellcheck disable=SC2015
	insmod selftests/modules/klp_test_cm.ko && insmod "$MOD/bench_tr_ours.ko" ||
		{ err "insmod klp_test_cm.ko, bench_tr_ours.ko"; exit 1; }
fi
# shellcheck disable=SC2015
insmod "$MOD/bench_ours1.ko" && insmod "$MOD/bench_ours2.ko" ||
	{ err "insmod bench_ours"; exit 1; }

scale_ns=$(for nr in $SCALE; do echo "${nr%%:*}"; done | sort -n | tr '\n' ' ')
info scale_n "${scale_ns% }"
info scale_rounds "$SCALE"
# The largest N's disables also time an unrelated insmod alongside (not in
# tools mode: no builtin there to set it against).
INS_N=${scale_ns% }
INS_N=${INS_N##* }
[ "$mode" = tools ] && INS_N=
info redirect_rounds "$RR"
info switch_rounds "$RS"
info transition_rounds "$RT"
for n in $scale_ns; do
	insmod "$MOD/bench_s${n}_tgt.ko" || { err "insmod bench_s${n}_tgt"; exit 1; }
done
# Registration: once per N (a klp patch module never unloads).
for n in $scale_ns; do
	r=$("$BIN/switchlat" insmod "$MOD/bench_s${n}_ours.ko") ||
		{ err "insmod bench_s${n}_ours"; exit 1; }
	parse_sl "$r"
	out scale register_ms "ours_$n" 1 "$(ns_to_ms "$sl_write")" ms
done

# Loop sizes from the unpatched cost, so each loop runs about *_TARGET_S.
echo "a 100000" > "$TGT/call"
read -r _ ns < "$TGT/call"
NK=$(awk -v ns="$ns" -v s="$KT_TARGET_S" 'BEGIN { n = int(s * 1e9 / (ns / 100000)); print (n < 10000 ? 10000 : n) }')
# shellcheck disable=SC2046	# callloop's fields, split on purpose
set -- $("$BIN/callloop" "$CALLER" 2000)
[ "${3:-}" = pread ] || err "bench_caller's file is not pread()-able: $*"
NU=$(awk -v ns="$1" -v s="$UT_TARGET_S" 'BEGIN { n = int(s * 1e9 / ns); print (n < 1000 ? 1000 : n) }')
# shellcheck disable=SC2046
set -- $("$BIN/callloop" "$TGT/a" 200)
info klp_target_a_file "$3"
info kernel_loop_calls "$NK"
info user_preads "$NU"
export NK NU REPS

# --- redirection cost ---------------------------------------------------------

kt_lines() {
	[ -f "$1" ] && wc -l < "$1" || echo 0
}

# wait_lines FILE N PID [TRIES]: until FILE has N lines (klptop
# attached/refreshed), TRIES tenths of a second at most (default 300)
wait_lines() {
	local i
	for i in $(seq "${4:-300}"); do
		[ "$(kt_lines "$1")" -ge "$2" ] && return 0
		kill -0 "$3" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# klptop's program on klp:klp_redirect (bpf/klptop.bpf.c, the
# raw_tp/klp_redirect one); the kernel keeps 15 characters of a name
KT_PROG=klptop_redirect
KT_PROG=${KT_PROG:0:15}

# bpf_stats PROG PID: "run_cnt run_time_ns" of the BPF program named PROG
# (15 characters at most, as the kernel keeps it) that process PID holds
# (any of that name where bpftool cannot tell the holder); nothing unless
# there is exactly one.  bpftool leaves both out while they are 0.
bpf_stats() {
	bpftool -j prog show 2>/dev/null |
		jq -r --arg n "$1" --argjson p "$2" '
			[.[] | select(.name == $n and ((.pids // [{pid: $p}]) | any(.pid == $p)))]
			| if length == 1 then "\(.[0].run_cnt // 0) \(.[0].run_time_ns // 0)" else empty end'
}

# bpf_pass CONFIG PROG ROUND PID: the own cost per run of the BPF program
# PROG that process PID attached for CONFIG.  The kernel only counts a
# program's runs and time while kernel.bpf_stats_enabled is 1, and then
# reads the clock twice around every run: so the stats are on only for
# this one extra kernel loop, after CONFIG's timed ones (which ran with
# them off, as they do by default), and off again before anything else is
# measured.
bpf_pass() {
	local cfg=$1 prog=$2 r=$3 pid=$4 a b v ns c0 t0 c1 t1 cnt=-1 per=-1
	if ! command -v bpftool > /dev/null || ! command -v jq > /dev/null; then
		err "redirect $cfg round $r: no bpftool or jq: no BPF program cost"
	elif ! sysctl -q -w kernel.bpf_stats_enabled=1; then
		err "redirect $cfg round $r: cannot set kernel.bpf_stats_enabled=1"
	else
		a=$(bpf_stats "$prog" "$pid")
		echo "a $NK" > "$TGT/call"
		read -r v ns < "$TGT/call"
		b=$(bpf_stats "$prog" "$pid")
		sysctl -q -w kernel.bpf_stats_enabled=0 ||
			err "cannot set kernel.bpf_stats_enabled back to 0"
		[ "$v" = 4201 ] || err "$cfg round $r: BPF stats loop got $v, not 4201"
		if [ -z "$a" ] || [ -z "$b" ]; then
			err "redirect $cfg round $r: no single $prog program of pid $pid in bpftool prog show"
		else
			read -r c0 t0 <<< "$a"
			read -r c1 t1 <<< "$b"
			cnt=$((c1 - c0))
			if [ "$cnt" -lt "$NK" ]; then
				err "redirect $cfg round $r: $prog ran $cnt times in a loop of $NK calls"
			else
				per=$(awk -v t=$((t1 - t0)) -v c="$cnt" 'BEGIN { printf "%.2f", t / c }')
			fi
		fi
	fi
	out "${MSEC:-redirect}" bpf_ns_per_run "$cfg" "$r" "$per" ns
	out "${MSEC:-redirect}" bpf_run_cnt "$cfg" "$r" "$cnt" count
}

# kt_count CONFIG ROUND PROG: `klptop --json 1` on CPU 1 counting the
# calls of the patched klp_target_a while CONFIG's loops run (measure,
# every call 4201), then the own cost of its BPF program PROG that counts
# them (bpf_pass).  It must have counted every call of the loops: the sum
# of its intervals' hits, one more interval waited for after them.
kt_count() {
	local cfg=$1 r=$2 prog=$3 pid lines hits want=$((REPS * (NK + NU)))
	rm -f "$T/kt.json"
	taskset -c 1 "$KLPTOP" --json 1 > "$T/kt.json" 2> "$T/kt.err" &
	pid=$!
	if wait_lines "$T/kt.json" 1 "$pid"; then
		measure "$cfg" "$r" 4201
		bpf_pass "$cfg" "$prog" "$r" "$pid"
		lines=$(kt_lines "$T/kt.json")
		wait_lines "$T/kt.json" $((lines + 1)) "$pid" ||
			err "klptop died during ${MSEC:-redirect} $cfg round $r: $(head -c 300 "$T/kt.err")"
	else
		err "klptop did not start: $(head -c 300 "$T/kt.err")"
	fi
	kill -INT "$pid" 2>/dev/null
	wait "$pid"
	hits=$(grep -o '"summary":{[^}]*' "$T/kt.json" |
		grep -o '"hits":[0-9]*' | awk -F: '{ s += $2 } END { print s + 0 }')
	info "klptop_hits_${MSEC:+${MSEC}_}${cfg}_r$r" "$hits (expected >= $want)"
	[ "$hits" -ge "$want" ] ||
		err "klptop counted $hits calls in ${MSEC:-redirect} $cfg round $r, fewer than the loops' $want"
}

# empty_pass CONFIG ROUND [kprobe ADDR]: a BPF program that does nothing
# (bench/src/emptyprog.bpf.c: emptyprog on klp:klp_redirect, or
# emptykprobe on a kprobe at ADDR) attached while CONFIG's loops run
# (measure), then its own cost per run (bpf_pass)
empty_pass() {
	local cfg=$1 r=$2 prog=emptyprog pid
	shift 2
	[ $# = 0 ] || prog=emptykprobe
	rm -f "$T/ep.out"
	taskset -c 1 "$BIN/emptyprog" "$BIN/emptyprog.bpf.o" "$@" > "$T/ep.out" 2> "$T/ep.err" &
	pid=$!
	if wait_lines "$T/ep.out" 1 "$pid"; then
		measure "$cfg" "$r" 4201
		bpf_pass "$cfg" "$prog" "$r" "$pid"
		kill -0 "$pid" 2>/dev/null ||
			err "$prog died during ${MSEC:-redirect} $cfg round $r: $(head -c 300 "$T/ep.err")"
	else
		err "$prog did not attach: $(head -c 300 "$T/ep.err")"
	fi
	kill -INT "$pid" 2>/dev/null
	wait "$pid"
}

run_config() {	# run_config CONFIG ROUND
	local cfg=$1 r=$2 pid hits
	case $cfg in
	unpatched)
		measure "$cfg" "$r" 100
		;;
	builtin)
		bi_load bench_builtin1 || return
		measure "$cfg" "$r" 4201
		bi_unload bench_builtin1
		;;
	ours)
		ours_set bench_ours1 1
		measure "$cfg" "$r" 4201
		ours_set bench_ours1 0
		;;
	ours_klptop)
		# said once, below: klptop missing
		[ -x "$KLPTOP" ] || return
		ours_set bench_ours1 1
		kt_count "$cfg" "$r" "$KT_PROG"
		ours_set bench_ours1 0
		;;
	ours_bpf0)
		ours_set bench_ours1 1
		empty_pass "$cfg" "$r"
		ours_set bench_ours1 0
		;;
	ours_perf)
		ours_set bench_ours1 1
		taskset -c 1 perf stat -e 'klp:*' -a -x, -o "$T/perf.out" -- \
			taskset -c 0 "$0" inner-measure "$cfg" "$r" 4201
		hits=$(awk -F, '$3 == "klp:klp_redirect" { print $1 }' "$T/perf.out")
		info "perf_hits_r$r" "$hits (expected >= $((NK + NU)))"
		[ "${hits:-0}" -ge $((NK + NU)) ] 2>/dev/null ||
			err "perf counted ${hits:-nothing} klp_redirect, fewer than $((NK + NU))"
		ours_set bench_ours1 0
		;;
	esac
}

configs=(unpatched builtin ours ours_bpf0 ours_klptop ours_perf)
[ "$mode" = transition ] && configs=(unpatched builtin ours)
[ -x "$KLPTOP" ] || err "build/bin/klptop missing: ours_klptop and the klptop section are skipped"
# shellcheck disable=SC2015
[ -x "$KLPTOP" ] && "$KLPTOP" -h > /dev/null 2>&1 ||
	{ [ -x "$KLPTOP" ] && err "build/bin/klptop -h failed"; }

# rotated LABEL ROUNDS FUNC CONFIG...: ROUNDS rounds of `FUNC CONFIG
# ROUND` for every CONFIG, their order rotating by one from round to round
rotated() {
	local label=$1 rounds=$2 fn=$3 r i k
	shift 3
	for ((r = 1; r <= rounds; r++)); do
		echo "# $label: round $r/$rounds (t=$(cut -d. -f1 /proc/uptime)s)"
		for ((i = 0; i < $#; i++)); do
			k=$(((i + r - 1) % $# + 1))
			"$fn" "${!k}" "$r"
		done
	done
}

redirect_section() {
	rotated redirect "$RR" run_config "${configs[@]}"
}

# --- switch latency -------------------------------------------------------------

sl() {	# sl CONFIG OP ROUND EXPECT ARGS...: one switch, four figures
	local cfg=$1 op=$2 r=$3 want=$4 res
	shift 4
	res=$("$BIN/switchlat" -T 120 -f "$CALLER" -v "$want" "$@") ||
		err "switch $cfg $op round $r: $res"
	parse_sl "$res"
	out switch "${op}_returned_ms" "$cfg" "$r" "$(ns_to_ms "$sl_write")" ms
	out switch "${op}_live_same_ms" "$cfg" "$r" "$(ns_to_ms "$sl_same")" ms
	out switch "${op}_live_other_ms" "$cfg" "$r" "$(ns_to_ms "$sl_other")" ms
	out switch "${op}_complete_ms" "$cfg" "$r" "$(ns_to_ms "$sl_trans")" ms
}

switch_ours() {
	sl ours enable "$1" 4201 -t "$KS/bench_ours1/transition" \
		write "$KS/bench_ours1/enabled" 1
	sl ours stack "$1" 4202 -t "$KS/bench_ours2/transition" \
		write "$KS/bench_ours2/enabled" 1
	sl ours unstack "$1" 4201 -t "$KS/bench_ours2/transition" \
		write "$KS/bench_ours2/enabled" 0
	sl ours disable "$1" 100 -t "$KS/bench_ours1/transition" \
		write "$KS/bench_ours1/enabled" 0
}

switch_builtin() {
	sl builtin enable "$1" 4201 -t "$KL/bench_builtin1/transition" \
		insmod "$MOD/bench_builtin1.ko"
	sl builtin stack "$1" 4202 -t "$KL/bench_builtin2/transition" \
		insmod "$MOD/bench_builtin2.ko"
	sl builtin unstack "$1" 4201 -t "$KL/bench_builtin2/transition" \
		write "$KL/bench_builtin2/enabled" 0
	sl builtin disable "$1" 100 -t "$KL/bench_builtin1/transition" \
		write "$KL/bench_builtin1/enabled" 0
	bi_gone bench_builtin2 && rmmod_retry bench_builtin2
	bi_gone bench_builtin1 && rmmod_retry bench_builtin1
}

# what an insmod costs by itself (the builtin can only enable by insmod)
switch_null() {
	local res
	res=$("$BIN/switchlat" insmod "$MOD/bench_null.ko") || err "insmod bench_null: $res"
	parse_sl "$res"
	out switch insmod_returned_ms null "$1" "$(ns_to_ms "$sl_write")" ms
	rmmod_retry bench_null
}

switch_section() {
	local r
	for ((r = 1; r <= RS; r++)); do
		echo "# switch: round $r/$RS (t=$(cut -d. -f1 /proc/uptime)s)"
		switch_null "$r"
		if ((r % 2)); then
			switch_ours "$r"
			switch_builtin "$r"
		else
			switch_builtin "$r"
			switch_ours "$r"
		fi
	done
}

# --- scale ----------------------------------------------------------------------

# kprobes on the per-function ftrace calls of both cores, and on the
# RCU-tasks waits of ftrace_shutdown(), in a private tracefs instance.
KP_INST=$TR/instances/klp-bench
# ftrace itself is notrace, so kprobe events cannot sit on
# register_ftrace_function(); one module_alloc() (the ops' trampoline) per
# function enabled and one synchronize_rcu_tasks_rude() per function
# disabled mark the functions instead.  Since 6.10 the trampoline comes
# from execmem_alloc() and goes back with execmem_free().
if grep -q ' module_alloc$' /proc/kallsyms; then
	KP_ALLOC=module_alloc KP_FREE=module_memfree
else
	KP_ALLOC=execmem_alloc KP_FREE=execmem_free
fi
kp_setup() {
	echo "p:klpbench/ma $KP_ALLOC" >> $TR/kprobe_events &&
	echo "r:klpbench/ma_ret $KP_ALLOC" >> $TR/kprobe_events &&
	echo "p:klpbench/mf $KP_FREE" >> $TR/kprobe_events &&
	echo "r:klpbench/mf_ret $KP_FREE" >> $TR/kprobe_events &&
	echo 'p:klpbench/rt synchronize_rcu_tasks' >> $TR/kprobe_events &&
	echo 'r:klpbench/rt_ret synchronize_rcu_tasks' >> $TR/kprobe_events &&
	echo 'p:klpbench/rr synchronize_rcu_tasks_rude' >> $TR/kprobe_events &&
	echo 'r:klpbench/rr_ret synchronize_rcu_tasks_rude' >> $TR/kprobe_events &&
	mkdir -p $KP_INST && echo mono > $KP_INST/trace_clock &&
	echo 4096 > $KP_INST/buffer_size_kb
}
if kp_setup 2>/dev/null; then
	KP=1
else
	KP=0
	err "kprobe events unavailable: no per-function intervals ($(tail -n 3 $TR/error_log | tr '\n' ' '))"
fi

kp_on() {
	[ "$KP" = 1 ] || return 0
	echo > $KP_INST/trace
	echo 1 > $KP_INST/events/klpbench/enable
}

# kp_off CONFIG N OP ROUND: stop tracing, report what the kprobes saw
kp_off() {
	[ "$KP" = 1 ] || return 0
	echo 0 > $KP_INST/events/klpbench/enable
	local ev=ma
	[ "$3" = disable ] && ev=rr
	awk -v ev="$ev" -v cfg="$1" -v n="$2" -v op="$3" -v r="$4" '
	function med(a, lo, hi,    m, i, j, t, b) {
		m = 0
		for (i = lo; i <= hi; i++) b[++m] = a[i]
		for (i = 2; i <= m; i++) {
			t = b[i]
			for (j = i - 1; j >= 1 && b[j] > t; j--) b[j + 1] = b[j]
			b[j + 1] = t
		}
		if (!m) return -1
		return m % 2 ? b[(m + 1) / 2] : (b[m / 2] + b[m / 2 + 1]) / 2
	}
	function out(metric, v, unit) {
		printf "B|scale|%s_%s|%s_%d|%d|%.3f|%s\n", op, metric, cfg, n, r, v, unit
	}
	/^#/ { next }
	{
		for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) break
		if (i > NF) next
		ts = substr($i, 1, length($i) - 1) * 1000
		e = $(i + 1); sub(/:$/, "", e)
		if (e == ev) t[++k] = ts
		if (e !~ /_ret$/) start[e] = ts
		else if ((s = substr(e, 1, length(e) - 4)) in start) {
			in_ms[s] += ts - start[s]
			delete start[s]
		}
	}
	END {
		out("marks", k, "count")
		out("rcu_tasks_wait_ms", in_ms["rt"] + 0, "ms")
		out("rcu_tasks_rude_wait_ms", in_ms["rr"] + 0, "ms")
		out("module_alloc_ms", in_ms["ma"] + 0, "ms")
		out("module_memfree_ms", in_ms["mf"] + 0, "ms")
		if (k < 10) exit
		for (i = 2; i <= k; i++) {
			d[i - 1] = t[i] - t[i - 1]
			if (i == 2 || d[i - 1] < lo) lo = d[i - 1]
			if (i == 2 || d[i - 1] > hi) hi = d[i - 1]
		}
		m = k - 1; dec = int(m / 10)
		out("per_func_median_ms", med(d, 1, m), "ms")
		out("per_func_min_ms", lo, "ms")
		out("per_func_max_ms", hi, "ms")
		if (m < 50) exit
		out("per_func_first10pct_ms", med(d, 1, dec), "ms")
		out("per_func_last10pct_ms", med(d, m - dec + 1, m), "ms")
		for (i = 0; i < 10; i++)
			out("per_func_decile" i + 1 "_ms", med(d, int(i * m / 10) + 1, int((i + 1) * m / 10)), "ms")
	}' $KP_INST/trace
}

# scale_disable CORE N ROUND ARGS...: the disable, `switchlat ARGS`, its
# output in res (a failure is the caller's to report), its kprobe figures
# as for any operation.  At N = INS_N the disable runs in the background
# and, 0.05 s into it, an unrelated insmod (bench_null) is timed until it
# returns: how long a module load waits behind a large disable.  The
# kprobes see that insmod's module_alloc() too, not a disable's marks;
# bench_null goes again once they are off.
scale_disable() {
	local core=$1 n=$2 r=$3 pid rc ins running
	shift 3
	kp_on
	if [ "$n" != "$INS_N" ]; then
		res=$("$BIN/switchlat" "$@")
		rc=$?
	else
		"$BIN/switchlat" "$@" > "$T/disable.out" &
		pid=$!
		sleep 0.05
		kill -0 "$pid" 2>/dev/null && running=yes || running=no
		ins=$("$BIN/switchlat" insmod "$MOD/bench_null.ko") ||
			err "scale $core $n disable: insmod bench_null alongside: $ins"
		parse_sl "$ins"
		out scale insmod_wait_ms "${core}_$n" "$r" "$(ns_to_ms "$sl_write")" ms
		info "insmod_wait_${core}_${n}_r$r" "disable still running when the insmod started: $running"
		wait "$pid"
		rc=$?
		res=$(cat "$T/disable.out")
	fi
	kp_off "$core" "$n" disable "$r"
	[ "$n" != "$INS_N" ] || rmmod_retry bench_null
	return $rc
}

scale_ours() {	# scale_ours N ROUND
	local n=$1 r=$2 p=bench_s$1_ours res
	kp_on
	res=$("$BIN/switchlat" -T 900 -t "$KS/$p/transition" write "$KS/$p/enabled" 1) ||
		err "scale ours $n enable: $res"
	kp_off ours "$n" enable "$r"
	parse_sl "$res"
	out scale enable_returned_ms "ours_$n" "$r" "$(ns_to_ms "$sl_write")" ms
	out scale enable_ms "ours_$n" "$r" "$(ns_to_ms "$sl_trans")" ms
	check_value "$n" $((1000000 + n - 1)) "ours enabled"

	[ "$n" = "$KT_N" ] && [ "$r" = 1 ] && klptop_section "$n"

	scale_disable ours "$n" "$r" -T 900 -t "$KS/$p/transition" write "$KS/$p/enabled" 0 ||
		err "scale ours $n disable: $res"
	parse_sl "$res"
	out scale disable_returned_ms "ours_$n" "$r" "$(ns_to_ms "$sl_write")" ms
	out scale disable_ms "ours_$n" "$r" "$(ns_to_ms "$sl_trans")" ms
	check_value "$n" $((n - 1)) "ours disabled"
}

scale_builtin() {	# scale_builtin N ROUND
	local n=$1 r=$2 p=bench_s$1_bi res
	kp_on
	res=$("$BIN/switchlat" -T 900 -t "$KL/$p/transition" insmod "$MOD/$p.ko") ||
		err "scale builtin $n enable: $res"
	kp_off builtin "$n" enable "$r"
	parse_sl "$res"
	out scale enable_returned_ms "builtin_$n" "$r" "$(ns_to_ms "$sl_write")" ms
	out scale enable_ms "builtin_$n" "$r" "$(ns_to_ms "$sl_trans")" ms
	check_value "$n" $((1000000 + n - 1)) "builtin enabled"

	scale_disable builtin "$n" "$r" -T 900 -t "$KL/$p/transition" write "$KL/$p/enabled" 0 ||
		err "scale builtin $n disable: $res"
	parse_sl "$res"
	out scale disable_returned_ms "builtin_$n" "$r" "$(ns_to_ms "$sl_write")" ms
	out scale disable_ms "builtin_$n" "$r" "$(ns_to_ms "$sl_trans")" ms
	check_value "$n" $((n - 1)) "builtin disabled"
	bi_gone "$p" && rmmod_retry "$p"
}

# check_value N EXPECT WHAT: the last function of bench_s<N> returns EXPECT
check_value() {
	local v
	v=$(cat "/sys/kernel/debug/bench_s$1/last")
	[ "$v" = "$2" ] || err "scale N=$1 $3: last function returns $v, not $2"
}

scale_section() {
	local r nr n rounds maxr=1
	for nr in $SCALE; do ((${nr##*:} > maxr)) && maxr=${nr##*:}; done
	for ((r = 1; r <= maxr; r++)); do
		for nr in $SCALE; do
			n=${nr%%:*} rounds=${nr##*:}
			((r <= rounds)) || continue
			echo "# scale: N=$n round $r/$rounds (t=$(cut -d. -f1 /proc/uptime)s)"
			if [ "$mode" = tools ]; then
				scale_ours "$n" "$r"
			elif ((r % 2)); then
				scale_ours "$n" "$r"
				scale_builtin "$n" "$r"
			else
				scale_builtin "$n" "$r"
				scale_ours "$n" "$r"
			fi
		done
	done
}

# --- klptop's own cost ----------------------------------------------------------

# cpu_ns and cpu_pct: bench/guest-cpu.sh

# kt_run CONFIG ARGS...: klptop ARGS on CPU 1 for KT_SECS 1-s intervals;
# KT_START_TRIES: tenths of a second it may take to start (default 300);
# KT_ON_START, KT_ON_STOP: commands run once it has started (before the
# first interval) and before it is stopped (default none)
kt_run() {
	local cfg=$1 pid i a b ta tb t0 a0 hwm rss
	shift
	rm -f "$T/kt.out"
	taskset -c 1 "$KLPTOP" "$@" > "$T/kt.out" 2> "$T/kt.err" &
	pid=$!
	if ! wait_lines "$T/kt.out" 1 "$pid" "${KT_START_TRIES:-300}"; then
		err "klptop $* did not start: $(head -c 300 "$T/kt.err")"
		kill "$pid" 2>/dev/null
		wait "$pid"
		return
	fi
	"${KT_ON_START:-:}"
	a0=$(cpu_ns "$pid")
	[ "$a0" -ge 0 ] || err "klptop $*: no /proc/$pid/task/*/schedstat: no CPU figures"
	t0=$(now_ns)
	a=$a0 ta=$t0
	for ((i = 1; i <= KT_SECS; i++)); do
		sleep 1
		b=$(cpu_ns "$pid")
		tb=$(now_ns)
		out klptop cpu_pct "$cfg" "$i" "$(cpu_pct "$a" "$b" $((tb - ta)) %.1f)" "%"
		a=$b ta=$tb
	done
	out klptop cpu_total_pct "$cfg" 1 "$(cpu_pct "$a0" "$b" $((tb - t0)) %.2f)" "%"
	# the raw readings (ns) the figures come from: the report checks them
	info "klptop_cpu_ns_$cfg" "$a0 $b"
	hwm=$(awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status")
	rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status")
	out klptop vm_hwm_kb "$cfg" 1 "$hwm" kB
	out klptop vm_rss_kb "$cfg" 1 "$rss" kB
	out klptop output_bytes_per_s "$cfg" 1 "$(awk -v b="$(wc -c < "$T/kt.out")" -v ns=$((tb - t0)) 'BEGIN { printf "%d", b / (ns / 1e9 + 1) }')" B/s
	# a klptop that died in between left -1s and empty readings above;
	# say what happened to it, not only that figures are missing
	kill -0 "$pid" 2>/dev/null ||
		err "klptop $* died during its $KT_SECS intervals: $(head -c 300 "$T/kt.err")"
	"${KT_ON_STOP:-:}"
	kill -INT "$pid"
	wait "$pid"
}

# With the N-function patch enabled: klptop busy (every function called in
# a loop on CPU 0) and idle.  Nothing is switched while klptop runs.
klptop_section() {
	local n=$1 d=/sys/kernel/debug/bench_s$1 drv v ns
	[ -x "$KLPTOP" ] || err "klptop section skipped: no $KLPTOP"
	[ -x "$EXPORTER" ] || err "exporter section skipped: no $EXPORTER"
	echo "# klptop: $n patched functions (t=$(cut -d. -f1 /proc/uptime)s)"
	info klptop_functions "$n"
	rm -f "$T/stop"
	sh -c "while [ ! -e $T/stop ]; do echo 10 > $d/call; done" &
	drv=$!
	if [ -x "$KLPTOP" ]; then
		kt_run busy_screen -C 1
		kt_run busy_json --json 1
	fi
	[ -x "$EXPORTER" ] && ex_run busy "$n"
	read -r v ns < "$d/call"
	info klptop_busy_calls_per_s "$(awk -v n="$n" -v ns="$ns" 'BEGIN { printf "%d", 10 * n / (ns / 1e9) }')"
	touch "$T/stop"
	wait "$drv"
	if [ -x "$KLPTOP" ]; then
		kt_run idle_screen -C 1
		kt_run idle_json --json 1
	fi
	[ -x "$EXPORTER" ] && ex_run idle "$n"
}

# --- main -------------------------------------------------------------------------

t_all=$(now_ns)
if [ "$mode" = builtin ]; then
	builtin_section
else
	if [ "$mode" != tools ]; then
		redirect_section
		switch_section
		[ "$RT" -gt 0 ] && transition_section
	fi
	scale_section
fi
info guest_seconds "$(( ($(now_ns) - t_all) / 1000000000 ))"
echo "# bench: done (t=$(cut -d. -f1 /proc/uptime)s)"
echo "I|done|1"
