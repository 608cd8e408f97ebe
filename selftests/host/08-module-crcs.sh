#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# After a change to the core, `make modules` leaves no module of the tree
# with the symbol CRCs of the older core (insmod: "disagrees about version
# of symbol").  In a scratch copy of the tree: build, change what the core
# includes (that changes the CRCs of its exports), build again; then every
# sample and test module must carry the new core's CRCs, upstream's test
# modules (build/upstream, built from linux-source) too.
. "$(dirname "$0")/../lib.sh"
ktap_start "module CRCs follow the core after a rebuild"

scratch_tree crcs
tmp=$SCRATCH

# core_crcs DIR: "symbol crc" of every export of DIR's core
core_crcs() {
	sed -n 's/^SYMBOL_CRC(\([a-z_]*\), \(0x[0-9a-f]*\),.*/\1 \2/p' "$1/core/klp.mod.c" | sort
}
# stale DIR: the modules of DIR that import a core export with another CRC
stale() {
	local ko
	core_crcs "$1" > "$1/core.crcs"
	for ko in "$1"/core/samples/*.ko "$1"/selftests/modules/*.ko \
		  "$1"/build/upstream/modules/*.ko; do
		modprobe --dump-modversions "$ko" 2>/dev/null |
			awk -v ko="${ko##*/}" 'NR == FNR { crc[$1] = $2; next }
				($2 in crc) && crc[$2] != $1 { print ko; exit }' \
				"$1/core.crcs" -
	done
}

# Against the distribution's kernel (CONFIG_MODVERSIONS), whatever kernel
# the suite targets: make check-debug's has no symbol CRCs at all.
build() {
	env -u KVER -u KDIR make -s -C "$tmp" modules > "$tmp/build.log" 2>&1 ||
		{ diag "$(tail -n 20 "$tmp/build.log")"; return 1; }
}
check "the scratch tree builds" build
first=$(core_crcs "$tmp")
check "the core exports its API with CRCs" grep -q '^klpcore_register_patch 0x' <<< "$first"
check "upstream's test modules are built (linux-source-6.1)" \
	[ -f "$tmp/build/upstream/modules/test_klp_livepatch.ko" ]
assert_eq "no module with another core's CRCs after the first build" "" "$(stale "$tmp")"

# struct seq_file now fully known where the exports are defined (struct
# module reaches it): their CRCs change
sed -i '0,/^#include <linux\//s//#include <linux\/seq_file.h>\n&/' "$tmp/core/core.c"
check "the scratch tree builds again after the core changed" build
check "the core's export CRCs changed (the change is one that matters)" \
	[ "$first" != "$(core_crcs "$tmp")" ]
assert_eq "no module with the older core's CRCs" "" "$(stale "$tmp")"
ktap_finish
