#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Stage 2 of the klp guest, running on the host's userland: mount the
# tracing filesystems, run the one script named on the kernel command line,
# save its output, exit status and dmesg to the results share, power off.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=${KLP_TERM:-linux}
res=/tmp/klp-results

mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t bpf bpf /sys/fs/bpf 2>/dev/null
mount -t devpts devpts /dev/pts 2>/dev/null || { mkdir -p /dev/pts; mount -t devpts devpts /dev/pts; }
ulimit -l unlimited
hostname klp-guest
cd "$KLP_TOP" || exit 1

# KLP_SCRIPT may carry arguments, encoded with ',' for spaces by boot.sh.
read -r -a cmd <<< "${KLP_SCRIPT//,/ }"
if [ "${KLP_INTERACTIVE:-0}" = 1 ]; then
	setsid -c "${cmd[@]}" < /dev/console > /dev/console 2>&1
	rc=$?
else
	echo "klp-guest: running ${cmd[*]}" > /dev/console
	"${cmd[@]}" < /dev/null 2>&1 | tee "$res/output" > /dev/console
	rc=${PIPESTATUS[0]}
fi
echo "$rc" > "$res/rc"
dmesg > "$res/dmesg"
sync
echo o > /proc/sysrq-trigger
sleep 30
