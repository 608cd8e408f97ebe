#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# klp-cost: 130
# klp-accel: tcg,thread=single
# klp-min-results: 94
# The consistency model at its edges, each one a sequence that freed code
# under a sleeping task or mixed versions before (issue 31's defects), on
# the torture's modules (selftests/torture: a sleeper parks inside the code
# its call reached): a disable completing while a caller is held in the
# handler between reading the winner and the mark (fault build), on both
# handler paths; an exec by a thread that is not its group's leader, and a
# child, during a held transition; the reversal of a disable below another
# patch; the reversal of a replace patch's disable under a newer patch; a
# forced replace; the disable of a patch under a forced one; a forced
# disable.  The last three run on klp and on the kernel's livepatch alike (side k and side b), which
# must give the same results.  Single-threaded TCG: first patches of a
# function are enabled under callers (doc/testing.md).
. "$(dirname "$0")/../lib.sh"
ktap_start "the consistency model's edges"

K=/sys/kernel/debug/ktt
TT=$KLP_TOP/build/torture
klp_events_load || bail "events"
insmod "$KLP_TOP/build/core-fault/klp.ko" || bail "core (fault build) loads"
for m in ktt_park ktt_tgt_k ktt_tgt_b; do
	insmod "$TT/$m.ko" || bail "$m loads"
done
DELAY=/sys/module/klp/parameters/redirect_delay_ms

side=k
root() { [ $side = k ] && echo "$KLP_SYSFS" || echo /sys/kernel/livepatch; }
mod() { echo "ktt_${1}_$side"; }
ins() { insmod "$TT/$(mod "$1").ko"; }
attr() { cat "$(root)/$(mod "$1")/$2" 2>/dev/null || echo gone; }
put() { echo "$3" > "$(root)/$(mod "$1")/$2"; }
quiet() { [ "$(attr "$1" transition)" != 1 ]; }
fn() { tr ' ' '\n' < "$K/$side/calls" | sed -n "s/^$1=//p"; }
count() { awk -v f="$1" -v v="$2" '$1 == f && $2 == v { n = $3 } END { print n + 0 }' "$K/$side/counts"; }
park() {	# park SLOT FN: sleeper SLOT of the side parks in FN
	echo "park $side $2 $1" > "$K/ctl" &&
		wait_until 10 eval "grep -q '^$side s$1 parked ' $K/sleepers"
}
parked_in() { awk -v s="$side" -v n="s$1" '$1 == s && $2 == n { print $5 }' "$K/sleepers"; }
release() {
	echo "release $side $1" > "$K/ctl" &&
		wait_until 10 eval "grep -q '^$side s$1 returned ' $K/sleepers"
}
rm_err() {	# rm_err KIND: rmmod's result, "ok" or "in use"
	local out
	out=$(rmmod "$(mod "$1")" 2>&1) && { echo ok; return; }
	case $out in *"in use"*) echo "in use" ;; *) echo "$out" ;; esac
}
# a held transition: still held HELD s after it started
held() { sleep 1.5; [ "$(attr "$1" transition)" = 1 ]; }
gone() { wait_until 20 eval "[ ! -d $(root)/$(mod "$1") ]"; }

# --- a disable completes only once no handler can pair an old winner -------
# pp on rc, both changing outer and inner: a sleeper in pp's inner holds
# pp's disable.  Meanwhile a call made by a switched task (a child of
# this shell, which the sweeps switched while it slept) is held in the
# handler between reading the winner, pp's outer, and reading the mark
# (the fault build's redirect_delay_ms, 8 s); the sleeper is released,
# and the transition completes (its event) while that call is held.  The
# call must run the code of its task's state, rc's, and no call may reach
# pp's code once the disable has completed: pp's module may go then, and
# pp's outer would pair with rc's inner.  Both handler paths.  (A pop
# that empties the stack would not do: ftrace's unhooking waits for its
# handlers.)
#
# delay_race WHAT: one try; hit=1 if the transition completed while the
# call was held (the sweep that completes it may come too late: then
# delay_races tries again, up to three times)
delay_race() {
	local what=$1 caller got before after
	got=$(mktemp)
	check "$what: rc, then pp on top" \
		eval 'ins rc && wait_until 20 quiet rc && ins pp && wait_until 20 quiet pp'
	assert_eq "$what: outer is pp's" 31 "$(fn outer)"
	check "$what: a sleeper parks in pp's inner" park 0 inner
	check "$what: it holds pp's disable" eval 'put pp enabled 0 && held pp'
	echo > "$inst/trace"
	echo 8000 > $DELAY
	cat "$K/k/pair" > "$got" &
	caller=$!
	sleep 1
	echo 0 > $DELAY
	check "$what: a call by a switched task is held in the handler" kill -0 $caller
	check "$what: the sleeper is released" release 0
	if wait_until 30 grep -q "klp_transition: .* patch=$(mod pp) target=0 complete " "$inst/trace" &&
	   kill -0 $caller 2> /dev/null; then
		hit=1
	else
		diag "$what: the disable's complete event came after the held call had gone on"
	fi
	check "$what: the disable completes" wait_until 30 quiet pp
	before=$(count outer 31)
	wait $caller
	after=$(count outer 31)
	assert_eq "$what: the held call ran rc's outer, its task's state" 51 "$(cat "$got")"
	assert_eq "$what: no call ran pp's outer after its disable completed" "$before" "$after"
	check "$what: pp's module goes" wait_until 20 eval '[ "$(rm_err pp)" = ok ]'
	assert_eq "$what: outer is rc's" 51 "$(fn outer)"
	check "$what: rc disabled and removed" \
		eval 'put rc enabled 0 && gone rc && [ "$(rm_err rc)" = ok ]'
	rm -f "$got"
}
inst=$TRACEFS/instances/klp-edges
mkdir -p "$inst" || bail "trace instance"
echo 1 > "$inst/events/klp/klp_transition/enable" || bail "klp_transition"
# delay_races WHAT: up to 3 tries, until one hits the window
delay_races() {
	local try=1
	hit=0
	delay_race "$1"
	while [ $hit = 0 ] && [ $try -lt 3 ]; do
		try=$((try + 1))
		delay_race "$1, try $try"
	done
	check "$1: the disable completed (its event) while the call was held, in try $try" \
		test $hit = 1
}
delay_races "untraced"
echo 1 > "$inst/events/klp/klp_redirect/enable" || bail "klp_redirect"
delay_races "traced"
echo 0 > "$inst/events/klp/klp_redirect/enable"
echo 0 > "$inst/events/klp/klp_transition/enable"
rmdir "$inst"

