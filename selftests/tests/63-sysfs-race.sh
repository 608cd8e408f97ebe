#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# klp-cost: 143
# klp-min-results: 26
# Concurrent sysfs writers: several processes write 0 and 1 to the same and
# to different enabled files at once.  Nothing may deadlock (every writer is
# bounded by a timeout).  Every successful write toggles the state (writing
# the current one fails with EINVAL), so each patch must end enabled
# exactly when the writers, counting their own successful writes, made an
# odd number of them; klp's klp:klp_patch_enable/disable tracepoints must
# show the same transitions, and the func_stacks agree.
# Then readers hammer a patch's sysfs attributes while klp_test_api
# registers, enables, disables and unregisters it over and over: a reader
# blocked on klp_mutex must never deadlock the unregister that removes the
# file it reads.
. "$(dirname "$0")/../lib.sh"
ktap_start "concurrent sysfs writers"

work=/tmp/sysfs-race
mkdir -p $work
klp_insmod klp || bail "core loads"
klp_insmod klp_test_target || bail "target loads"
for p in 1 2 3; do klp_insmod klp_test_p$p enable=0 || not_ok "p$p registers"; done

trace_no_comm
echo > $TRACEFS/trace
echo 1 > $TRACEFS/events/klp/klp_patch_enable/enable
echo 1 > $TRACEFS/events/klp/klp_patch_disable/enable
echo 1 > $TRACEFS/tracing_on

writer() {	# writer PATCH N OUT: N random 0/1 writes; OUT gets the successful ones
	local i ok=0
	for ((i = 0; i < $2; i++)); do
		echo $((RANDOM % 2)) > "$KLP_SYSFS/$1/enabled" && ok=$((ok + 1))
	done
	echo $ok > "$3"
	return 0	# same-state writes fail by design (EINVAL, on stderr)
}

# a hang is a writer past this; slower kernels (make check-debug) get longer
limit=$((240 * ${KLP_TIMEOUT_SCALE:-1}))
N=150
t0=$(date +%s)
pids=()
wp=(klp_test_p1 klp_test_p1 klp_test_p1 klp_test_p2 klp_test_p3)
for w in "${!wp[@]}"; do
	timeout $limit bash -c "$(declare -f writer); KLP_SYSFS=$KLP_SYSFS; writer ${wp[$w]} $N $work/ok.$w" \
		2> $work/err.$w &
	pids+=($!)
done
# readers too, since show takes the same mutex
timeout $limit bash -c "for i in \$(seq 300); do cat $KLP_SYSFS/*/klp_test_target/*/stack_pos > /dev/null; done" &
pids+=($!)
# and the state file, each read kept: one hold of the mutex, never torn
timeout $limit bash -c "for i in \$(seq 200); do cat $KLP_STATE > $work/state.\$i; done" &
pids+=($!)
rcs=""
for pid in "${pids[@]}"; do wait "$pid"; rcs+="$? "; done
diag "writers done in $(( $(date +%s) - t0 )) s"
echo 0 > $TRACEFS/tracing_on
assert_eq "no writer or reader hung (none hit the timeout)" "0 0 0 0 0 0 0" "${rcs% }"
torn=0
# (an empty read, one that failed, counts as torn)
for f in $work/state.*; do
	if [ -s "$f" ]; then torn=$((torn + $(state_torn < "$f"))); else torn=$((torn + 1)); fi
done
seqs=$(head -q -n 1 $work/state.* | sort -u | wc -l)
diag "200 reads of the state file saw $seqs different seqs"
assert_eq "200 reads of the state file during the writes: no stack torn" 0 "$torn"
check "the state file changed under the reads (more than one seq seen)" [ "$seqs" -gt 1 ]

# Each writer's failed writes: EINVAL (the state it wrote was already
# there) or EBUSY (the other patch's transition outlasted its own write);
# with its successful ones, N.
refused='write error: (Invalid argument|Device or resource busy)$'
for w in "${!wp[@]}"; do
	refusals=$(grep -cE "$refused" $work/err.$w)
	okw=$(cat $work/ok.$w 2>/dev/null)
	assert_eq "writer $w (${wp[$w]}): successful plus EINVAL or EBUSY writes are $N, no other error" \
		"$N 0" "$([[ $okw =~ ^[0-9]+$ ]] && echo $((okw + refusals)) || echo "no count of its successful writes") $(grep -vcE "$refused" $work/err.$w)"
done

