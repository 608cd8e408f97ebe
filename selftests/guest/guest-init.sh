#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Stage 2 of the klp guest, running on the host's userland: mount the
# tracing filesystems, run the one script named on the kernel command line,
# save its output, exit status and dmesg to the results share, power off.
# After the script: kill what it left running, let the kernel settle, and
# save dmesg last, so that a late WARN, hung task or RCU stall is in it.
# The whole kernel log also streams to the results share from the start
# (kmsg), so that a report the ring buffer has lost by the end (a WARN
# flooded out by later messages) is still there for boot.sh to find.
# On a root filesystem image (boot.sh's KLP_ROOTFS) it is not PID 1 but
# systemd's service klp-guest.service: it first waits until the system is
# up, and what it kills after the script is only what is left in its own
# cgroup (systemd stops the rest at power-off).
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=${KLP_TERM:-linux}
res=${KLP_RESULTS:-/tmp/klp-results}
if [ $$ != 1 ]; then
	# "running", or "degraded" with a unit failed: the script says which
	systemctl is-system-running --wait > /dev/null
fi

mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t bpf bpf /sys/fs/bpf 2>/dev/null
mount -t devpts devpts /dev/pts 2>/dev/null || { mkdir -p /dev/pts; mount -t devpts devpts /dev/pts; }
# devtmpfs has no /dev/fd; bash's process substitution needs it
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
ulimit -l unlimited
hostname klp-guest
# loopback, as on any host: tools listen on 127.0.0.1 (klp-exporter)
ip link set lo up
cd "$KLP_TOP" || exit 1

# The kernel log from its first record on, as it comes (dmesg --follow
# reads /dev/kmsg, skipping past records overwritten before it read them).
stdbuf -oL dmesg --follow > "$res/kmsg" 2>&1 &
kmsgpid=$!
# ... and caught up before the script starts: it reads from the oldest
# record, and a script that floods the log at once (host/04) would
# otherwise overwrite records it has not read yet.
echo "klp-guest: kmsg reader $kmsgpid started" > /dev/kmsg
for ((i = 0; i < 200; i++)); do
	grep -q "kmsg reader $kmsgpid started" "$res/kmsg" 2>/dev/null && break
	sleep 0.05
done

# set_size ROWS COLS: the console's size, if they are sizes
set_size() {
	[[ $1 =~ ^[1-9][0-9]{0,3}$ && $2 =~ ^[1-9][0-9]{0,3}$ ]] &&
		stty rows "$1" cols "$2" < /dev/console
}
# follow_size: the console as large as the host's terminal, on which
# boot.sh -i shows it (KLP_WINSIZE=1): boot.sh writes "ROWS COLS" on a
# virtio serial port named org.klp.winsize at start and after each
# change; the first is set before the script starts, the rest by a reader
# in the background (its pid in sizepid).  Setting a new size sends
# SIGWINCH to the console's foreground process group (klptop draws
# again, at the new size).
follow_size() {
	local d dev='' rows cols i port

	[ "${KLP_WINSIZE:-0}" = 1 ] || return 0
	modprobe virtio_console || return 0
	# the port's name comes from the host after the port itself
	for ((i = 0; i < 50 && !${#dev}; i++)); do
		for d in /sys/class/virtio-ports/*; do
			[ "$(cat "$d/name" 2>/dev/null)" = org.klp.winsize ] && dev=/dev/${d##*/}
		done
		[ -n "$dev" ] || sleep 0.1
	done
	[ -n "$dev" ] || { echo "klp-guest: no port org.klp.winsize" > /dev/console; return 0; }
	# one open for good: closing the port drops what it has not read
	exec {port}< "$dev"
	read -r -t 10 rows cols <&"$port" && set_size "$rows" "$cols"
	while read -r rows cols; do
		set_size "$rows" "$cols"
	done <&"$port" &
	sizepid=$!
	exec {port}<&-
}

# KLP_SCRIPT may carry arguments, encoded with ',' for spaces by boot.sh.
read -r -a cmd <<< "${KLP_SCRIPT//,/ }"
if [ "${KLP_INTERACTIVE:-0}" = 1 ]; then
	follow_size
	setsid -c "${cmd[@]}" < /dev/console > /dev/console 2>&1
	rc=$?
	[ -n "${sizepid:-}" ] && kill "$sizepid" 2>/dev/null && wait "$sizepid"
else
	echo "klp-guest: running ${cmd[*]}" > /dev/console
	# tee in a process substitution of this shell: a background job that
	# kept the script's stdout open must not keep us waiting for it here
	exec {out}> >(tee "$res/output" > /dev/console)
	teepid=$!
	"${cmd[@]}" < /dev/null >&"$out" 2>&1
	rc=$?
	exec {out}>&-
fi
echo "$rc" > "$res/rc"
dmesg > "$res/dmesg.script"

# leftovers: every process but this one (PID 1, or $$), the subshell running
# ps, ps, tee, zombies and kernel threads (kthreadd, pid 2, and children)
leftovers() {
	if [ $$ = 1 ]; then
		ps -e -o pid=,ppid=,stat=,comm=,args= > /tmp/klp-ps
	else
		ps -o pid=,ppid=,stat=,comm=,args= \
			-p "$(paste -sd, "/sys/fs/cgroup$(cut -d: -f3 /proc/self/cgroup)/cgroup.procs")" > /tmp/klp-ps
	fi
	awk -v self="$BASHPID" -v main="$$" -v tee="${teepid:-0}" -v kmsg="$kmsgpid" \
		'$1 != 1 && $1 != 2 && $2 != 2 && $1 != self && $1 != main && $1 != tee &&
		 $1 != kmsg && $3 !~ /^Z/ && $4 != "ps"' /tmp/klp-ps
}
# What the script left behind (background jobs, tracers, setsid'd
# children): TERM, then KILL, then the output is complete.
left=$(leftovers)
if [ -n "$left" ]; then
	echo "# klp-guest: killing what the script left running:" > /dev/console
	awk '{ print "#   " $1, $4 }' <<< "$left" > /dev/console
	cat /tmp/klp-ps > "$res/leftovers"
	mapfile -t pids < <(awk '{ print $1 }' <<< "$left")
	kill -TERM "${pids[@]}" 2>/dev/null
	sleep 1
	left=$(leftovers)
	mapfile -t pids < <(awk '{ print $1 }' <<< "$left")
	[ -n "$left" ] && kill -KILL "${pids[@]}" 2>/dev/null
fi
[ -n "${teepid:-}" ] && wait "$teepid"
# let late reports (a WARN from deferred work, an RCU stall) come out
sleep "${KLP_SETTLE:-2}"
dmesg > "$res/dmesg"
# the stream must have lasted to here: otherwise what it missed is unknown
if kill -0 "$kmsgpid" 2>/dev/null; then
	kill "$kmsgpid"
	wait "$kmsgpid" 2>/dev/null
else
	echo "klp-guest: the kernel log stream (dmesg --follow) ended early" > /dev/console
	touch "$res/kmsg-ended"
fi
# Power off with reboot(2), from a child this shell waits for: the call
# does not return, and once it has begun the root is gone (6.11+ resets
# virtio devices in device_shutdown(); 9p with them).  sysrq 'o' would
# return at once and leave PID 1 reading its script off a dead root:
# "Attempted to kill init".  busybox syncs first.  Under systemd, the same
# at once (systemd syncs too), without stopping the units one by one.
if [ $$ != 1 ]; then
	systemctl --force --force poweroff
fi
/bin/busybox poweroff -f
echo "klp-guest: poweroff failed, trying sysrq" > /dev/console
echo o > /proc/sysrq-trigger
sleep 30
