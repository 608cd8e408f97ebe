# SPDX-License-Identifier: GPL-2.0
# bench/guest-redirect.sh - bench/guest.sh's redirect section, sourced by it
# (its helpers: out, info, err, measure, ours_set, bi_load, bi_unload; its
# paths: T, BIN, TGT, KLPTOP).  See guest.sh's "Sections" for what it
# measures.
# shellcheck shell=bash

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
