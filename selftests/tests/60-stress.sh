#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# klp-cost: 290
# klp-accel: tcg,thread=single
# klp-min-results: 27
# Stress: every CPU calls klp_target_a in a tight kernel loop while three
# patches are enabled, disabled, stacked and unstacked 1000 times in random
# order, klptop's BPF counters and perf stat attached throughout.  Every
# call must land on the func of an enabled patch, the original only while
# no patch is enabled: no original entry between two transitions that leave
# a patch enabled, nor during a transition from one enabled set to another
# (the switch itself), and in phase 1 none at all over the whole run; the
# BPF counts per winner must equal the calls that got that winner's value,
# and with the original entries the calls made; perf must count exactly
# what BPF counted.  boot.sh fails the group on any WARN/BUG/oops.
#
# Phase 1 keeps p1 enabled (the func_stack never empties); phase 2 toggles
# all three, so the ftrace_ops is registered and unregistered under the
# calls.  One TCG thread for both vCPUs: with QEMU's multi-threaded TCG,
# a klp:klp_redirect consumer (perf or BPF) on both vCPUs while an
# ftrace_ops is unregistered under the calls soft-locks both vCPUs at the
# patched function's first byte within a few unregisters (apparently a vCPU
# retrapping on the int3 of ftrace's patching that the other vCPU already
# removed); with a single TCG thread the same cycles pass.
. "$(dirname "$0")/../lib.sh"
ktap_start "stress: calls on every CPU during 1000 random transitions"

work=/tmp/stress
mkdir -p $work
KT_PID=
trap '[ -n "$KT_PID" ] && kill "$KT_PID" 2>/dev/null; touch $work/stop' EXIT

klp_insmod klp || bail "core loads"
klp_insmod klp_test_target || bail "target loads"
for p in 1 2 3; do klp_insmod klp_test_p$p enable=0 || bail "p$p registers"; done
klptop_attach $work/klptop.json || bail "klptop's BPF counters attach"
ok "klptop attached, hits map id $KT_MAP"
addr_a=$(map_addr "$(func_attr klp_test_p1 klp_test_target klp_target_a old_addr)")
declare -A id
for p in 1 2 3; do id[$p]=$(func_attr klp_test_p$p klp_test_target klp_target_a id); done

LOOP=20000
ncpu=$(nproc)

start_workers() {
	local cpu
	rm -f $work/stop $work/n.*
	echo > "$KLP_TARGET/values" || not_ok "the values histogram resets"
	workers=()
	for ((cpu = 0; cpu < ncpu; cpu++)); do
		# niced, so that the transitions are not starved by the callers
		nice -n 19 taskset -c $cpu bash -c "n=0; while [ ! -e $work/stop ]; do
			echo 'a $LOOP' > $KLP_TARGET/call || exit 1; n=\$((n + 1))
			echo \$n > $work/n.$cpu; done" &
		workers+=($!)
	done
}

# stop_workers: CALLS = the calls made; WORKERS_BAD = each worker that
# failed (a write to the call file failed, or it never called) or made
# no calls on its CPU, as "cpuN:rc=R,loops=L"
stop_workers() {
	local cpu rc n
	touch $work/stop
	WORKERS_BAD=
	for cpu in "${!workers[@]}"; do
		wait "${workers[$cpu]}"
		rc=$?
		n=$(cat $work/n.$cpu 2>/dev/null)
		[ "$rc" = 0 ] && [ "${n:-0}" -gt 0 ] || WORKERS_BAD+="cpu$cpu:rc=$rc,loops=${n:-none} "
	done
	CALLS=$(cat $work/n.* | awk -v l=$LOOP '{ s += $1 * l } END { print s }')
}

