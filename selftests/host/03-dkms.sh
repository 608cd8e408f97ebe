#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# DKMS builds klp.ko and klp_events.ko from what `make install` puts in
# /usr/src/klp-<ver> for every kernel whose headers are installed (6.1 and
# 6.12 here), each
# with that kernel's vermagic.  Private DKMS trees under a temporary
# directory: nothing is added to the system's DKMS.
. "$(dirname "$0")/../lib.sh"
ktap_start "dkms: klp.ko for every installed kernel"

command -v dkms > /dev/null || bail "dkms installed (scripts/deps.sh installs it)"
tmp=$(mktemp -d)
mkdir -p "$tmp/dkms"
trap 'rm -rf "$tmp"' EXIT
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$KLP_TOP/dkms.conf")
make -s -C "$KLP_TOP" install-dkms-src DESTDIR="$tmp/root" > "$tmp/install.log" 2>&1 ||
	{ cat "$tmp/install.log"; bail "make install-dkms-src"; }
src=$tmp/root/usr/src
check "source tree in /usr/src/klp-$ver" test -f "$src/klp-$ver/dkms.conf"
dk() { dkms "$@" --sourcetree "$src" --dkmstree "$tmp/dkms"; }
check "dkms add klp/$ver" eval 'dk add "klp/$ver" > "$tmp/add.log" 2>&1'

kvers=$(cd /usr/src && ls -d linux-headers-*-amd64 2>/dev/null | sed 's/^linux-headers-//' | sort -V)
diag "kernels with headers: $(echo $kvers)"
check "headers of a 6.1 and a 6.12 kernel installed" \
	eval 'echo "$kvers" | grep -q "^6\.1\." && echo "$kvers" | grep -q "^6\.12\."'
for k in $kvers; do
	if dk build "klp/$ver" -k "$k" > "$tmp/build-$k.log" 2>&1; then
		ok "dkms build for $k"
	else
		not_ok "dkms build for $k"
		tail -n 20 "$tmp/build-$k.log" | sed 's/^/# /'
		tail -n 20 "$tmp/dkms/klp/$ver/build/make.log" 2>/dev/null | sed 's/^/# /'
		continue
	fi
	# (6.12 compresses them)
	klp_ko_check "$k: klp.ko and klp_events.ko (the tracepoints, which klp.ko needs) built for $k" "$k" \
		"$(find "$tmp/dkms/klp/$ver/$k" -name 'klp.ko*' | head -n 1)" \
		"$(find "$tmp/dkms/klp/$ver/$k" -name 'klp_events.ko*' | head -n 1)"
done
ktap_finish
