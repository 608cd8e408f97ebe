#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# klp-cost: 146
# klp-timeout: 900
# klp-accel: tcg,thread=single
# klp-min-results: 51
# Living next to the kernel's other ftrace users (scenarios after upstream's
# test-kprobe.sh, test-ftrace.sh and test-syscall.sh, written for klp):
#  - a kprobe event (no post_handler) and the function tracer on a patched
#    function see every call, exactly, while the patch keeps winning;
#  - a kprobe with a post_handler (IPMODIFY on 6.1) and a klp patch on one
#    function: whichever comes second fails with EBUSY and a message naming
#    the function, in both orders;
#  - bpftrace's kfunc (BPF fentry): refused on klp_target_a (the test
#    modules have no BTF), attached and counting exactly on a patched
#    vmlinux function; the patch wins either way;
#  - a patch on __x64_sys_getpid enabled and disabled while every CPU calls
#    getpid: no hang, the replacement answers exactly while enabled.
# One TCG thread: multi-threaded TCG hangs when ftrace rewrites a call site
# under parallel calls (an emulator problem, see ENVIRONMENT.md); the getpid
# part enables and disables the only patch of a function under such calls.
. "$(dirname "$0")/../lib.sh"
ktap_start "coexistence with kprobes, the function tracer, BPF fentry; a syscall patch"

N=1000
tmp=$(mktemp -d /tmp/klp-coexist.XXXXXX)
BT_PID=
LOOPS=()
trap 'touch $tmp/stop; [ -n "$BT_PID" ] && kill -INT -"$BT_PID" 2>/dev/null' EXIT

klp_insmod klp || bail "core loads"
klp_insmod klp_test_target || bail "target loads"
klp_insmod klp_test_p1 || bail "p1 patches klp_target_a and _b"
assert_eq "p1 wins" "1001 1002 300" "$(target a) $(target b) $(target c)"

# calls_a: N calls of klp_target_a from the kernel loop; VALUES is what
# they returned ("<value> <n>" per value), ENTERED the original's entries
calls_a() {
	local e0
	e0=$(entered a)
	echo > "$KLP_TARGET/values"
	target_call a $N > /dev/null
	VALUES=$(paste -sd' ' "$KLP_TARGET/values")
	ENTERED=$(count_diff "entries of klp_target_a" "$(entered a)" "$e0")
}

# patch_won WHAT: the last calls_a all got p1's value, no original entry
patch_won() {
	assert_eq "$1: all $N calls got p1's value, original never entered" \
		"1001 $N | 0" "$VALUES | $ENTERED"
}

# insmod_err MODULE ARGS...: load MODULE from the test modules, print what
# insmod said (empty if it loaded)
insmod_err() {
	local m=$1
	shift
	insmod "$KLP_MODS/$m.ko" "$@" 2>&1
}

# --- a kprobe event (kprobes' non-IPMODIFY ftrace_ops) ----------------------
KPE=klp_coexist/klp_coexist_a
kprobe_hits() {
	awk '$1 == "klp_coexist_a" { print $2 }' "$TRACEFS/kprobe_profile"
}
check "kprobe event on patched klp_target_a defined" \
	eval "echo 'p:$KPE klp_target_a' >> $TRACEFS/kprobe_events"
check "kprobe event enabled" eval "echo 1 > $TRACEFS/events/$KPE/enable"
diag "$(grep '^klp_target_a ' "$TRACEFS/enabled_functions")"
h0=$(kprobe_hits)
calls_a
assert_eq "kprobe event: exactly $N hits for $N calls" $N $(( $(kprobe_hits) - h0 ))
patch_won "kprobe event on the patched function"

# The other order: the patch enabled while the kprobe is already there.
check "p1 disabled under the kprobe event" set_enabled klp_test_p1 0
h0=$(kprobe_hits)
calls_a
assert_eq "p1 disabled: $N hits, the original ran $N times" "$N | 100 $N | $N" \
	"$(( $(kprobe_hits) - h0 )) | $VALUES | $ENTERED"
