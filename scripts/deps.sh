#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install, idempotently, every Debian package klp needs, then fetch the
# guest kernel images: the target kernel's (KVER, default the
# distribution's, see scripts/kver.sh) and Debian 12's 6.12 beside it
# (its headers too), which make check also runs the suite on.
#
# Usage: scripts/deps.sh [KVER]      (KVER like 6.1.0-57-amd64)
#        scripts/deps.sh -d [KVER]   the same, and what building the debug
#                                    kernel (make check-debug) needs
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
debug=0
if [ "${1:-}" = -d ]; then
	debug=1
	shift
fi
kver=${1:-${KVER:-}}

pkgs=(
	make gcc libc6-dev kmod cpio xz-utils zstd
	qemu-system-x86 busybox-static
	clang llvm libbpf-dev bpftool libclang-rt-14-dev
	libtraceevent-dev libtracefs-dev libelf-dev zlib1g-dev pkg-config
	bpftrace linux-perf tmux dwarves dkms groff-base man-db bsdextrautils python3
	prometheus libmicrohttpd-dev curl jq gnuplot-nox iproute2 systemd
	linux-source-6.1 debhelper dh-dkms lintian mmdebstrap
)
[ $debug = 1 ] && pkgs+=(bc bison flex libssl-dev)
if [ -n "$kver" ]; then
	pkgs+=("linux-headers-$kver")
else
	pkgs+=(linux-headers-amd64)
fi
# The second kernel: an installed 6.12, else the newest in the archive.
k612=$("$top/scripts/kver.sh" 6.12 2>/dev/null || true)
if [ -z "$k612" ]; then
	k612=$(apt-cache search --names-only '^linux-headers-6\.12\.[0-9]+\+deb12-amd64$' 2>/dev/null |
		awk '{ print $1 }' | sed 's/^linux-headers-//' | sort -V | tail -n 1)
	if [ -z "$k612" ] && [ "$(id -u)" = 0 ]; then
		apt-get update -q > /dev/null
		k612=$(apt-cache search --names-only '^linux-headers-6\.12\.[0-9]+\+deb12-amd64$' |
			awk '{ print $1 }' | sed 's/^linux-headers-//' | sort -V | tail -n 1)
	fi
	[ -n "$k612" ] || { echo "deps: no linux-headers-6.12.*+deb12-amd64 in the archive" >&2; exit 1; }
fi
pkgs+=("linux-headers-$k612")

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed' ||
		missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
	if [ "$(id -u)" != 0 ]; then
		echo "deps: missing packages: ${missing[*]} (run as root to install)" >&2
		exit 1
	fi
	echo "deps: installing ${missing[*]}"
	apt-get update -q >/dev/null
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		"${missing[@]}" >/dev/null
fi

# checkpatch.pl for the style test, from Debian's kernel source tarball.
cp_dir=$top/build/checkpatch
if [ ! -f "$cp_dir/checkpatch.pl" ] || [ ! -f "$cp_dir/kernel-doc" ]; then
	tarball=$(ls /usr/src/linux-source-6.1.tar.* | head -n 1)
	mkdir -p "$cp_dir"
	tar -xf "$tarball" -C "$cp_dir" --strip-components=2 --wildcards \
		'*/scripts/checkpatch.pl' '*/scripts/spelling.txt' '*/scripts/const_structs.checkpatch' \
		'*/scripts/kernel-doc'
fi

[ -n "$kver" ] || kver=$("$top/scripts/kver.sh")
"$top/scripts/guest-kernel.sh" "$kver"
[ "$kver" = "$k612" ] || "$top/scripts/guest-kernel.sh" "$k612"
