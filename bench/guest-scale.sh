# SPDX-License-Identifier: GPL-2.0
# bench/guest-scale.sh - bench/guest.sh's scale section, sourced by it (its
# helpers: out, info, err, parse_sl, ns_to_ms, bi_gone, rmmod_retry; its
# paths: KS, KL, TR, MOD, BIN, T; klptop_section from guest-tools.sh).  See
# guest.sh's "Sections".
# shellcheck shell=bash

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
# kp_init: the kprobe events, once (KP=1), or an error saying why not
kp_init() {
	if kp_setup 2>/dev/null; then
		KP=1
	else
		KP=0
		err "kprobe events unavailable: no per-function intervals ($(tail -n 3 $TR/error_log | tr '\n' ' '))"
	fi
}

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