check "p1 re-enabled over the kprobe event" set_enabled klp_test_p1 1
h0=$(kprobe_hits)
calls_a
assert_eq "kprobe event first, patch second: exactly $N hits" $N $(( $(kprobe_hits) - h0 ))
patch_won "patch enabled after the kprobe event"
check "kprobe event disabled and removed" eval "echo 0 > $TRACEFS/events/$KPE/enable &&
	echo '-:$KPE' >> $TRACEFS/kprobe_events"
assert_eq "klp's ftrace_ops alone on klp_target_a again" 1 \
	"$(grep -c '^klp_target_a .*(1) .*klp_ftrace_handler' "$TRACEFS/enabled_functions")"

# --- the function tracer ----------------------------------------------------
check "function tracer filtered on klp_target_a" \
	eval "echo klp_target_a > $TRACEFS/set_ftrace_filter && echo function > $TRACEFS/current_tracer"
echo > "$TRACEFS/trace"
calls_a
echo 0 > "$TRACEFS/tracing_on"
assert_eq "function tracer: exactly $N entries for $N calls" $N \
	"$(grep -c ': klp_target_a <-klp_target_call_write' "$TRACEFS/trace")"
patch_won "function tracer on the patched function"
echo nop > "$TRACEFS/current_tracer"
echo > "$TRACEFS/set_ftrace_filter"
echo > "$TRACEFS/trace"
echo 1 > "$TRACEFS/tracing_on"

# --- a kprobe with a post_handler (kprobes' IPMODIFY ftrace_ops) -----------
KP_HITS=/sys/module/klp_test_kprobe/parameters/hits

# klp first: the kprobe module's insmod fails, its message names the function
dmesg_mark
out=$(insmod_err klp_test_kprobe func=klp_target_a)
check "post_handler kprobe on p1's klp_target_a refused with EBUSY" \
	eval '[[ $out == *"Device or resource busy"* ]]'
assert_eq "the kprobe module names the function and the error" \
	"klp_test_kprobe: kprobe with post_handler on function 'klp_target_a' refused: -EBUSY" \
	"$(dmesg_since | grep -o 'klp_test_kprobe: .*')"
check "no kprobe module left" test ! -e /sys/module/klp_test_kprobe
calls_a
patch_won "after the refused kprobe"

# The kprobe first (on klp_target_c, unpatched): the patch's insmod fails.
check "post_handler kprobe on unpatched klp_target_c loads" \
	eval '[ -z "$(insmod_err klp_test_kprobe func=klp_target_c)" ]'
target_call c $N > /dev/null
assert_eq "kprobe counts exactly $N calls of klp_target_c" $N "$(cat $KP_HITS)"
# The refused patch also names klp_target_a, patched by p1: nothing of it
# may be published before the hook of klp_target_c is refused (the search
# for the contested function waits for grace periods), so no caller of
# klp_target_a may reach it and no push of it may be traced.
inst=$TRACEFS/instances/klp_coexist
mkdir "$inst" && echo 1 > "$inst/events/klp/klp_func_push/enable"
echo > "$KLP_TARGET/values"
(while :; do target_call a 20000 > /dev/null; done) &
caller=$!
dmesg_mark
out=$(insmod_err klp_test_probe objname=klp_test_target funcs=klp_target_a,klp_target_c)
kill $caller 2>/dev/null; wait $caller 2>/dev/null
check "klp patch on the kprobed klp_target_c refused with EBUSY" \
	eval '[[ $out == *"Device or resource busy"* ]]'
assert_eq "no func of the refused patch was pushed (klp_func_push)" 0 \
	"$(grep -c 'klp_func_push: .* patch=klp_test_probe ' "$inst/trace")"
assert_eq "callers of klp_target_a only ever saw p1's 1001" 1001 \
	"$(awk '{ print $1 }' "$KLP_TARGET/values" | paste -sd' ')"
echo 0 > "$inst/events/klp/klp_func_push/enable"; rmdir "$inst"
assert_eq "the core names the function" 1 \
	"$(dmesg_since | grep -c "klp: function 'klp_target_c' is already modified by another IPMODIFY ftrace user")"
