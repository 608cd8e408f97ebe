#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The systemd unit prometheus/klp-exporter.service, as `make install`
# writes it: `systemd-analyze security` scores it under 3 (it was 4.9),
# with the protections issue 23 named each in place (no CAP_SYS_ADMIN,
# no DAC override, no devices, kernel tunables and logs protected, no
# SUID/SGID, no realtime, a system call filter that keeps out what the
# exporter never calls, a private umask); systemd-analyze verifies it;
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
	 PrivateDevices= ProtectKernelTunables= ProtectKernelLogs= RestrictSUIDSGID= RestrictRealtime= \
	 SystemCallFilter=~@debug SystemCallFilter=~@raw-io SystemCallFilter=~@mount \
	 SystemCallFilter=~@module SystemCallFilter=~@reboot SystemCallFilter=~@swap UMask=; do
	check "... $p: passed (✓)" grep -qF "✓ $p " "$tmp/security"
done
[ "$_ktap_fail" = 0 ] || diag "$(grep '✗' "$tmp/security")"

# MemoryMax, the BPF maps included (memcg charges them)
keys=$(sed -n 's/^#define KLP_MAX_HIT_KEYS[[:space:]]*\([0-9]*\).*/\1/p' "$KLP_TOP/include/klp/uapi.h")
max=$(sed -n 's/^MemoryMax=\([0-9]*\)M$/\1/p' "$unit")
need=$(( (1024 * keys * 8 >> 20) + 16 ))
check "MemoryMax=${max:-?}M holds 1024 CPUs' hits map and 16 MiB: ${need}M" \
	test "${max:-0}" -ge "$need"
ktap_finish
