#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot Debian's stock kernel under QEMU with the host root shared read-only,
# run one script in the guest and report: its output streams to this
# terminal; the exit status is non-zero if the script failed, the guest
# oopsed, warned, stalled, panicked or timed out (then the dmesg tail is
# shown), also if the kernel reported it after the script ended.
#
# Usage: boot.sh [-t SECONDS] [-a KERNEL_ARGS] [-i] SCRIPT [ARGS...]
#   -t   timeout for the whole boot (default 600)
#   -a   extra kernel command line words (e.g. nokaslr)
#   -i   interactive: the script owns the console (for make run); the
#        console is as large as this terminal, and follows its size
# Environment: KVER, KLP_ACCEL (tcg|kvm|auto, default auto: KVM only when a
# probe boot with it succeeds), KLP_SMP (2), KLP_MEM (2G), KLP_BOOT_ARGS
# (kernel command line words for every boot), KLP_HOSTFWD (a network card
# on QEMU's user network with this hostfwd rule, e.g.
# tcp:127.0.0.1:20000-:9873; none without it), KLP_ROOTFS (a root
# filesystem image, scripts/rootfs.sh's: the guest boots it, through a
# snapshot, with systemd as PID 1, instead of the host's root; the
# script then runs from the harness's unit, klp-guest.service).
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
timeout_s=600
extra_args=
interactive=0
while getopts "t:a:i" o; do
	case $o in
	t) timeout_s=$OPTARG ;;
	a) extra_args=$OPTARG ;;
	i) interactive=1 ;;
	*) echo "usage: $0 [-t SECONDS] [-a ARGS] [-i] SCRIPT [ARGS...]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || { echo "usage: $0 [-t SECONDS] [-a ARGS] [-i] SCRIPT [ARGS...]" >&2; exit 2; }

kver=${KVER:-$("$top/scripts/kver.sh")} || exit 2
kdir=$top/build/kernel/$kver
[ -f "$kdir/.done" ] || "$top/scripts/guest-kernel.sh" "$kver" || exit 2
vmlinuz=$kdir/root/boot/vmlinuz-$kver
# the guest's stage 1 binds the tree from the host root by its path: no
# symlink in it (a worktree's build/kernel may link to a shared one)
modtree=$(realpath "$kdir/root/lib/modules/$kver")
gdir=$top/build/guest
mkdir -p "$gdir"

script=$(realpath "$1")
shift
case $script in
*,*) echo "boot: script path may not contain ','" >&2; exit 2 ;;
esac
enc=$script
for a in "$@"; do
	case $a in *[\ ,]*) echo "boot: arguments may not contain spaces or ','" >&2; exit 2 ;; esac
	enc+=",$a"
done

# The initramfs: static busybox, stage-1 init and the virtio-9p modules,
# and for a root filesystem image those of its disk and ext4.
rootfs=${KLP_ROOTFS:-}
wants="virtio_pci 9pnet_virtio 9p"
if [ -n "$rootfs" ]; then
	[ -f "$rootfs" ] || { echo "boot: no root filesystem image $rootfs" >&2; exit 2; }
	wants+=" virtio_blk crc32c_generic ext4"
fi
initrd=$gdir/initramfs-$kver${rootfs:+-rootfs}.cpio.gz
if [ ! -f "$initrd" ] || [ "$initrd" -ot "$top/selftests/guest/initramfs-init" ] ||
   [ "$initrd" -ot "$0" ]; then
	stage=$(mktemp -d)
	mkdir -p "$stage"/{bin,proc,sys,dev,modules}
	cp /bin/busybox "$stage/bin/busybox"
	cp "$top/selftests/guest/initramfs-init" "$stage/init"
	# modules.dep lists each module's dependencies, deepest last.
	mods=
	for want in $wants; do
		# built into the kernel (make check-debug's): nothing to load
		grep -qE "(^|/)$want\.ko$" "$modtree/modules.builtin" 2>/dev/null && continue
		line=$(grep -E "(^|/)$want\.ko[^:]*:" "$modtree/modules.dep") ||
			{ echo "boot: module $want not in $modtree" >&2; exit 2; }
		for f in $(echo "${line#*:}" | tr ' ' '\n' | tac) "${line%%:*}"; do
			m=$(basename "$f"); m=${m%%.ko*}
			case " $mods " in *" $m "*) continue ;; esac
			mods+="$m "
			case $f in
			*.xz) xz -dc "$modtree/$f" > "$stage/modules/$m.ko" ;;
			*) cp "$modtree/$f" "$stage/modules/$m.ko" ;;
			esac
		done
	done
	echo "$mods" > "$stage/modules.list"
	# built aside, then renamed: two guests may start together
	(cd "$stage" && find . | cpio -o -H newc --quiet | gzip -1) > "$initrd.$$"
	mv "$initrd.$$" "$initrd"
	rm -rf "$stage"