check "no sysfs entry left for the refused patch" test ! -e "$KLP_SYSFS/klp_test_probe"
assert_eq "klp_target_c original, kprobe still counting" "300 $((N + 1))" "$(target c) $(cat $KP_HITS)"
calls_a
patch_won "p1 on klp_target_a unaffected by the refused patch"

# Once the kprobe is gone, the same patch loads; then the kprobe is refused.
check "kprobe module removed" rmmod klp_test_kprobe
check "klp patch on klp_target_c loads now" klp_insmod klp_test_probe objname=klp_test_target funcs=klp_target_c
dmesg_mark
out=$(insmod_err klp_test_kprobe func=klp_target_c)
check "post_handler kprobe on the patched klp_target_c refused with EBUSY" \
	eval '[[ $out == *"Device or resource busy"* ]]'
assert_eq "the kprobe module names the function and the error" \
	"klp_test_kprobe: kprobe with post_handler on function 'klp_target_c' refused: -EBUSY" \
	"$(dmesg_since | grep -o 'klp_test_kprobe: .*')"
ec0=$(entered c)
assert_eq "klp_target_c patched, original not entered" "9000 0" \
	"$(target c) $(count_diff "entries of klp_target_c" "$(entered c)" "$ec0")"

# --- BPF fentry (bpftrace kfunc) -------------------------------------------
# bt_start PROG: bpftrace in a process group of its own; returns once its
# fentry link is attached, or it exited (then BT_PID is empty)
bt_start() {
	local i
	setsid bpftrace -e "$1" > "$tmp/bt.out" 2>&1 < /dev/null &
	BT_PID=$!
	for ((i = 0; i < 600; i++)); do
		bpftool link show 2> /dev/null | grep -q 'attach_type trace_fentry' && return 0
		kill -0 "$BT_PID" 2> /dev/null || break
		sleep 0.2
	done
	wait "$BT_PID"
	BT_PID=
	return 1
}

bt_stop() {	# BT_MAP: bpftrace's map, printed on SIGINT (not in a subshell: waits)
	kill -INT -"$BT_PID"
	wait "$BT_PID"
	BT_PID=
	BT_MAP=$(grep '^@' "$tmp/bt.out")
}

# klp_target_a: the test modules are built without BTF, so bpftrace finds
# no BTF for the function and attaches nothing.
if bt_start 'kfunc:klp_target_a { @n = count(); }'; then
	calls_a
	bt_stop
	assert_eq "kfunc:klp_target_a attached: exactly $N calls counted" "@n: $N" "$BT_MAP"
	patch_won "BPF fentry on klp_target_a"
else
	assert_eq "kfunc:klp_target_a refused: no BTF for the module function" \
		"ERROR: No BTF found for klp_target_a" "$(grep ERROR "$tmp/bt.out")"
	calls_a
	patch_won "after the refused kfunc:klp_target_a"
fi

# A patched vmlinux function (with BTF): the fentry program attaches beside
# klp's IPMODIFY ops and counts every call; the patch still wins.
check "the original /proc/cmdline is not empty" test -n "$(cat /proc/cmdline)"
check "klp patch on vmlinux cmdline_proc_show" \
	klp_insmod klp_test_probe2 funcs=cmdline_proc_show
if bt_start 'kfunc:cmdline_proc_show { @n = count(); }'; then
	ok "kfunc:cmdline_proc_show attached beside the patch"
	diag "$(grep '^cmdline_proc_show ' "$TRACEFS/enabled_functions")"
	got=$(for ((i = 0; i < 20; i++)); do cat /proc/cmdline; done)
	bt_stop
	assert_eq "kfunc:cmdline_proc_show: exactly 20 calls counted" "@n: 20" "$BT_MAP"
	assert_eq "the patch won all 20 reads (empty /proc/cmdline)" "" "$got"
else
	not_ok "kfunc:cmdline_proc_show attached beside the patch"
	diag "$(cat "$tmp/bt.out")"
fi

# --- a syscall patched and unpatched while every CPU calls it ---------------
klp_insmod klp_test_getpid enable=0 || bail "getpid patch registers"
GP_CALLS=/sys/module/klp_test_getpid/parameters/calls

