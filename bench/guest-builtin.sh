# SPDX-License-Identifier: GPL-2.0
# bench/guest-builtin.sh - bench/guest.sh's builtin mode (bench/run.sh -B),
# sourced by it (its helpers: out, info, err, measure, kt_count, rotated,
# guest-tools.sh's busy_start and busy_stop,
# bi_load, ours_set, check_value, kt_run, empty_pass; guest-exporter.sh's ex_run; its
# paths: MOD, T, KLPTOP, EXPORTER).  The kernel's builtin livepatch as
# klptop and klp-exporter see it (userspace/sources/livepatch/source_livepatch.c: a kprobe
# on each builtin winner's new function counts its calls), beside klp's
# own patches, in one boot:
#
#   builtin   per call of klp_target_a, measured as the redirect section
#             does (measure: the kernel loop and the pread()s), for
#             builtin (bench_builtin1 alone), builtin_klptop (`klptop
#             --json 1` counting its calls), ours (bench_ours1 alone) and
#             ours_klptop (klptop counting its calls), the order rotating
#             round by round; klptop's counting program's own cost per run
#             after the timed loops (bpf_pass: lp_count, a kprobe program,
#             for the builtin; klptop_redirect for klp); and builtin_bpf0:
#             a program that does nothing (bench/src/emptyprog.bpf.c's
#             emptykprobe) on a kprobe where klptop puts its counter, the
#             new function's address: the floor of any kprobe counter.
#   klptop, exporter  with the 1000-function patch enabled, first klp's
#             (bench_s1000_ours), then the builtin's (bench_s1000_bi, the
#             same functions: the two cannot be enabled together):
#             `klptop --json 1` for KT_SECS intervals and klp-exporter's
#             scrapes, as klptop_section measures them, busy (every
#             function called in a loop on CPU 0) and idle; configs
#             <core>_busy_json, <core>_idle_json (klptop) and <core>_busy,
#             <core>_idle (exporter), core ours or builtin.  Here the tool
#             starts before the loop and stops after it, for both cores:
#             the builtin's tools attach a kprobe on each new function,
#             which rewrites that function's call site, and multi-threaded
#             TCG must not see a call site rewritten under calls
#             (doc/testing.md).  The builtin's patch stays enabled at the
#             end: its disable takes over two minutes, and the guest powers
#             off next.
# shellcheck shell=bash

BL_CONFIGS=(builtin builtin_klptop builtin_bpf0 ours ours_klptop)
BT_N=1000

bl_config() {	# bl_config CONFIG ROUND: one per-call configuration
	local cfg=$1 r=$2
	case $cfg in
	builtin | builtin_klptop)
		bi_load bench_builtin1 || return
		if [ "$cfg" = builtin ]; then
			MSEC=builtin measure "$cfg" "$r" 4201
		else
			MSEC=builtin kt_count "$cfg" "$r" lp_count
		fi
		bi_unload bench_builtin1
		;;
	builtin_bpf0)
		bi_load bench_builtin1 || return
		MSEC=builtin bl_empty "$cfg" "$r"
		bi_unload bench_builtin1
		;;
	ours | ours_klptop)
		ours_set bench_ours1 1
		if [ "$cfg" = ours ]; then
			MSEC=builtin measure "$cfg" "$r" 4201
		else
			MSEC=builtin kt_count "$cfg" "$r" "$KT_PROG"
		fi
		ours_set bench_ours1 0
		;;
	esac
}

# bl_empty CONFIG ROUND: emptykprobe on a kprobe at bench_builtin1's new
# function (its address in /proc/kallsyms: klptop attaches by address)
bl_empty() {
	local addr
	addr=$(awk '$3 == "bench_new_a" && $4 == "[bench_builtin1]" { print $1; exit }' /proc/kallsyms)
	if [ -z "$addr" ]; then
		err "builtin $1 round $2: no bench_new_a of bench_builtin1 in /proc/kallsyms"
		return
	fi
	empty_pass "$1" "$2" kprobe "$addr"
}