fi

qemu_base=(qemu-system-x86_64 -nographic -no-reboot -monitor none -serial stdio
	-kernel "$vmlinuz" -initrd "$initrd")

# KVM only if a short probe boot with it comes back; here it hangs.
accel=${KLP_ACCEL:-auto}
if [ "$accel" = auto ]; then
	accel=tcg
	if [ -c /dev/kvm ]; then
		if [ -f "$gdir/kvm-probe" ]; then
			accel=$(cat "$gdir/kvm-probe")
		else
			if timeout -s KILL 30 "${qemu_base[@]}" -accel kvm -cpu host -m 256M \
				-append "console=ttyS0 panic=-1 rdinit=/bin/busybox poweroff -f" \
				> /dev/null 2>&1 < /dev/null; then
				accel=kvm
			fi
			echo "$accel" > "$gdir/kvm-probe"
		fi
	fi
fi
if [ "$accel" = kvm ]; then cpu=host; else cpu=max; fi

# One guest at a time on this machine: two TCG guests on two cores would
# each run at half speed and time out together.  Except that a guest on
# single-threaded TCG keeps one host core busy: with KLP_GUEST_WEIGHT=1
# (selftests/run.sh sets it for those) it takes either of two slots, so
# two of them share the machine; any other guest takes both.
# Guests waiting for slots queue on $lock.q, blocking, so each gets its
# turn: one that polled for either slot would starve behind guests that
# block on both.  The head of the queue takes its slots, then lets the
# next one in.
lock=${KLP_GUEST_LOCK:-/tmp/klp-guest.lock}
exec 7> "$lock.q"
flock 7
if [ "${KLP_GUEST_WEIGHT:-2}" = 1 ]; then
	until { exec 9> "$lock" && flock -n 9; } || { exec 9> "$lock.1" && flock -n 9; }; do
		exec 9>&-
		sleep 0.2
	done
else
	exec 9> "$lock"
	flock 9
	exec 8> "$lock.1"
	flock 8
fi
exec 7>&-

cmdline="console=ttyS0 loglevel=3 panic=-1 rdinit=/init ${KLP_BOOT_ARGS:-} $extra_args"
cmdline+=" KLP_TOP=$top KLP_MODTREE=$modtree KLP_SCRIPT=$enc KLP_INTERACTIVE=$interactive"
cmdline+=" KLP_TIMEOUT_SCALE=${KLP_TIMEOUT_SCALE:-1}"
[ -n "${TERM:-}" ] && cmdline+=" KLP_TERM=$TERM"
# make run's console follows the size of the terminal it is shown on
follow=0
[ "$interactive" = 1 ] && [ -t 0 ] && follow=1
cmdline+=" KLP_WINSIZE=$follow"
disk=()
if [ -n "$rootfs" ]; then
	cmdline+=" KLP_ROOTFS=1 systemd.show_status=false"
	disk=(-drive "file=$rootfs,format=raw,if=virtio,snapshot=on")
fi

if [ -n "${KLP_HOSTFWD:-}" ]; then
	nic=(-nic "user,model=virtio-net-pci,hostfwd=$KLP_HOSTFWD")
else
	nic=(-nic none)
fi

# tell_size FIFO: "ROWS COLS" of the terminal on stdin into FIFO, now and
# on each SIGWINCH (the terminal sends it to its foreground process group,
# ours), until TERM, or within seconds of boot.sh's end however it ends.
# The FIFO opened read-write: no wait for qemu to open it, and what is
# written before the guest reads waits in it.
tell_size() {
	local fifo sleeper
	exec {fifo}<> "$1"
	trap 'stty size >&$fifo' WINCH
	trap 'kill "$sleeper"; exit 0' TERM
	stty size >&"$fifo"
	while kill -0 $$ 2>/dev/null; do
		sleep 1 &
		sleeper=$!
		wait "$sleeper"		# a SIGWINCH ends it early
	done
}

