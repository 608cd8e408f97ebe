#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# DKMS on other distributions: `make install` (install-dkms-src) puts the
# core's source in /usr/src/klp-<ver>, and it is the klp-dkms package's
# tree file for file, which host/29-deb has DKMS build and install with
# each installed kernel's vermagic (6.1 and 6.12 here): the two ways differ
# only in who copies the files.  dkms accepts the tree (dkms add, in a
# private DKMS tree: nothing is added to the system's DKMS).
. "$(dirname "$0")/../lib.sh"
ktap_start "dkms: make install's source tree, the klp-dkms package's"

command -v dkms > /dev/null || bail "dkms installed (scripts/deps.sh installs it)"
tmp=$(mktemp -d)
mkdir -p "$tmp/dkms"
trap 'rm -rf "$tmp"' EXIT
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$KLP_TOP/dkms.conf")
make -s -C "$KLP_TOP" install-dkms-src DESTDIR="$tmp/root" > "$tmp/install.log" 2>&1 ||
	{ cat "$tmp/install.log"; bail "make install-dkms-src"; }
src=$tmp/root/usr/src
check "source tree in /usr/src/klp-$ver" test -f "$src/klp-$ver/dkms.conf"
check "dkms add klp/$ver" eval \
	'dkms add "klp/$ver" --sourcetree "$src" --dkmstree "$tmp/dkms" > "$tmp/add.log" 2>&1'

debs=$("$KLP_TOP/scripts/deb.sh" 2> "$tmp/deb.err") ||
	{ diag "$(cat "$tmp/deb.err")"; bail "scripts/deb.sh builds the packages"; }
dpkg-deb -x "$(grep '/klp-dkms_' <<< "$debs")" "$tmp/pkg"
assert_eq "the same files, the same contents as the klp-dkms package's /usr/src" "" \
	"$(diff -r "$src" "$tmp/pkg/usr/src" 2>&1)"
ktap_finish