# --- exec by a thread that is not the leader, and children -----------------
# klp_test_exec changes ktt_f3, flush_signal_handlers() and kthreadd()
# together.  kthreadd sleeps in its old code for good: it holds the
# transition, and a kthread made meanwhile (kthreadd makes it) starts
# unswitched and runs the original ktt_f3, while a child of the switched
# shell runs the patched one.  A process's leader whose stack reads as
# unreliable (the fault build's unreliable_pid) holds it too; its other
# thread, asleep in user space, switches; then it execs: de_thread()
# kills the leader and gives the thread the leader's pid, and the thread
# runs flush_signal_handlers() in its own state, the patched one, not in
# the leader's.  (A leader parked in old code would not do: killed, it
# leaves that code and switches on its way out.)  Written back to 0, the
# transition goes back at once: kthreadd never left the unpatched state.
tmp=$(mktemp -d)
python3 "$KLP_TOP/selftests/torture/ktt_exec.py" "$tmp/go" "$tmp/tid" &
leader=$!
wait_until 10 eval "[ -s $tmp/tid ]"
thread=$(cat "$tmp/tid")
UNRELIABLE=/sys/module/klp/parameters/unreliable_pid
echo "$leader" > $UNRELIABLE
check "exec: klp_test_exec loads" insmod "$(klp_modpath klp_test_exec)"
echo "$leader" > /sys/kernel/debug/klp_test_exec/pid
XS=$KLP_SYSFS/klp_test_exec
check "exec: the leader and kthreadd hold the transition" \
	eval "sleep 1.5; [ \"\$(cat $XS/transition)\" = 1 ]"
check "exec: klp/state names the leader, its stack unreliable" \
	wait_until 5 eval "grep -q '^blocked $leader 2 - ' /sys/kernel/debug/klp/state"
check "exec: klp/state names kthreadd in kthreadd" \
	eval "grep -q '^blocked 2 3 kthreadd ' /sys/kernel/debug/klp/state"
check "exec: the other thread ($thread) has switched (not named)" \
	eval "! grep -q '^blocked $thread ' /sys/kernel/debug/klp/state"
assert_eq "fork: a child of the switched shell runs the patched ktt_f3" 500 "$(fn f3)"
echo "spawn k f3" > "$K/ctl"
wait_until 10 eval "[ \"\$(cat $K/k/spawned)\" != -2 ]"
assert_eq "fork: a kthread made by the unswitched kthreadd runs the original ktt_f3" \
	0 "$(cat $K/k/spawned)"
touch "$tmp/go"
wait $leader
echo 0 > $UNRELIABLE
assert_eq "exec: the thread ran the patched flush_signal_handlers() under its leader's pid" \
	1 "$(cat /sys/kernel/debug/klp_test_exec/calls)"
check "exec: kthreadd still holds it" eval "[ \"\$(cat $XS/transition)\" = 1 ]"
check "exec: written back to 0, it completes at once" \
	eval "echo 0 > $XS/enabled && wait_until 5 eval '[ ! -d $XS ]'"
check "exec: removed" wait_until 20 eval "rmmod klp_test_exec 2>/dev/null"
rm -rf "$tmp"

