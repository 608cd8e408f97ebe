#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# selftests/run.sh runs two guest groups at once only where that costs
# nothing: two on single-threaded TCG overlap, any other group runs alone;
# every group is counted once, its output shown whole, a crash fails that
# group alone and names it; the groups that take one slot start first,
# the dearest first (# klp-cost:), then those that take both.
# Driven with a fake boot script (no guest).
. "$(dirname "$0")/../lib.sh"
ktap_start "run.sh: guest groups two at a time where they fit"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/host" "$tmp/tests"
# fake boot.sh: logs "start NAME SECONDS.NS WEIGHT TIMEOUT" (its -t) and
# "end NAME SECONDS.NS", prints a TAP group of two
# lines with a pause between them, exits as the group's script says
cat > "$tmp/boot" <<'FAKE'
#!/bin/bash
t=${*: -1}
n=$(basename "$t" .sh)
[ "$1" = -t ] || exit 2
echo "start $n $(date +%s.%N) $KLP_GUEST_WEIGHT $2" >> "$KLP_FAKE_LOG"
echo "TAP version 13"
echo "ok 1 - $n first"
sleep 1.5
echo "ok 2 - $n second"
echo "1..2"
echo "end $n $(date +%s.%N)" >> "$KLP_FAKE_LOG"
exit "$(sed -n 's/^# exit: //p' "$t")"
FAKE
chmod +x "$tmp/boot"
group() {	# group NAME ACCEL EXIT
	printf '#!/bin/bash\n%s# exit: %s\n' "${2:+# klp-accel: $2
}" "$3" > "$tmp/tests/$1.sh"
}
group a-st1 tcg,thread=single 0
group b-st2 tcg,thread=single 0
group c-mt "" 0
group d-st3 tcg,thread=single 0
group e-st4 tcg,thread=single 3
out=$(KLP_HOST_TESTS=$tmp/host KLP_GUEST_TESTS=$tmp/tests KLP_GUEST_BOOT=$tmp/boot \
	KLP_FAKE_LOG=$tmp/log KLP_ALSO_KVER= KLP_GUEST_SLOTS=2 "$KLP_TOP/selftests/run.sh" 2>&1)
rc=$?

# overlap X Y: their runs overlapped in time
overlap() {
	awk -v x="$1" -v y="$2" '$1 == "start" { s[$2] = $3 } $1 == "end" { e[$2] = $3 }
		END { exit !(s[x] < e[y] && s[y] < e[x]) }' "$tmp/log"
}
check "two single-threaded groups run at once (a, b)" overlap a-st1 b-st2
check "so do the next two (d, e)" overlap d-st3 e-st4
for g in a-st1 b-st2 d-st3 e-st4; do
	check "the multi-threaded group runs alone: not beside $g" eval '! overlap c-mt $g'
done
assert_eq "weights: 1 for single-threaded groups, 2 for the other" \
	"a-st1 1 b-st2 1 c-mt 2 d-st3 1 e-st4 1" \
	"$(awk '$1 == "start" { print $2, $4 }' "$tmp/log" | sort | paste -sd' ')"
# each group's lines are together: its header, TAP line, its 2 results
whole=0
for g in a-st1 b-st2 c-mt d-st3 e-st4; do
	grep -A3 -x "# ---- guest/$g" <<< "$out" | grep -c "^ok [12] - $g " | grep -qx 2 && whole=$((whole + 1))
done
assert_eq "every group's output shown whole, after its header" 5 "$whole"
check "every group's time is said" eval \
	'[ "$(grep -cE "^# ---- guest/[a-e]-[a-z0-9]+: [0-9]+ s$" <<< "$out")" = 5 ]'
check "the crash fails that group alone, by name" \
	grep -qx 'not ok - guest/e-st4: guest failed (boot.sh exit 3)' <<< "$out"
assert_eq "closing line: every result counted once" "10 passed, 1 failed" "$(tail -n 1 <<< "$out")"
assert_eq "run.sh exits non-zero" 1 "$rc"

# one slot: one group at a time, in order
: > "$tmp/log"
KLP_HOST_TESTS=$tmp/host KLP_GUEST_TESTS=$tmp/tests KLP_GUEST_BOOT=$tmp/boot \
	KLP_FAKE_LOG=$tmp/log KLP_ALSO_KVER= KLP_GUEST_SLOTS=1 "$KLP_TOP/selftests/run.sh" > /dev/null 2>&1
check "KLP_GUEST_SLOTS=1: no two groups at once" eval '! overlap a-st1 b-st2 && ! overlap d-st3 e-st4'

# the groups that take one slot first, then those that take both, each
# kind the dearest first (# klp-cost: seconds), those with no cost in
# name order
: > "$tmp/log"
printf '# klp-cost: 40\n' >> "$tmp/tests/b-st2.sh"
printf '# klp-cost: 300\n' >> "$tmp/tests/d-st3.sh"
printf '# klp-timeout: 700\n' >> "$tmp/tests/a-st1.sh"
KLP_HOST_TESTS=$tmp/host KLP_GUEST_TESTS=$tmp/tests KLP_GUEST_BOOT=$tmp/boot \
	KLP_FAKE_LOG=$tmp/log KLP_ALSO_KVER= KLP_GUEST_SLOTS=1 "$KLP_TOP/selftests/run.sh" > /dev/null 2>&1
