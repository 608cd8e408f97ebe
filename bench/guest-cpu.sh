# SPDX-License-Identifier: GPL-2.0
# bench/guest-cpu.sh - a tool's CPU time, sourced by bench/guest.sh (and by
# selftests/host/40-bench-report.sh, which checks it on a made-up /proc:
# BENCH_PROC, default /proc).
# shellcheck shell=bash

# cpu_ns PID: the CPU time all threads of PID have had, in ns (schedstat's
# first field; /proc/PID/stat's utime+stime come in 10 ms ticks, too coarse
# for a tool that runs a few ms a second); -1 if there is none, or a field
# is not a number.  Printed with %.0f, never %d: mawk (Debian's awk, the
# guest's too) prints a %d above 2^31 - 1 as 2147483647, so from 2.15 s of
# CPU on every reading of a tool was that and its CPU time "stood still"
# (a double holds ns exactly for 104 days).
cpu_ns() {
	cat "${BENCH_PROC:-/proc}/$1"/task/*/schedstat 2>/dev/null |
		awk '$1 !~ /^[0-9]+$/ { bad = 1 } { s += $1; n++ }
		     END { if (n && !bad) printf "%.0f\n", s; else print -1 }'
}

# cpu_pct CPU_NS0 CPU_NS1 WALL_NS FORMAT: the CPU time between the two
# readings as a % of one CPU over WALL_NS; -1 (a sentinel, left out of the
# figures) if a reading is missing
cpu_pct() {
	awk -v a="$1" -v b="$2" -v ns="$3" -v f="$4" 'BEGIN {
		if (a < 0 || b < a || ns <= 0) print -1; else printf f "\n", 100 * (b - a) / ns }'
}
