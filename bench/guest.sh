#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench/guest.sh - the benchmarks, inside the guest (bench/run.sh boots it
# with selftests/guest/boot.sh).  Everything is measured side by side in
# this one boot; configurations are interleaved within every round and
# their order rotates from round to round, so that drift of the emulated
# CPU hits all of them alike.
#
# Usage: bench/guest.sh [full|quick|tools|transition|builtin|percall] [notools]
#   notools: leave out the klptop and exporter sections (bench/run.sh
#   measures them in a boot of their own, tools mode, on multi-threaded TCG)
#   transition: only what the consistency model changed: the redirect
#   section's unpatched, builtin and ours, the transition section, and the
#   scale section at N = 1000 (bench/run.sh -T)
#   builtin: only the builtin livepatch as klptop and klp-exporter see it,
#   beside klp (bench/guest-builtin.sh, bench/run.sh -B)
#   percall: only the redirect section's unpatched, builtin and ours, with
#   their state (bench/run.sh -c boots it several times)
#
# Output, one record a line (bench/run.sh parses it; only stdout comes back
# from the guest):
#   B|<section>|<metric>|<config>|<round>|<value>|<unit>   one sample
#   I|<key>|<value>                                        context
#   S|<section>|<config>|<round>|<key>|<value>             what a per-call
#                                   figure's calls went through (guest-site.sh)
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
# Each section in a file of its own, sourced here (they use the helpers
# and paths below).
# shellcheck source=bench/guest-cpu.sh disable=SC1091
. "$top/bench/guest-cpu.sh"
# shellcheck source=bench/guest-site.sh disable=SC1091
. "$top/bench/guest-site.sh"
# shellcheck source=bench/guest-redirect.sh disable=SC1091
. "$top/bench/guest-redirect.sh"
# shellcheck source=bench/guest-switch.sh disable=SC1091
. "$top/bench/guest-switch.sh"
# shellcheck source=bench/guest-scale.sh disable=SC1091
. "$top/bench/guest-scale.sh"
# shellcheck source=bench/guest-tools.sh disable=SC1091
. "$top/bench/guest-tools.sh"
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
	site_state "$1" "$2" "$3"
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
percall)		# the per-call rows and their state (see Usage)
	# A loop figure is the best of 16 short runs: on a host whose CPUs
	# other work shares, a run of a few ms has a fair chance to go
	# unpreempted, one of 20 ms hardly any (interference only adds time)
	RR=5 RS=0 SCALE="" KT_N="" KT_SECS=0
	REPS=16 KT_TARGET_S=0.002 UT_TARGET_S=0.004 RT=0
	;;
builtin)		# the builtin seen by the tools (see Usage)
	# SCALE: the 1000-function modules loaded, no scale rounds
	RR=0 RS=0 SCALE="1000:0" KT_N="" KT_SECS=10
	REPS=4 KT_TARGET_S=0.02 UT_TARGET_S=0.03 RT=0
	RB=5			# per-call rounds
	;;
*)
	echo "usage: $0 [full|quick|tools|transition|builtin|percall] [notools]" >&2
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

configs=(unpatched builtin ours ours_bpf0 ours_klptop ours_perf)
case $mode in transition | percall) configs=(unpatched builtin ours) ;; esac
[ -x "$KLPTOP" ] || err "build/bin/klptop missing: ours_klptop and the klptop section are skipped"
# shellcheck disable=SC2015
[ -x "$KLPTOP" ] && "$KLPTOP" -h > /dev/null 2>&1 ||
	{ [ -x "$KLPTOP" ] && err "build/bin/klptop -h failed"; }
# every per-call figure comes with its state (S| records)
info site_state 1
[ "$mode" = percall ] || kp_init

# --- main -------------------------------------------------------------------------

t_all=$(now_ns)
case $mode in
builtin)
	builtin_section
	;;
percall)
	redirect_section
	;;
*)
	if [ "$mode" != tools ]; then
		redirect_section
		switch_section
		[ "$RT" -gt 0 ] && transition_section
	fi
	scale_section
	;;
esac
info guest_seconds "$(( ($(now_ns) - t_all) / 1000000000 ))"
echo "# bench: done (t=$(cut -d. -f1 /proc/uptime)s)"
echo "I|done|1"