# writes PATCH: the successful writes to PATCH's enabled, all writers
writes() {
	local w n=0
	for w in "${!wp[@]}"; do
		[ "${wp[$w]}" = "$1" ] && n=$((n + $(cat $work/ok.$w)))
	done
	echo $n
}
# transitions PATCH: the successful ones klp traced for PATCH, in the
# core's order (seq; the per-CPU buffers merge by timestamp, which TCG ties)
transitions() {
	sed -n "s/.*klp_patch_\(enable\|disable\): seq=\([0-9]*\) patch=$1 ret=0\$/\2 \1/p" $TRACEFS/trace |
		sort -n | cut -d' ' -f2
}
for p in 1 2 3; do
	n=$(writes klp_test_p$p)
	want=$((n % 2))	# registered disabled; each successful write toggles
	diag "p$p: $n successful writes"
	assert_eq "p$p: enabled is what its writers' $n successful writes made it" "$want" \
		"$(patch_enabled klp_test_p$p)"
	assert_eq "p$p: its funcs are patched exactly when enabled" "$want $want" \
		"$(func_attr klp_test_p$p klp_test_target klp_target_a patched) $(func_attr klp_test_p$p klp_test_target klp_target_b patched)"
	# cross-check with klp's own tracepoints: from disabled, n toggles are
	# enable, disable, enable... in the core's order
	assert_eq "p$p: klp traced $n transitions, enable and disable in turn" \
		"$n 0" \
		"$(transitions klp_test_p$p | wc -l) $(transitions klp_test_p$p |
			awk '$1 != (NR % 2 ? "enable" : "disable") { bad++ } END { print bad + 0 }')"
done

# The winner is the enabled patch whose last enable came last.
winner=$(sed -n 's/.*klp_patch_enable: seq=\([0-9]*\) patch=klp_test_p\([123]\) ret=0$/\1 \2/p' $TRACEFS/trace |
	sort -n | cut -d' ' -f2 | tac |
	while read -r p; do [ "$(patch_enabled klp_test_p$p)" = 1 ] && { echo $p; break; }; done)
if [ -n "$winner" ]; then
	assert_eq "winner is the most recently enabled patch" "$((winner * 1000 + 1)) 1/$(cat $KLP_SYSFS/klp_test_p*/enabled | grep -c 1)" \
		"$(target a) $(func_attr klp_test_p$winner klp_test_target klp_target_a stack_pos)/$(func_attr klp_test_p$winner klp_test_target klp_target_a stack_depth)"
else
	assert_eq "no patch enabled: original runs" 100 "$(target a)"
fi
check "the trace buffer did not overflow" eval "! grep -q 'LOST' $TRACEFS/trace"
state=$(cat $KLP_STATE)
assert_eq "the state file's seq is the last event's, its patches' enabled are sysfs's" \
	"seq $(cat /sys/kernel/debug/klp/seq) $(for p in 1 2 3; do echo -n "$(patch_enabled klp_test_p$p)"; done)" \
	"$(head -n 1 <<< "$state") $(awk '$1 == "patch" && $2 ~ /^klp_test_p[123]$/ { printf "%s", $3 }' <<< "$state")"

# --- unregister under readers ---------------------------------------------
# klp_test_api's patch (klp_target_c -> 8003) goes through CYCLES
# register/enable/disable/unregister rounds while readers cat each of its
# attributes in a loop; the files come and go under them.
klp_insmod klp_test_api || bail "api module loads"
CTL=/sys/kernel/debug/klp_test_api/ctl
CYCLES=100
api=$KLP_SYSFS/klp_test_api
func=$api/klp_test_target/klp_target_c
attrs="$api/enabled $api/klp_test_target/loaded $func/id $func/patched $func/stack_pos $func/stack_depth $func/old_addr $func/new_func"
reader() {	# reader STOPFILE FILES...: read them until STOPFILE exists; prints reads
	local stop=$1 n=0 f
	shift
	while [ ! -e "$stop" ]; do
		for f in "$@"; do
			{ read -r _ < "$f"; } 2>/dev/null && n=$((n + 1))
		done
	done
	echo $n
}
# cycles N: N rounds of the four calls; prints what went wrong, nothing if
# every call returned 0 and the patch was live exactly while enabled
cycles() {
	local i cmd got
	for ((i = 1; i <= $1; i++)); do
		for cmd in register enable disable unregister; do
			echo $cmd > $CTL
			read -r got < $CTL
			[ "$got" = "$cmd 0" ] && continue
			echo "round $i: $got"
			return
		done
	done
}
rm -f $work/stop
rpids=()
for r in 1 2 3; do
	timeout $limit bash -c "$(declare -f reader); reader $work/stop $attrs" > $work/reads.$r &
	rpids+=($!)
done
t0=$(date +%s)
timeout $limit bash -c "CTL=$CTL; $(declare -f cycles); cycles $CYCLES" > $work/cycles
crc=$?
touch $work/stop
rcs=""
for pid in "${rpids[@]}"; do wait "$pid"; rcs+="$? "; done
diag "$CYCLES register/enable/disable/unregister cycles in $(( $(date +%s) - t0 )) s; reads: $(cat $work/reads.* | paste -sd' ')"
assert_eq "the cycles did not hang (no timeout)" 0 "$crc"
assert_eq "every register, enable, disable and unregister returned 0" "" "$(cat $work/cycles)"
assert_eq "no reader hung (none hit the timeout)" "0 0 0" "${rcs% }"
check "the readers read while the patch was registered" \
	test "$(cat $work/reads.* | awk '{ s += $1 } END { print s + 0 }')" -gt 0
check "the sysfs dir is gone at the end" test ! -e "$api"
assert_eq "klp_target_c runs the original again" 300 "$(target c)"
ktap_finish
