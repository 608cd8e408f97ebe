# SPDX-License-Identifier: GPL-2.0
# bench/guest-tools.sh - bench/guest.sh's klptop section (the exporter's is
# bench/guest-exporter.sh), sourced by it (its helpers: out, info, err,
# now_ns, cpu_ns, cpu_pct, wait_lines; ex_run of guest-exporter.sh; its
# paths: T, KLPTOP, EXPORTER).  busy_start and busy_stop serve
# guest-builtin.sh's tools rows too.
# shellcheck shell=bash

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

# The busy loop of the tools' rows: every function of bench_s<BUSY_N>
# called in a loop on CPU 0, started once a tool has attached and stopped
# before it detaches (kt_run's and ex_run's KT_ON_START and KT_ON_STOP).
# A tool that attaches or detaches rewrites kernel text while it does: the
# static keys of the klp tracepoints it listens to, which sit in klp's
# ftrace handler that every call of the loop runs (and, for the builtin's
# functions, a kprobe on each new function's call site).  On
# multi-threaded TCG, text rewritten while another vCPU runs it can leave
# that vCPU at a stale int3 for good (doc/testing.md: soft lockups, the
# tools' boot of `make bench` hung so): so no tool starts or stops while
# the loop runs.  Nothing while BUSY_LOAD is idle.  The loop's calls per
# second at its end go to the info record BUSY_INFO.
busy_start() {
	[ "$BUSY_LOAD" = busy ] || return 0
	rm -f "$T/stop"
	sh -c "while [ ! -e $T/stop ]; do echo 10 > /sys/kernel/debug/bench_s$BUSY_N/call; done" &
	BUSY_DRV=$!
}

busy_stop() {
	local ns
	[ "$BUSY_LOAD" = busy ] || return 0
	touch "$T/stop"
	wait "$BUSY_DRV"
	read -r _ ns < "/sys/kernel/debug/bench_s$BUSY_N/call"
	info "$BUSY_INFO" "$(awk -v n="$BUSY_N" -v ns="$ns" 'BEGIN { printf "%d", 10 * n / (ns / 1e9) }')"
}

# With the N-function patch enabled: klptop and the exporter busy (every
# function called in a loop on CPU 0, while the tool runs) and idle.
# Nothing is switched while a tool runs.
klptop_section() {
	local n=$1
	[ -x "$KLPTOP" ] || err "klptop section skipped: no $KLPTOP"
	[ -x "$EXPORTER" ] || err "exporter section skipped: no $EXPORTER"
	echo "# klptop: $n patched functions (t=$(cut -d. -f1 /proc/uptime)s)"
	info klptop_functions "$n"
	BUSY_N=$n BUSY_INFO=klptop_busy_calls_per_s
	for BUSY_LOAD in busy idle; do
		if [ -x "$KLPTOP" ]; then
			KT_ON_START=busy_start KT_ON_STOP=busy_stop kt_run "${BUSY_LOAD}_screen" -C 1
			KT_ON_START=busy_start KT_ON_STOP=busy_stop kt_run "${BUSY_LOAD}_json" --json 1
		fi
		[ -x "$EXPORTER" ] && KT_ON_START=busy_start KT_ON_STOP=busy_stop ex_run "$BUSY_LOAD" "$n"
	done
}
