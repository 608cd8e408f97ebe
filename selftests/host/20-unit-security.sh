#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The systemd unit prometheus/klp-exporter.service, as `make install`
# writes it: `systemd-analyze security` scores it under 3 (it was 4.9),
# with the protections issue 23 named each in place (no CAP_SYS_ADMIN,
# no DAC override, no devices, no SUID/SGID, no realtime, a system call
# filter that keeps out what the exporter never calls, a private umask),
# what the builtin livepatch's source needs given (issue 33), and what
# that costs protected otherwise; systemd-analyze verifies it;
# its MemoryMax holds the BPF hits map of 1024 possible CPUs (128 KiB
# each, KLP_MAX_HIT_KEYS x 8 bytes) and 16 MiB for the rest.
. "$(dirname "$0")/../lib.sh"
ktap_start "klp-exporter.service: systemd-analyze security under 3"

command -v systemd-analyze > /dev/null || bail "systemd-analyze present (scripts/deps.sh installs systemd)"
[ -x "$KLP_BIN/klp-exporter" ] || bail "build/bin/klp-exporter built (make userspace)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# @SBINDIR@ as make install substitutes it, here the built binary
unit=$tmp/klp-exporter.service
sed "s|@SBINDIR@|$KLP_BIN|g" "$KLP_TOP/prometheus/klp-exporter.service" > "$unit"
out=$(systemd-analyze verify --man=no "$unit" 2>&1)
assert_eq "systemd-analyze verify: clean" "0:" "$?:$out"

systemd-analyze security --offline=true "$unit" > "$tmp/security" 2>&1
score=$(sed -n 's/.*Overall exposure level for klp-exporter.service: \([0-9.]*\) .*/\1/p' "$tmp/security")
check "systemd-analyze security --offline=true: scored (${score:-none})" test -n "$score"
check "... under 3" awk -v s="${score:-99}" 'BEGIN { exit !(s < 3) }'
for p in 'CapabilityBoundingSet=~CAP_SYS_ADMIN' 'CapabilityBoundingSet=~CAP_(DAC_*|FOWNER|IPC_OWNER)' \
	 PrivateDevices= RestrictSUIDSGID= RestrictRealtime= \
	 SystemCallFilter=~@raw-io SystemCallFilter=~@mount \
	 SystemCallFilter=~@module SystemCallFilter=~@reboot SystemCallFilter=~@swap UMask=; do
	check "... $p: passed (✓)" grep -qF "✓ $p " "$tmp/security"
done

# What the builtin livepatch's source needs (issue 33's defect 1; the
# guest group 50-systemd runs it under the unit): /proc/kallsyms, which
# ProtectKernelTunables= and ProcSubset=pid hide, its addresses, which
# need CAP_SYSLOG, which ProtectKernelLogs= drops, and perf_event_open()
# (in @debug) for its kprobes.  So those protections are off, as the
# manager reads the unit, and CAP_SYSLOG is left...
for p in ProtectKernelTunables= ProcSubset= CapabilityBoundingSet=~CAP_SYSLOG; do
	check "... $p: off, for the builtin source (✗)" grep -qF "✗ $p " "$tmp/security"
done
# unit KEY: the words of its KEY= lines
unit() { sed -n "s/^$1=//p" "$unit" | tr ' ' '\n'; }
check "... perf_event_open in the system call filter" eval 'unit SystemCallFilter | grep -qx perf_event_open'
# ... and what they would protect is protected by hand, all but kallsyms
# and CAP_SYSLOG: the kernel's tunables read-only, /proc/kcore and
# /proc/kmsg inaccessible, no /dev/kmsg, no syslog()
check "... /sys and /proc/sys read-only" eval 'unit ReadOnlyPaths | grep -qx /sys && unit ReadOnlyPaths | grep -qx /proc/sys'
check "... /proc/kcore and /proc/kmsg inaccessible" eval \
	'unit InaccessiblePaths | grep -qx -- -/proc/kcore && unit InaccessiblePaths | grep -qx -- -/proc/kmsg'
# expand @SET: its system calls, the sets it names expanded
expand() {
	systemd-analyze syscall-filter "$1" | awk 'NR > 1 && NF && $1 !~ /^#/ { print $1 }' |
		while read -r c; do
			case $c in @*) expand "$c" ;; *) echo "$c" ;; esac
		done
}
# (prlimit64, of @default within it: the expansion reaches nested sets)
check "... no /dev/kmsg (PrivateDevices=yes), no syslog() (not in @system-service)" eval \
	'[ "$(unit PrivateDevices)" = yes ] && ! unit SystemCallFilter | grep -qx syslog &&
	 expand @system-service > "$tmp/service-calls" && grep -qx prlimit64 "$tmp/service-calls" &&
	 ! grep -qx syslog "$tmp/service-calls"'
[ "$_ktap_fail" = 0 ] || diag "$(grep '✗' "$tmp/security")"

# MemoryMax, the BPF maps included (memcg charges them)
keys=$(sed -n 's/^#define KLP_MAX_HIT_KEYS[[:space:]]*\([0-9]*\).*/\1/p' "$KLP_TOP/include/klp/uapi.h")
max=$(sed -n 's/^MemoryMax=\([0-9]*\)M$/\1/p' "$unit")
need=$(( (1024 * keys * 8 >> 20) + 16 ))
check "MemoryMax=${max:-?}M holds 1024 CPUs' hits map and 16 MiB: ${need}M" \
	test "${max:-0}" -ge "$need"
ktap_finish
