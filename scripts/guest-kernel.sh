#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Extract Debian's stock kernel image for KVER into build/kernel/KVER
# (never installed as the host's kernel), with a depmod'ed module tree and
# the ELF vmlinux carved out of the vmlinuz (for its BTF): 6.1's payload is
# xz-compressed, 6.12's zstd (CONFIG_KERNEL_ZSTD).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "guest-kernel: $*" >&2; exit 1; }
[ $# = 1 ] && [ -n "$1" ] || die "usage: $0 KVER (e.g. 6.1.0-57-amd64)"
kver=$1
dest=$top/build/kernel/$kver
[ -f "$dest/.done" ] && exit 0

# Debian names the image with modules linux-image-<kver> for 6.1 and
# linux-image-<kver>-unsigned for 6.12 (linux-image-<kver> is its signed
# twin there, with the same files).
fetch() {
	local p
	for p in "linux-image-$kver-unsigned" "linux-image-$kver"; do
		(cd "$dest/deb" && apt-get download -q "$p" > /dev/null 2>&1) && return 0
	done
	return 1
}
rm -rf "$dest"
mkdir -p "$dest/deb"
if ! fetch; then
	apt-get update -q > /dev/null || die "apt-get update failed"
	fetch || die "cannot download linux-image-$kver(-unsigned) from the Debian archive: is KVER right?"
fi
dpkg-deb -x "$dest"/deb/*.deb "$dest/root" || die "cannot unpack $(ls "$dest"/deb)"
rm -rf "$dest/deb"
depmod -b "$dest/root" "$kver" || die "depmod failed on $dest/root"

# The ELF vmlinux (with .BTF) is the payload that starts at the first
# compression magic inside the bzImage.
vmlinuz=$dest/root/boot/vmlinuz-$kver
[ -f "$vmlinuz" ] || die "no $vmlinuz in the package"
carve() {	# carve MAGIC-REGEX DECOMPRESSOR...
	local off
	off=$(LC_ALL=C grep -abo -P "$1" "$vmlinuz" | head -n 1 | cut -d: -f1)
	[ -n "$off" ] || return 1
	shift
	tail -c +$((off + 1)) "$vmlinuz" | "$@" > "$dest/vmlinux" 2> /dev/null
	head -c 4 "$dest/vmlinux" | grep -q ELF
}
if ! carve '\xfd7zXZ\x00' xz -dc && ! carve '\x28\xb5\x2f\xfd' zstd -dcq; then
	command -v zstd > /dev/null || die "zstd is not installed (scripts/deps.sh installs it)"
	die "could not extract vmlinux from $vmlinuz (neither an xz nor a zstd payload)"
fi
touch "$dest/.done"
echo "guest-kernel: $kver ready in $dest"