# read_entered: ENTERED = original klp_target_a entries, with builtins only
# (no fork), so that the window between two transitions stays short;
# empty, and fails, if there is no count to read
read_entered() {
	local f v
	ENTERED=
	while read -r f v; do
		[ "$f" = a ] && [[ $v =~ ^[0-9]+$ ]] && { ENTERED=$v; return; }
	done < "$KLP_TARGET/entered"
	return 1
}

# all_called: every worker has finished at least one loop of calls
all_called() {
	local cpu
	for ((cpu = 0; cpu < ncpu; cpu++)); do
		[ -e $work/n.$cpu ] || return 1
	done
}

# toggle_random N PATCHES...: at least N random enable/disable flips, one
# sysfs write each, and more (up to 10N) until every CPU's worker has
# called: a niced worker sharing its CPU with this loop can otherwise be
# starved through all N.  A write may return with its transition still
# running (a task left to a later sweep, doc/sysfs-abi.md), so each switch
# lasts until the patch's transition file reads 0 again; the next write
# comes only after it.  The original's entries are read right before each
# write and right after its transition completed, so the reads cut the
# whole run into the times between two switches and the switches: the
# original must not run in a time between switches that leaves a patch
# enabled, nor in a switch from one enabled set to another (until a patch
# enabled from none has switched every task, the tasks not yet switched
# still run the original).  Prints the flips, the failed writes (refused,
# or a transition not done within 30 s) and the original entries seen
# where it must not run ("unread" if a read of them failed).
declare -A state
toggle_random() {
	local n=$1 i p failed=0 leaked=0 last any before unread=0 tr t_end outlasted=0
	shift
	local pool=("$@")
	for p in 1 2 3; do state[$p]=$(patch_enabled klp_test_p$p); done
	read_entered || unread=1
	last=$ENTERED
	for ((i = 0; ; i++)); do
		any=$((state[1] | state[2] | state[3]))
		read_entered || unread=1
		[ $any = 1 ] && leaked=$((leaked + ENTERED - last))
		last=$ENTERED
		[ $i -ge $n ] && { all_called || [ $i -ge $((n * 10)) ]; } && break
		before=$any
		p=${pool[RANDOM % ${#pool[@]}]}
		state[$p]=$((1 - state[$p]))
		if echo ${state[$p]} 2> /dev/null > "$KLP_SYSFS/klp_test_p$p/enabled"; then
			# its transition's end, read with builtins (no fork)
			t_end=$((EPOCHSECONDS + 30))
			read -r tr < "$KLP_SYSFS/klp_test_p$p/transition"
			[ "$tr" = 0 ] || outlasted=$((outlasted + 1))
			while [ "$tr" != 0 ] && [ $EPOCHSECONDS -lt $t_end ] &&
			      read -r tr < "$KLP_SYSFS/klp_test_p$p/transition"; do
				:
			done
			[ "$tr" = 0 ] || failed=$((failed + 1))
		else
			state[$p]=$((1 - state[$p]))
			failed=$((failed + 1))
		fi
		any=$((state[1] | state[2] | state[3]))
		read_entered || unread=1
		[ $before = 1 ] && [ $any = 1 ] && leaked=$((leaked + ENTERED - last))
		last=$ENTERED
	done
	[ $unread = 1 ] && leaked=unread
	echo "# $outlasted of $i transitions outlasted their write" >&2
	echo $i $failed $leaked
}

# check_phase NAME CALLS ENTERED0 BPF_BEFORE: the values the calls got,
# the original entries and klptop's BPF counts agree with the calls made
check_phase() {
	local name=$1 calls=$2 e0=$3 before=$4 hist want got bpf orig entries
	check "$name: calls were made" test "${calls:-0}" -gt 0
	hist=$(cat "$KLP_TARGET/values")
	assert_eq "$name: every call got the original's or a patch's value" "" \
		"$(awk 'NF { n++ } NF && ($1 == "lost" || ($1 != 100 && $1 != 1001 && $1 != 2001 && $1 != 3001))
			END { if (!n) print "no values recorded" }' <<< "$hist")"
	assert_eq "$name: the values add up to the calls" "$calls" \
		"$(awk '{ s += $2 } END { print s + 0 }' <<< "$hist")"
	orig=$(awk '$1 == 100 { print $2 }' <<< "$hist")
	read_entered
	entries=$(count_diff "entries of klp_target_a" "$ENTERED" "$e0")
	assert_eq "$name: original values equal original entries" "$entries" "${orig:-0}"

	bpf_counts > $work/bpf.after
	want=$(for p in 1 2 3; do
		awk -v v=$((p * 1000 + 1)) -v id=${id[$p]} '$1 == v && $2 { print id, $2 }' <<< "$hist"
	done | sort)
	got=$(awk -v a="$addr_a" 'FILENAME == ARGV[1] { old[$2] = $3; next }
		$1 == a && $3 != old[$2] { print $2, $3 - old[$2] }' "$before" $work/bpf.after | sort)
	assert_eq "$name: BPF counts per winner equal the calls that got its value" "$want" "$got"
	bpf=$(awk '{ s += $2 } END { print s + 0 }' <<< "$got")
	assert_eq "$name: BPF counts plus original entries equal the calls" "$calls" \
		"$([[ $entries =~ ^[0-9]+$ ]] && echo $((bpf + entries)) || echo "$entries")"
}

# run_phase NAME LEAK-TEXT ALWAYS PATCHES...: 500 random transitions of
# PATCHES under the calls, perf counting beside klptop, then every check;
# ALWAYS=1: a patch stays enabled throughout, so the original's entry
# count must not move at all from before the callers start to after they
# stopped.
run_phase() {
	local name=$1 leak_text=$2 always=$3 e0 t0 flips failed leaked entries
	shift 3
	read_entered
	e0=$ENTERED
	bpf_counts > $work/bpf.before
	check "$name: perf stat counts on every CPU" perf_count_start $work/perf.csv
	start_workers
	t0=$(date +%s)
	read -r flips failed leaked <<< "$(toggle_random 500 "$@")"
	stop_workers
	perf_count_stop $work/perf.csv
	diag "$name: $CALLS calls on $ncpu CPUs during $flips transitions in $(( $(date +%s) - t0 )) s"
	assert_eq "$name: every CPU's worker called to the end and exited 0" "" "${WORKERS_BAD% }"
	assert_eq "$name: every transition write succeeded and its transition completed" 0 "$failed"
	assert_eq "$name: $leak_text" 0 "$leaked"
	if [ "$always" = 1 ]; then
		read_entered
		assert_eq "$name: the original was never entered, over the whole run" 0 \
			"$(count_diff "entries of klp_target_a" "$ENTERED" "$e0")"
	fi
	check_phase "$name" "$CALLS" "$e0" $work/bpf.before
	read_entered
	entries=$(count_diff "entries of klp_target_a" "$ENTERED" "$e0")
	assert_eq "$name: perf counted exactly the redirected calls" \
		"$([[ $entries =~ ^[0-9]+$ ]] && echo $((CALLS - entries)) || echo "$entries")" \
		"$PERF_COUNT"
}

# Phase 1: p1 stays enabled; p2 and p3 stack and unstack over it.
check "p1 enabled" set_enabled klp_test_p1 1
run_phase "phase 1" "the original never ran, between or during the switches" 1 2 3
# Phase 2: all three, so the stack also empties and refills.
run_phase "phase 2" "the original ran only while no patch was enabled" 0 1 2 3

# Final state matches the last writes.
want=""
for p in 1 2 3; do want+="$(patch_enabled klp_test_p$p)"; done
got=""
for p in 1 2 3; do got+="$(func_attr klp_test_p$p klp_test_target klp_target_a patched)"; done
assert_eq "each patch's funcs patched exactly when it is enabled" "$want" "$got"
check "klptop survived the stress" kill -0 "$KT_PID"
ktap_finish
