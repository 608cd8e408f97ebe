#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the lockdep/KASAN guest kernel for `make check-debug` from Debian's
# linux-source (Debian ships no debug kernel flavour), x86_64_defconfig plus
# kvm_guest.config plus scripts/debug-kernel.config, and lay it out like a
# stock kernel in build/kernel/<release>/ so that selftests/guest/boot.sh
# boots it unchanged.  Prints the kernel release on stdout; the build tree
# for external modules is build/debug-kernel/obj.
# Usage: scripts/debug-kernel.sh
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
base=$top/build/debug-kernel
src=$base/linux-source-6.1
obj=$base/obj
frag=$top/scripts/debug-kernel.config
tarball=/usr/src/linux-source-6.1.tar.xz

log() { echo "debug-kernel: $*" >&2; }

if [ ! -f "$tarball" ]; then
	log "$tarball missing: scripts/deps.sh -d installs it"
	exit 1
fi
mkdir -p "$base"
if [ ! -f "$src/Makefile" ]; then
	log "extracting $tarball"
	tar -C "$base" -xJf "$tarball"
fi

kmake() { make -s -C "$src" O="$obj" -j"$(nproc)" "$@"; }

# Reconfigure only when the fragment changed: a rebuild is incremental.
if [ ! -f "$obj/.config" ] || [ "$obj/.config" -ot "$frag" ]; then
	log "configuring"
	mkdir -p "$obj"
	kmake x86_64_defconfig >&2
	KCONFIG_CONFIG=$obj/.config "$src/scripts/kconfig/merge_config.sh" -m -O "$obj" \
		"$obj/.config" "$src/kernel/configs/kvm_guest.config" "$frag" >/dev/null
	kmake olddefconfig >&2
fi
missing=$(grep -E '^CONFIG_[A-Z0-9_]+=y$' "$frag" | while read -r want; do
	grep -qx "$want" "$obj/.config" || echo "${want%=y}"
done)
if [ -n "$missing" ]; then
	log "the configuration lost:" $missing
	exit 1
fi

# The release (LOCALVERSION included) is known once the tree is prepared.
kmake prepare >&2
rel=$(cat "$obj/include/config/kernel.release")
dest=$top/build/kernel/$rel
if [ ! -f "$dest/.done" ] || [ "$dest/.done" -ot "$obj/.config" ]; then
	log "building $rel with $(nproc) jobs (tens of minutes on 2 cores)"
	t0=$(date +%s)
	kmake bzImage modules >&2
	rm -rf "$dest"
	mkdir -p "$dest/root/boot"
	kmake INSTALL_MOD_PATH="$dest/root" modules_install >&2
	cp "$obj/arch/x86/boot/bzImage" "$dest/root/boot/vmlinuz-$rel"
	ln -sf "$obj/vmlinux" "$dest/vmlinux"
	touch "$dest/.done"
	log "built in $(( $(date +%s) - t0 )) s"
fi
# Its configuration where a distribution keeps it (18-ibt reads it there).
cmp -s "$obj/.config" "$dest/root/boot/config-$rel" ||
	cp "$obj/.config" "$dest/root/boot/config-$rel"
echo "$rel"
