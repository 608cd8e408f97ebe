#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# klp-cost: 42
# klp-accel: tcg,thread=single
# klp-min-results: 43
# klp_reloc relocations (seed 003) on the 6.1 module layout: each supported
# type written with the right value, object and external symbols, a slot in
# read-only memory, a verified vmlinux val; broken ones refused.  A symbol
# exported by another module pins that module while the patch module holds
# its address.
. "$(dirname "$0")/../lib.sh"
ktap_start "relocations"

klp_insmod klp || bail "core loads"
klp_insmod klp_test_target || bail "target loads"

sym() {	# sym NAME [MODULE]: address from /proc/kallsyms
	if [ -n "${2:-}" ]; then
		awk -v s="$1" -v m="[$2]" '$3 == s && $4 == m { print $1; exit }' /proc/kallsyms
	else
		awk -v s="$1" 'NF == 3 && $3 == s { print $1; exit }' /proc/kallsyms
	fi
}
hex() { printf '%x' "$1"; }
jiffies=$(sym jiffies)

dmesg_mark
for b in outside type overflow missing; do
	check "broken relocation '$b' refused" eval "! klp_insmod klp_test_reloc bad=$b"
done
check "outside: error names the bounds" dmesg_has "lies outside module 'klp_test_reloc'"
check "type: error names the type" dmesg_has "unsupported relocation type 9"
check "overflow: error names the overflow" dmesg_has "overflows type 10"
check "missing: error names the symbol" dmesg_has "symbol 'klp_target_zz' not found in object 'klp_test_target'"
dmesg_mark
check "wrong vmlinux val refused" eval "! klp_insmod klp_test_reloc vmlinux_val=0x$(hex $((0x$jiffies + 8)))"
check "wrong vmlinux val: error names the symbol" dmesg_has "symbol 'jiffies' not found at specified address"
check "nothing registered by the refused loads" test ! -e "$KLP_SYSFS/klp_test_reloc"
assert_eq "klp_target_a untouched" 100 "$(target a)"

check "exporter module loads" klp_insmod klp_test_export
refcnt() { cat /sys/module/klp_test_export/refcnt; }
# Every relocation (the exporter's too) is written, then a func is missing.
check "a patch failing after its relocations is refused" eval "! klp_insmod klp_test_reloc ext=1 bad=func"
assert_eq "the refused patch module's pin on the exporter is dropped" 0 "$(refcnt)"

check "exporter unloads" rmmod klp_test_export

# An exporter still in its init (a driver probing at boot) is pinned like
# a live one; if its init then fails, the pin goes with it, and the next
# module at that place is pinned afresh.
modrefs() { awk '$1 == "module_refs" { print $2 }' /sys/kernel/debug/klp/allocated; }
klp_insmod klp_test_export init_delay_ms=$((3000 * ${KLP_TIMEOUT_SCALE:-1})) fail_init=1 &
exp_pid=$!
check "exporter in its init" wait_until 5 grep -q '^klp_test_export .* Loading ' /proc/modules
check "relocation patch loads with a verified vmlinux val, the exporter in its init" \
	klp_insmod klp_test_reloc vmlinux_val=0x$jiffies ext=1
# (the loader holds one reference for as long as the init runs)
assert_eq "the exporter in its init is pinned (refcnt 2: the loader's, ours)" 2 "$(refcnt)"
dmesg_mark
check "the exporter's init fails" eval "! wait $exp_pid"
assert_eq "no module reference left for it (klp/allocated module_refs)" 0 "$(modrefs)"
check "the log says the patch module's relocations to it are stale" \
	dmesg_has "module 'klp_test_export' went away in its init: the relocations of patch module 'klp_test_reloc' to its symbols are stale"
check "exporter loads again" klp_insmod klp_test_export
check "target reloads: the relocations are written again" \
	eval "rmmod klp_test_target && klp_insmod klp_test_target"
readslots() {
	read -r _ s64 _ s32s _ spc _ sloc _ snone _ sext _ sself _ sro _ svml _ splt _ sploc _ smod \
		< /sys/module/klp_test_reloc/parameters/slots
}
readslots
secret=$(sym klp_target_secret klp_test_target)
a=$(sym klp_target_a klp_test_target)
b=$(sym klp_target_b klp_test_target)
helper=$(sym klp_reloc_helper klp_test_reloc)
assert_same "R_X86_64_64 of an object symbol" "$secret" "$s64"
assert_eq "R_X86_64_32S of an object symbol + 8" "$(hex $(( (0x$a + 8) & 0xffffffff )))" "$s32s"
assert_eq "R_X86_64_PC32 of an object symbol - 4" "$(hex $(( (0x$b - 4 - 0x$sloc) & 0xffffffff )))" "$spc"
c=$(sym klp_target_c klp_test_target)
assert_eq "R_X86_64_PLT32 (gcc's calls) of an object symbol - 4" "$(hex $(( (0x$c - 4 - 0x$sploc) & 0xffffffff )))" "$splt"
assert_eq "R_X86_64_NONE writes nothing" 1234 "$snone"
assert_same "R_X86_64_64 of an exported symbol (external)" "$jiffies" "$sext"
assert_same "R_X86_64_64 of a patch module symbol (external)" "$helper" "$sself"
assert_same "R_X86_64_64 into read-only memory" "$secret" "$sro"
assert_same "R_X86_64_64 of a verified vmlinux symbol" "$jiffies" "$svml"
assert_same "R_X86_64_64 of a symbol exported by a module (external)" \
	"$(sym klp_test_exported klp_test_export)" "$smod"
assert_eq "the new exporter is pinned by the patch module (refcnt 1)" 1 "$(refcnt)"
assert_eq "one module reference held (klp/allocated module_refs)" 1 "$(modrefs)"
check "the exporter cannot be unloaded" eval '! rmmod klp_test_export 2>/dev/null'

assert_eq "replacement reads the secret through its relocation" $((0x5ec7e7)) "$(target a)"
assert_eq "vmlinux object of the same patch applied" relocated "$(cat /proc/cmdline)"

# The object's relocations are redone on every load of its module.
check "target reloads" eval "rmmod klp_test_target && klp_insmod klp_test_target"
readslots
secret=$(sym klp_target_secret klp_test_target)
assert_same "R_X86_64_64 rewritten for the reloaded module" "$secret" "$s64"
assert_eq "replacement works on the reloaded module" $((0x5ec7e7)) "$(target a)"
assert_eq "the exporter is still pinned once (refcnt 1)" 1 "$(refcnt)"
ktap_finish