# boot_once: one guest; sets res (its results directory) and qrc.  A guest
# that has not started the script within boot_s seconds is killed and
# marked boot-hung: rarely, multi-threaded TCG hangs the stock kernel in
# its own boot (not a line on the console, not even a lockup report),
# before any of our code has run.
boot_s=$(( ${KLP_BOOT_DEADLINE:-180} * ${KLP_TIMEOUT_SCALE:-1} ))
boot_once() {
	local wd
	res=$(mktemp -d "$gdir/results.XXXXXX")
	chmod 777 "$res"
	qemu=("${qemu_base[@]}" -accel "$accel" -cpu "$cpu" -smp "${KLP_SMP:-2}" -m "${KLP_MEM:-2G}"
		-pidfile "$res/qemu.pid"
		-virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap"
		-virtfs "local,path=$res,mount_tag=results,security_model=none,multidevs=remap"
		"${disk[@]}" "${nic[@]}" -append "$cmdline")
	if [ "$interactive" = 1 ]; then
		local tell=() teller=
		if [ "$follow" = 1 ]; then
			# the terminal's size, now and after each change, on a
			# virtio serial port (guest-init.sh sets the console's)
			mkfifo "$res/winsize"
			tell=(-device "virtio-serial-pci,id=klpvser"
			      -chardev "pipe,id=winsize,path=$res/winsize"
			      -device "virtserialport,bus=klpvser.0,chardev=winsize,name=org.klp.winsize")
			tell_size "$res/winsize" <&0 &
			teller=$!
		fi
		# --foreground: qemu must own the terminal (raw mode) for the console
		timeout --foreground -s KILL "$timeout_s" "${qemu[@]}" "${tell[@]}"
		qrc=$?
		[ -n "$teller" ] && kill "$teller" && wait "$teller"
		stty sane 2>/dev/null
		return
	fi
	(
		for ((i = 0; i < boot_s; i++)); do
			sleep 1
			grep -q 'klp-guest: running' "$res/console" 2>/dev/null && exit 0
		done
		touch "$res/boot-hung"
		kill -KILL "$(cat "$res/qemu.pid")" 2>/dev/null
	) &
	wd=$!
	timeout -s KILL "$timeout_s" "${qemu[@]}" < /dev/null 2>&1 |
		sed -u 's/\r$//' | tee "$res/console" |
		awk '/klp-guest: running/ { on = 1; next }
		     on && !/reboot: Power down|sysrq: Power Off/ { print; fflush() }'
	qrc=${PIPESTATUS[0]}
	kill "$wd" 2>/dev/null
	wait "$wd" 2>/dev/null
}

boot_once
if [ -e "$res/boot-hung" ]; then
	echo "boot: the guest did not reach the script in ${boot_s}s (console in $res/console); booting it once more" >&2
	boot_once
fi

verdict=0
why=
if [ -e "$res/boot-hung" ]; then
	verdict=3 why="guest did not reach the script in ${boot_s}s, twice (boot hang)"
elif [ "$qrc" = 137 ]; then
	verdict=3 why="guest timed out after ${timeout_s}s"
elif [ ! -f "$res/rc" ]; then
	verdict=3 why="guest ended without a result (panic or boot failure)"
elif [ "$(cat "$res/rc")" != 0 ]; then
	verdict=1 why="guest script exited $(cat "$res/rc")"
fi
# The guest streams the kernel log (kmsg) from before the script starts
# until it saves dmesg, last thing before powering off, after the script's
# leftovers are killed and the kernel settled: a late WARN, hung task or
# RCU stall is in it, and so is one the ring buffer lost on the way (a
# WARN flooded out by later messages: host/04-harness).  The console's
# kernel lines (timestamped) too: a panic leaves no dmesg, and the console
# prints only up to loglevel 3 (no WARN).
log=$res/dmesg
[ -s "$log" ] || log=$res/console
kernel_bad='WARNING:|BUG:|Oops|Kernel panic|general protection fault|Call Trace:|INFO: rcu|blocked for more than|soft lockup'
bad=$( { cat "$res/kmsg" "$res/dmesg" 2>/dev/null
	 grep -E '\[ *[0-9]+\.[0-9]{6}\] ' "$res/console" 2>/dev/null
       } | grep -E "$kernel_bad" | awk '!seen[$0]++' | head -n 20)
if [ -n "$bad" ]; then
	[ "$verdict" = 0 ] && verdict=2
	why="${why:+$why; }kernel warned, oopsed, stalled or panicked"
fi
if [ -e "$res/kmsg-ended" ]; then
	[ "$verdict" = 0 ] && verdict=2
	why="${why:+$why; }the guest's kernel log stream ended early (what it missed is unknown)"
fi
if [ "$verdict" != 0 ]; then
	echo "boot: FAILED: $why (results in $res)" >&2
	echo "---- guest dmesg tail ----" >&2
	tail -n 60 "$log" >&2
	echo "--------------------------" >&2
	if [ -n "$bad" ]; then
		echo "---- what the kernel reported (dmesg, console) ----" >&2
		echo "$bad" >&2
		echo "--------------------------" >&2
	fi
else
	rm -rf "$res"
fi
exit "$verdict"