# getpid_1000: 1000 getpid calls in one process, between two reads of the
# replacement's counter: "<counter delta> <calls not returning the tgid>"
getpid_1000() {
	perl -e 'sub c { open(my $f, "<", $ARGV[0]) or die; my $v = <$f>; chomp $v; $v }
		my ($p, $bad) = ($$, 0);	# reading $$ calls getpid
		my $c0 = c();
		for (1 .. 1000) { $bad++ if syscall(39) != $p }
		print c() - $c0, " $bad\n"' "$GP_CALLS"
}

assert_eq "getpid patch registered, not enabled: original answers" "0 0" "$(getpid_1000)"
check "getpid patch enabled" set_enabled klp_test_getpid 1
assert_eq "enabled: the replacement answers exactly 1000 of 1000, right tgid" "1000 0" "$(getpid_1000)"
check "getpid patch disabled" set_enabled klp_test_getpid 0
assert_eq "disabled: the original answers again" "0 0" "$(getpid_1000)"

# cpu_ticks PID: user plus system time of PID, in clock ticks
cpu_ticks() {
	awk '{ print $14 + $15 }' "/proc/$1/stat"
}

ncpu=$(nproc)
rm -f "$tmp/stop"
for ((cpu = 0; cpu < ncpu; cpu++)); do
	# each loop exits 1 as soon as getpid does not return its tgid
	nice -n 19 taskset -c $cpu perl -e 'my ($p, $n) = ($$, 0);
		until (-e $ARGV[0]) { for (1 .. 1000) { syscall(39) == $p or exit 1 } $n++ }
		print "$n\n"' "$tmp/stop" > "$tmp/gp.$cpu" &
	LOOPS+=($!)
done
sleep 1

CYCLES=5
grew=0
stopped=0
progressed=0
t0=$SECONDS
for ((i = 0; i < CYCLES; i++)); do
	set_enabled klp_test_getpid 1 || not_ok "cycle $i: enable failed"
	c0=$(cat $GP_CALLS)
	sleep 1
	c1=$(cat $GP_CALLS)
	[ "$c1" -gt "$c0" ] && grew=$((grew + 1))
	set_enabled klp_test_getpid 0 || not_ok "cycle $i: disable failed"
	c0=$(cat $GP_CALLS)
	r0=()
	for p in "${LOOPS[@]}"; do r0+=("$(cpu_ticks "$p")"); done
	sleep 1
	c1=$(cat $GP_CALLS)
	ran=0
	for j in "${!LOOPS[@]}"; do
		[ "$(cpu_ticks "${LOOPS[j]}")" -gt "${r0[j]}" ] && ran=$((ran + 1))
	done
	[ -n "$c0" ] && [ "$c1" = "$c0" ] && stopped=$((stopped + 1))
	# every loop ran during the disabled second
	[ "$ran" = "$ncpu" ] && progressed=$((progressed + 1))
done
touch "$tmp/stop"
fails=0
for p in "${LOOPS[@]}"; do wait "$p" || fails=$((fails + 1)); done
diag "$CYCLES enable/disable cycles under getpid on $ncpu CPUs in $((SECONDS - t0)) s;" \
	"loops of 1000 calls per CPU: $(cat "$tmp"/gp.* | paste -sd' ')"
assert_eq "every enabled phase: the replacement's counter grew" $CYCLES $grew
assert_eq "every disabled phase: the counter stood still" $CYCLES $stopped
assert_eq "every disabled phase: every CPU's loop kept calling" $CYCLES $progressed
assert_eq "every getpid on every CPU returned the caller's tgid" 0 $fails
check "the loops made calls on every CPU" eval \
	'[ "$(cat "$tmp"/gp.* | awk '\''$1 > 0'\'' | wc -l)" = "$ncpu" ]'
assert_eq "getpid patch disabled at the end, original answers" "0 0 0" \
	"$(patch_enabled klp_test_getpid) $(getpid_1000)"
diag "script time: ${SECONDS} s"
ktap_finish