# bt_probes TOOL ERRFILE: every builtin function's counter attached (the
# tool says "cannot count the calls of ..." for each one it could not)
bt_probes() {
	local n
	n=$(grep -c 'cannot count the calls' "$2")
	info "kprobes_$BT_CFG" "$(wc -l < /sys/kernel/debug/kprobes/list) registered, $n attach failures"
	[ "$n" = 0 ] || err "$1 ($BT_CFG) could not count $n functions' calls: $(grep -m 1 'cannot count the calls' "$2" | head -c 200)"
}

bt_ex_stop() {
	busy_stop
	bt_probes klp-exporter "$T/ex.err"
}

# klptop's last line must show the N functions, and calls while busy
bt_kt_stop() {
	local s fns hits
	busy_stop
	bt_probes klptop "$T/kt.err"
	s=$(tail -n 1 "$T/kt.out" | grep -o '"summary":{[^}]*')
	fns=$(echo "$s" | grep -o '"functions":[0-9]*' | cut -d: -f2)
	hits=$(echo "$s" | grep -o '"hits":[0-9]*' | cut -d: -f2)
	info "klptop_functions_$BT_CFG" "${fns:-none}"
	[ "${fns:-0}" -ge "$BT_N" ] ||
		err "klptop ($BT_CFG) shows ${fns:-no} functions, fewer than $BT_N"
	[ "$BUSY_LOAD" = idle ] || [ "${hits:-0}" -gt 0 ] ||
		err "klptop ($BT_CFG) counted no call in its last interval with the loop running"
}

# bt_tools CORE: klptop and the exporter, busy and idle, on the patch of
# BT_N functions enabled under CORE (ours or builtin)
bt_tools() {
	local core=$1 excore=klp
	[ "$core" = builtin ] && excore=livepatch
	BUSY_N=$BT_N
	for BUSY_LOAD in busy idle; do
		echo "# builtin: tools, $core, $BUSY_LOAD (t=$(cut -d. -f1 /proc/uptime)s)"
		if [ -x "$KLPTOP" ]; then
			BT_CFG=${core}_${BUSY_LOAD}_json BUSY_INFO=builtin_busy_calls_per_s_${core}_${BUSY_LOAD}_json
			KT_START_TRIES=3000 KT_ON_START=busy_start KT_ON_STOP=bt_kt_stop \
				kt_run "$BT_CFG" --json 1
		fi
		if [ -x "$EXPORTER" ]; then
			BT_CFG=${core}_$BUSY_LOAD BUSY_INFO=builtin_busy_calls_per_s_${core}_$BUSY_LOAD
			EX_CORE=$excore KT_START_TRIES=3000 KT_ON_START=busy_start KT_ON_STOP=bt_ex_stop \
				ex_run "$BT_CFG" "$BT_N"
		fi
	done
}

builtin_tools_section() {
	local p=bench_s${BT_N}
	[ -x "$KLPTOP" ] || err "klptop rows skipped: no $KLPTOP"
	[ -x "$EXPORTER" ] || err "exporter rows skipped: no $EXPORTER"
	info klptop_functions "$BT_N"
	ours_set "${p}_ours" 1
	check_value "$BT_N" $((1000000 + BT_N - 1)) "ours enabled"
	bt_tools ours
	ours_set "${p}_ours" 0
	check_value "$BT_N" $((BT_N - 1)) "ours disabled"
	bi_load "${p}_bi" || return
	check_value "$BT_N" $((1000000 + BT_N - 1)) "builtin enabled"
	bt_tools builtin
}

builtin_section() {
	local oops
	info builtin_rounds "$RB"
	rotated builtin "$RB" bl_config "${BL_CONFIGS[@]}"
	builtin_tools_section
	# figures taken beside a kernel that oopsed or warned are not figures
	oops=$(dmesg | grep -E 'BUG:|Oops|WARNING:|RIP:' | head -n 3 | tr '\n' ' ')
	[ -z "$oops" ] || err "the kernel reported: $oops"
}
