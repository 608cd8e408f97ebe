#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Extract Debian's stock kernel image for KVER into build/kernel/KVER
# (never installed as the host's kernel), with a depmod'ed module tree and
# the ELF vmlinux carved out of the xz-compressed vmlinuz (for its BTF).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
kver=$1
dest=$top/build/kernel/$kver
[ -f "$dest/.done" ] && exit 0

rm -rf "$dest"
mkdir -p "$dest/deb"
(cd "$dest/deb" && apt-get download -q "linux-image-$kver" >/dev/null 2>&1) || {
	apt-get update -q >/dev/null
	(cd "$dest/deb" && apt-get download -q "linux-image-$kver" >/dev/null)
}
dpkg-deb -x "$dest"/deb/*.deb "$dest/root"
rm -rf "$dest/deb"
depmod -b "$dest/root" "$kver"

# The ELF vmlinux (with .BTF) starts at the xz magic inside the bzImage.
vmlinuz=$dest/root/boot/vmlinuz-$kver
off=$(LC_ALL=C grep -abo -P '\xfd7zXZ\x00' "$vmlinuz" | head -n 1 | cut -d: -f1)
tail -c +$((off + 1)) "$vmlinuz" | xz -dc > "$dest/vmlinux" 2>/dev/null || true
if ! head -c 4 "$dest/vmlinux" | grep -q ELF; then
	echo "guest-kernel: could not extract vmlinux from $vmlinuz" >&2
	exit 1
fi
touch "$dest/.done"
echo "guest-kernel: $kver ready in $dest"
