# SPDX-License-Identifier: GPL-2.0
# bench/guest-transition.sh - bench/guest.sh's transition section, sourced
# by it (its helpers: out, err, measure, parse_sl, ours_settled, bi_gone,
# rmmod_retry; its paths: KS, KL, CM, TR, MOD, BIN).  See guest.sh's
# "Sections" for what it measures.
# shellcheck shell=bash disable=SC2154	# sl_* are parse_sl's

# klp:klp_transition in a tracefs instance of its own, for the sweeps
TR_INST=$TR/instances/klp-bench-tr
# bench_caller's loop, unswitched through a transition
LOOP=/sys/kernel/debug/klp_bench/loop

# tr_file CORE: the transition file of bench_tr under CORE
tr_file() {
	if [ "$1" = ours ]; then
		echo "$KS/bench_tr_ours/transition"
	else
		echo "$KL/bench_tr_builtin/transition"
	fi
}

# tr_hold: a klp_cm_holder kthread asleep in klp_cm_hold() (either
# version), the one there was stopped; 0 once its stack shows it there
tr_hold() {
	local pid
	if ! { echo 1 > "$CM/rearm" && echo 1 > "$CM/hold"; }; then
		err "transition: cannot start klp_cm's holder"
		return 1
	fi
	for _ in $(seq 500); do
		pid=$(pgrep -x klp_cm_holder | head -n 1)
		[ -n "$pid" ] && grep -qE '(klp_cm_hold|bench_tr_new_hold)\+' "/proc/$pid/stack" 2>/dev/null && return 0
		sleep 0.01
	done
	err "transition: no klp_cm_holder asleep in klp_cm_hold()"
	return 1
}

# tr_open CORE WHAT: the transition of bench_tr must still be running
tr_open() {
	[ "$(cat "$(tr_file "$1")" 2>/dev/null)" = 1 ] && return 0
	err "transition $1: the transition was over $2 (the holder did not hold it)"
	return 1
}

# tr_switch CORE 1|0: enable or disable bench_tr under CORE
tr_switch() {
	case $1:$2 in
	ours:*) echo "$2" > "$KS/bench_tr_ours/enabled" ;;
	builtin:1) insmod "$MOD/bench_tr_builtin.ko" ;;
	builtin:0) echo 0 > "$KL/bench_tr_builtin/enabled" ;;
	esac || err "transition $1: cannot switch bench_tr to $2"
}

# tr_events 1|0: klp's transition and blocked-task events on or off (never
# klp_redirect: the loop's calls are timed meanwhile)
tr_events() {
	# shellcheck disable=SC2015	# err if either fails, as meant
	echo "$1" > "$TR_INST/events/klp/klp_transition/enable" &&
		echo "$1" > "$TR_INST/events/klp/klp_task_blocked/enable" ||
		err "transition: cannot set klp's events to $1 in $TR_INST"
}

# tr_loop_ready RUNS: until bench_caller's loop number RUNS + 1 (a new
# one, not the last one's figures) has timed a chunk
tr_loop_ready() {
	local n v before after
	for _ in $(seq 500); do
		read -r n v before after < "$LOOP"
		[ "$n" -gt "$1" ] && [ "$before" != -1.00 ] && return 0
		sleep 0.01
	done
	err "transition: bench_caller's loop timed no chunk (run $n after $1, value $v, $before $after)"
	return 1
}

# tr_unswitched CFG ROUND PID OLD: the loop of PID, unswitched since before
# the switch, times its calls during the transition: 0.3 s of chunks
# after the mark, then it stops, and must have got OLD (the version from
# before the switch) to the end
tr_unswitched() {
	local cfg=$1 r=$2 pid=$3 old=$4 n v before=-1 after=-1
	echo mark > "$LOOP"
	sleep 0.3
	echo stop > "$LOOP"
	wait "$pid" || err "transition $cfg round $r: bench_caller's loop failed"
	read -r n v before after < "$LOOP"
	[ "$v" = "$old" ] ||
		err "transition $cfg round $r: the unswitched loop (pid $pid) got $v, not $old; klp's events for it: $(grep -E "pid=$pid | (start|complete|reversed|forced) " "$TR_INST/trace" | tail -n 4 | tr -s ' \n' ' ')"
	out transition unswitched_before_ns "$cfg" "$r" "$before" ns
	out transition unswitched_ns "$cfg" "$r" "$after" ns
}

# tr_held CORE ROUND 1|0 EXPECT OLD: with the holder asleep and a loop on
# CPU 1 under bench_caller_hold(), enable (1) or disable (0) bench_tr;
# time the loop's calls (unswitched: OLD), then, the loop gone, the calls
# of this (switched: EXPECT) task while the transition is open; then
# release the holder and time until the transition completes
tr_held() {
	local core=$1 r=$2 to=$3 want=$4 old=$5 cfg res pid runs
	[ "$to" = 1 ] && cfg=enabling_$core || cfg=disabling_$core
	tr_hold || return
	echo > "$TR_INST/trace"
	tr_events 1
	read -r runs _ < "$LOOP"
	taskset -c 1 sh -c "echo run > $LOOP" &
	pid=$!
	tr_loop_ready "$runs"
	tr_switch "$core" "$to"
	tr_open "$core" "with the loop running"
	tr_unswitched "$cfg" "$r" "$pid" "$old"
	tr_events 0
	if tr_open "$core" "before the calls"; then
		MSEC=transition measure "$cfg" "$r" "$want"
		tr_open "$core" "after the calls"
	fi
	res=$("$BIN/switchlat" -T 120 -t "$(tr_file "$core")" write "$CM/release" 1) ||
		err "transition $cfg round $r: release: $res"
	parse_sl "$res"
	out transition release_complete_ms "$cfg" "$r" "$(ns_to_ms "$sl_trans")" ms
}

# tr_sweeps ROUND OP 1|0: switch bench_tr (ours) with no task blocked;
# the sweep count of its complete event
tr_sweeps() {
	local r=$1 op=$2 to=$3 n
	echo > "$TR_INST/trace"
	echo 1 > "$TR_INST/events/klp/klp_transition/enable"
	tr_switch ours "$to"
	ours_settled bench_tr_ours
	echo 0 > "$TR_INST/events/klp/klp_transition/enable"
	n=$(awk '/patch=bench_tr_ours / && / complete / {
		for (i = 1; i <= NF; i++) if ($i ~ /^sweep=/) s = substr($i, 7) }
		END { print s == "" ? -1 : s }' "$TR_INST/trace")
	[ "$n" != -1 ] || err "transition: no complete event of bench_tr_ours ($op, round $r)"
	out transition sweeps_at_complete "${op}_ours" "$r" "$n" count
}

transition_section() {
	local r core cores
	mkdir -p "$TR_INST" || err "no tracefs instance $TR_INST"
	for ((r = 1; r <= RT; r++)); do
		echo "# transition: round $r/$RT (t=$(cut -d. -f1 /proc/uptime)s)"
		echo 0 > "$CM/hold"
		tr_sweeps "$r" enable 1
		tr_sweeps "$r" disable 0
		((r % 2)) && cores="ours builtin" || cores="builtin ours"
		for core in $cores; do
			tr_held "$core" "$r" 1 4203 100
			tr_held "$core" "$r" 0 100 4203
			if [ "$core" = builtin ]; then
				bi_gone bench_tr_builtin && rmmod_retry bench_tr_builtin
			fi
		done
	done
	echo 0 > "$CM/hold"
}

