#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A Debian 12 root filesystem for guests that boot with systemd as PID 1
# (selftests/tests/*-systemd.sh): built once with mmdebstrap from the
# Debian archive apt is configured with, as an ext4 image under
# build/rootfs/, and reused until this script, the kernel or the
# packages it caches change.  Prints the image's path.
#
# In it: systemd, udev, kmod, curl, iproute2, procps and Debian's own
# linux-image-KVER (the very version the harness boots, from
# build/kernel/KVER), so that /lib/modules/KVER is the installed kernel's;
# and, not installed, the packages klp-tools depends on in apt's cache
# with apt's lists, so that `apt install ./klp-tools_*.deb` works in the
# guest, offline, as on any Debian machine.  The guest boots it through a
# snapshot (boot.sh): the image itself is never written.
#
# Usage: scripts/rootfs.sh KVER KLP-TOOLS-DEB
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "rootfs: $*" >&2; exit 1; }
[ $# = 2 ] || die "usage: $0 KVER KLP-TOOLS-DEB"
kver=$1
tools_deb=$(realpath "$2")
[ -f "$tools_deb" ] || die "no $2 (scripts/deb.sh builds it)"
command -v mmdebstrap > /dev/null || die "mmdebstrap is not installed (scripts/deps.sh installs it)"

"$top/scripts/guest-kernel.sh" "$kver" >&2
# the version of the kernel package the harness extracted
kdoc=$(ls -d "$top/build/kernel/$kver/root/usr/share/doc/linux-image-$kver"* | head -n 1)
kpkgver=$(zcat "$kdoc/changelog.Debian.gz" | sed -n '1s/^[^(]*(\([^)]*\)).*/\1/p')
[ -n "$kpkgver" ] || die "cannot tell the version of build/kernel/$kver's package"
tools_deps=$(dpkg-deb -f "$tools_deb" Depends)

out=$top/build/rootfs
mkdir -p "$out"
key=$( { cat "$0"; echo "$kver $kpkgver $tools_deps"; } | sha256sum | cut -c1-16)
img=$out/debian12-$kver-$key.img
exec 8> "$out/.lock"
flock 8
if [ -f "$img" ]; then
	echo "$img"
	exit 0
fi

# Debian's suites as apt here knows them (the archive, its updates and
# security), one sources line each
mirrors=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE) $(COMPONENT)' \
	'Created-By: Packages' 'Origin: Debian' | sort -u |
	awk '$2 ~ /^bookworm(-|$)/ { print "deb " $0 }')
[ -n "$mirrors" ] || die "apt knows no Debian 12 (bookworm) archive: apt-get update, or check /etc/apt/sources.list*"
mapfile -t mirror_args <<< "$mirrors"

t0=$SECONDS
rm -rf "$out/tree" "$out"/*.img "$out"/*.img.tmp
echo "rootfs: building a Debian 12 root filesystem for $kver in $out (once)" >&2
mkdir -p "$out/tree"
cp "$tools_deb" "$out/tree.klp-tools.deb"
# customize: a fixed machine id (each boot is not a first boot), a name,
# no getty (nobody logs in; the harness's own unit runs the test), and
# klp-tools' dependencies downloaded into apt's cache, not installed
if ! mmdebstrap --variant=minbase --mode=root --format=directory \
	--aptopt='APT::Install-Recommends "false"' \
	--include="systemd,systemd-sysv,udev,kmod,curl,iproute2,procps,linux-image-$kver=$kpkgver" \
	--customize-hook='chroot "$1" systemd-machine-id-setup' \
	--customize-hook='echo klp-guest > "$1/etc/hostname"' \
	--customize-hook='chroot "$1" systemctl mask getty@tty1.service serial-getty@ttyS0.service' \
	--customize-hook='chroot "$1" apt-get clean' \
	--customize-hook="cp '$out/tree.klp-tools.deb' \"\$1/tmp/klp-tools.deb\"" \
	--customize-hook='chroot "$1" apt-get install -y -q --download-only /tmp/klp-tools.deb' \
	--customize-hook='rm "$1/tmp/klp-tools.deb"' \
	--skip=cleanup/apt \
	bookworm "$out/tree" "${mirror_args[@]}" > "$out/build.log" 2>&1; then
	tail -n 30 "$out/build.log" >&2
	die "mmdebstrap failed (whole log: $out/build.log)"
fi
rm -f "$out/tree.klp-tools.deb"
[ -d "$out/tree/lib/modules/$kver/kernel" ] || die "no /lib/modules/$kver in the tree"

# ext4, a third free for what the guest installs (through its snapshot)
mb=$(( $(du -sm "$out/tree" | cut -f1) * 4 / 3 + 256 ))
mke2fs -q -t ext4 -L klp-root -d "$out/tree" "$img.tmp" "${mb}M" > /dev/null ||
	die "mke2fs -d failed"
mv "$img.tmp" "$img"
rm -rf "$out/tree"
echo "rootfs: $img ready (${mb} MB) in $((SECONDS - t0)) s" >&2
echo "$img"