# --- the reversal of a disable below another patch --------------------------
# p2b (f1 f2) under p1a (f1); a sleeper in p2b's f2 holds p2b's disable;
# written back to 1, the transition goes to patched: the sleeper is there
# already, the others come back from the func below p2b's f1 (the
# original) and f2 (the original): it completes at once.  (6.1's and
# 6.12's builtin read the func_stack's head as the func below the bottom
# one here, ktt_sides.MEANT: not compared.)
check "below: p2b, p1a on top" eval 'ins p2b && wait_until 20 quiet p2b && ins p1a && wait_until 20 quiet p1a'
check "below: a sleeper parks in p2b's f2" park 2 f2
check "below: it holds p2b's disable" eval 'put p2b enabled 0 && held p2b'
check "below: written back, the transition completes" \
	eval 'put p2b enabled 1 && wait_until 5 quiet p2b'
assert_eq "below: p2b enabled, f1 p1a's, f2 p2b's" "1 11 22" "$(attr p2b enabled) $(fn f1) $(fn f2)"
check "below: released" release 2
check "below: both disabled and removed" \
	eval 'put p1a enabled 0 && gone p1a && put p2b enabled 0 && gone p2b &&
	      [ "$(rm_err p1a) $(rm_err p2b)" = "ok ok" ]'

# --- the reversal of a replace patch's disable, under a newer patch ---------
# st2 replaces everything; p1b goes on top of its f1; a sleeper in st2's
# outer holds st2's disable; written back to 1, st2 is enabled again and
# p1b, enabled after it, stays enabled and wins f1 (a replace takes over
# only the patches enabled before it).
check "replace: st2, then p1b on top" eval 'ins st2 && wait_until 20 quiet st2 && ins p1b && wait_until 20 quiet p1b'
check "replace: a sleeper parks in st2's outer" park 0 outer
check "replace: it holds st2's disable" eval 'put st2 enabled 0 && held st2'
check "replace: written back, the transition completes" \
	eval 'put st2 enabled 1 && wait_until 5 quiet st2'
assert_eq "replace: st2 and p1b enabled; f1 p1b's, f2 st2's" "1 1 12 92" \
	"$(attr st2 enabled) $(attr p1b enabled) $(fn f1) $(fn f2)"
check "replace: released" release 0
check "replace: both disabled and removed" \
	eval 'put p1b enabled 0 && gone p1b && put st2 enabled 0 && gone st2 &&
	      [ "$(rm_err p1b) $(rm_err st2)" = "ok ok" ]'

# --- force, on both sides: what it pins, what still waits -------------------
for side in k b; do
	# a forced replace keeps the patch it replaced, a task inside it
	check "$side: forced replace: p1a, a sleeper in its f1" \
		eval 'ins p1a && wait_until 20 quiet p1a && park 0 f1'
	assert_eq "$side: forced replace: the sleeper is in p1a" "$(mod p1a)" "$(parked_in 0)"
	check "$side: forced replace: rc's enable is held" eval 'ins rc && held rc'
	check "$side: forced replace: forced" eval 'put rc force 1 && wait_until 10 quiet rc'
	check "$side: forced replace: p1a replaced, freed" gone p1a
	assert_eq "$side: forced replace: p1a's module stays (a task is inside)" "in use" "$(rm_err p1a)"
	check "$side: forced replace: released" release 0
	assert_eq "$side: forced replace: p1a's module stays for good" "in use" "$(rm_err p1a)"
	check "$side: forced replace: rc disabled" eval 'put rc enabled 0 && gone rc'

	# a patch under a forced one: its disable waits for the task inside it
	check "$side: under a forced patch: p2a, a sleeper in its f1" \
		eval 'ins p2a && wait_until 20 quiet p2a && park 1 f1'
	check "$side: under a forced patch: p1b's enable is held, then forced" \
		eval 'ins p1b && held p1b && put p1b force 1 && wait_until 10 quiet p1b'
	assert_eq "$side: under a forced patch: f1 is p1b's" 12 "$(fn f1)"
	check "$side: under a forced patch: p2a's disable is held by the sleeper in its f1" \
		eval 'put p2a enabled 0 && held p2a'
	assert_eq "$side: under a forced patch: p2a's module stays" "in use" "$(rm_err p2a)"
	check "$side: under a forced patch: released, the disable completes" \
		eval 'release 1 && wait_until 20 quiet p2a && gone p2a'
	# a forced enable pinned nothing: the disable below waited for its task
	assert_eq "$side: under a forced patch: p2a's module goes" ok "$(rm_err p2a)"

	# a forced disable keeps the patch it takes off, a task inside it
	check "$side: forced disable: a sleeper in p1b's f1" park 0 f1
	assert_eq "$side: forced disable: the sleeper is in p1b" "$(mod p1b)" "$(parked_in 0)"
	check "$side: forced disable: held, then forced" \
		eval 'put p1b enabled 0 && held p1b && put p1b force 1 && gone p1b'
	check "$side: forced disable: released" release 0
	assert_eq "$side: forced disable: p1b's module stays for good" "in use" "$(rm_err p1b)"
done
assert_eq "no call mixed versions on either side" "0 0" "$(cat $K/k/mixed) $(cat $K/b/mixed)"
ktap_finish
