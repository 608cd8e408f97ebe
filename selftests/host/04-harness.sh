#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# klp-min-results: 14
# The guest harness itself: a guest that never reaches its script is booted
# once more, then reported as a boot hang (exit 3), each time saying so; a
# script's exit status comes back; the guest powers off from a child of PID 1
# (on 6.12 its root is gone once the power-off has begun); a WARN that the
# ring buffer has lost by the end (flooded out) still fails the group.
# Cheap: the hung boots are cut at 2 s.
. "$(dirname "$0")/../lib.sh"
ktap_start "guest harness: boot hang, retry, exit status, a lost WARN"

boot=$KLP_TOP/selftests/guest/boot.sh
# its guests run tiny scripts: one slot of the guest lock each, on
# single-threaded TCG, so that they slip in beside make check's groups
# instead of waiting for both slots to drain four times
export KLP_GUEST_WEIGHT=1 KLP_ACCEL=tcg,thread=single
tmp=$(mktemp -d "$KLP_TOP/build/harness.XXXXXX")
# the failed boots' results directories, named in their messages
leftovers() { grep -oE "$KLP_TOP/build/guest/results\.[A-Za-z0-9]+" <<< "$1" | sort -u; }
trap 'rm -rf "$tmp" $dirs' EXIT
dirs=
printf '#!/bin/bash\necho "script ran: $*"\nexit 7\n' > "$tmp/seven.sh"
chmod +x "$tmp/seven.sh"

# the deadline unscaled: make check-debug scales every timeout by 4
out=$(KLP_BOOT_DEADLINE=2 KLP_TIMEOUT_SCALE=1 "$boot" -t 60 "$tmp/seven.sh" 2>&1)
rc=$?
dirs+=" $(leftovers "$out")"
assert_eq "a boot that never reaches the script: exit 3" 3 "$rc"
n=$(grep -c 'did not reach the script in 2s (console in .*); booting it once more' <<< "$out")
assert_eq "it is booted exactly once more, saying so" 1 "$n"
n=0
for d in $(leftovers "$out"); do grep -q SeaBIOS "$d/console" && n=$((n + 1)); done
assert_eq "two guests booted (two consoles kept)" 2 "$n"
check "then reported as a boot hang" grep -q 'did not reach the script in 2s, twice (boot hang)' <<< "$out"
check "the script never ran" bash -c '! grep -q "script ran" <<< "$1"' _ "$out"

out=$("$boot" -t $((120 * ${KLP_TIMEOUT_SCALE:-1})) "$tmp/seven.sh" a b 2>&1)
rc=$?
dirs+=" $(leftovers "$out")"
assert_eq "a script that exits 7: boot.sh exits 1" 1 "$rc"
check "it ran once, with its arguments" grep -qx 'script ran: a b' <<< "$out"
check "and says why it failed" grep -q 'guest script exited 7' <<< "$out"
check "no second boot" bash -c '! grep -q "booting it once more" <<< "$1"' _ "$out"

# klp_test_poweroff panics unless the power-off runs in a child of PID 1
printf '#!/bin/bash\ninsmod %s && echo loaded\n' \
	"$KLP_TOP/selftests/modules/klp_test_poweroff.ko" > "$tmp/poweroff.sh"
chmod +x "$tmp/poweroff.sh"
out=$("$boot" -t $((120 * ${KLP_TIMEOUT_SCALE:-1})) "$tmp/poweroff.sh" 2>&1)
rc=$?
dirs+=" $(leftovers "$out")"
check "the power-off check is armed" grep -qx loaded <<< "$out"
assert_eq "the guest powers off from a child of PID 1, no panic" 0 "$rc"

# A WARN at KERN_WARNING (not on the console, which prints up to level 3),
# then more than the whole ring buffer of other messages (its default
# 128 KiB, 1000-byte records): by the end dmesg no longer has it.  The
# WARN line is written to /dev/kmsg: boot.sh reads the kernel's reports
# by their text, whoever printed them.
cat > "$tmp/lostwarn.sh" <<'EOS'
#!/bin/bash
echo on > /proc/sys/kernel/printk_devkmsg	# no rate limit on our writes
echo "<4>WARNING: CPU: 0 PID: $$ at harness-lost-warn: a report to lose" > /dev/kmsg
dmesg | grep -q harness-lost-warn && echo "the WARN is in dmesg"
line=$(printf '%0900d' 0)
exec 3> /dev/kmsg
for ((i = 0; i < 600; i++)); do echo "<6>harness flood $i $line" >&3; done
exec 3>&-
dmesg | grep -q harness-lost-warn || echo "the WARN is gone from dmesg"
exit 0
EOS
chmod +x "$tmp/lostwarn.sh"
out=$("$boot" -t $((120 * ${KLP_TIMEOUT_SCALE:-1})) "$tmp/lostwarn.sh" 2>&1)
rc=$?
dirs+=" $(leftovers "$out")"
check "a WARN printed, then flooded out of the ring buffer by the end" \
	eval 'grep -qx "the WARN is in dmesg" <<< "$out" && grep -qx "the WARN is gone from dmesg" <<< "$out"'
assert_eq "the group fails all the same: boot.sh exits 2" 2 "$rc"
check "naming the lost WARN" eval \
	'grep -q "kernel warned" <<< "$out" && grep -q "WARNING: CPU: 0 PID: [0-9]* at harness-lost-warn" <<< "$out"'

ktap_finish