assert_eq "groups start one-slot ones first, both-slot ones last, each kind longest first (# klp-cost:), the rest in name order" \
	"d-st3 b-st2 a-st1 e-st4 c-mt" "$(awk '$1 == "start" { print $2 }' "$tmp/log" | paste -sd' ')"
assert_eq "each guest's timeout: its # klp-timeout: (default 600), at least four times its cost" \
	"d-st3 1200 b-st2 600 a-st1 700 e-st4 600 c-mt 600" \
	"$(awk '$1 == "start" { print $2, $5 }' "$tmp/log" | paste -sd' ')"

# Pids wrap (pid_max is 32768 on CI's machine): a background job reaped
# long ago, its pid taken by a later child of run.sh, is no longer known
# to bash's wait.  Made to happen at once in a pid namespace of its own,
# where the next pid is set (ns_last_pid): the second kernel's build (a
# fake that ends at once) is done; the first multi-threaded group's fake
# boot waits for that, then has run.sh's next child (its cat of the
# group's output, as the second one waits for both slots) take the
# build's pid, and ends without a child of its own.
mkdir "$tmp/wrap"
# wait-gone FILE: once the pid FILE names has been reaped (30 s at most:
# a fake that waits for good would hang make check), the next pid is its
cat > "$tmp/wait-gone" <<'FAKE'
for ((i = 0; i < 300; i++)); do
	[ -s "$1" ] && [ ! -e "/proc/$(cat "$1")" ] && break
	sleep 0.1
done
read -r pid < "$1" && echo $((pid - 1)) > /proc/sys/kernel/ns_last_pid
FAKE
cat > "$tmp/also-build" <<'FAKE'
#!/bin/bash
echo "$PPID" > "$KLP_FAKE_ALSO"
[ -z "${KLP_FAKE_JOB:-}" ] || . "$(dirname "$0")/wait-gone" "$KLP_FAKE_JOB"
FAKE
cat > "$tmp/boot-wrap" <<'FAKE'
#!/bin/bash
n=$(basename "${*: -1}" .sh)
echo "TAP version 13"
# (make check exports KVER: the first kernel's is not empty)
[ "$KVER" = fake-kver ] && on=fake-kver || on="the first kernel"
echo "ok 1 - $n on $on"
echo "1..1"
if [ -n "${KLP_FAKE_JOB:-}" ]; then
	[ "$on" = fake-kver ] || echo "$PPID" > "$KLP_FAKE_JOB"
	exit 0
fi
[ "$n" = c-mt ] || exit 0
. "$(dirname "$0")/wait-gone" "$KLP_FAKE_ALSO"
FAKE
chmod +x "$tmp/also-build" "$tmp/boot-wrap"
# run_wrapped: run.sh on the groups of $tmp/wrap, the fakes above, in a
# pid namespace of its own
run_wrapped() {
	KLP_HOST_TESTS=$tmp/host KLP_GUEST_TESTS=$tmp/wrap KLP_GUEST_BOOT=$tmp/boot-wrap \
		KLP_ALSO_KVER=fake-kver KLP_ALSO_GROUPS=d-st3 KLP_ALSO_BUILD=$tmp/also-build \
		KLP_FAKE_ALSO=$tmp/also-pid KLP_GUEST_SLOTS=2 \
		unshare --pid --fork --mount-proc "$KLP_TOP/selftests/run.sh" 2>&1
}
cp "$tmp/tests/c-mt.sh" "$tmp/tests/d-st3.sh" "$tmp/wrap/"
cp "$tmp/tests/c-mt.sh" "$tmp/wrap/f-mt.sh"
out=$(run_wrapped)
check "the second kernel's build, its pid taken by then, is found built" \
	bash -c '! grep -q "build for fake-kver" <<< "$1"' _ "$out"
check "... its group runs" grep -qx 'ok 1 - d-st3 on fake-kver' <<< "$out"
check "... and wait never complains" bash -c '! grep -q "not a child" <<< "$1"' _ "$out"
assert_eq "closing line: the four groups counted" "4 passed, 0 failed" "$(tail -n 1 <<< "$out")"

# The same with a group's job: the first kernel's one group ends while
# run.sh waits for the second kernel's build, which then has run.sh's
# next child take the group's pid.
rm "$tmp/wrap/c-mt.sh" "$tmp/wrap/f-mt.sh" "$tmp/also-pid"
out=$(KLP_FAKE_JOB=$tmp/job-pid run_wrapped)
check "a group whose pid was taken once it ended is still shown and counted" \
	grep -qx 'ok 1 - d-st3 on the first kernel' <<< "$out"
assert_eq "closing line: both groups counted" "2 passed, 0 failed" "$(tail -n 1 <<< "$out")"
ktap_finish
