#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# klp-cost: 50
# klp-accel: tcg,thread=single
# klp-min-results: 42
# Symbol positions (klp_func.old_sympos) under KASLR, where an old_addr
# hint is ignored: klp_test_dup has two local functions named klp_dup_fn
# (the first returns 1, the second 2).  Without a position the name is
# refused as ambiguous, a position past the last is refused, one symbol
# named twice is refused (positions 0 and 1 are the same symbol); each
# refusal names the problem and leaves nothing behind.  Positions 1 and 2
# patch exactly the copy they name, in sysfs as klp_dup_fn and
# klp_dup_fn,2, in klp/state and the events, and again when the module
# comes back.  A vmlinux name kallsyms lists twice resolves to the address
# /proc/kallsyms gives at that position.  Last, the sample patches
# khugepaged's full_scans_show, the second of two in vmlinux.
. "$(dirname "$0")/../lib.sh"
ktap_start "symbol positions (sympos)"

klp_insmod klp || bail "core loads"
klp_insmod klp_test_dup || bail "klp_test_dup loads"
DUP=/sys/kernel/debug/klp_test_dup
PDIR=$KLP_SYSFS/klp_test_probe2/klp_test_dup

check "KASLR moved the kernel (old_addr hints ignored)" \
	test "$(awk '$3 == "_text" { print $1 }' /proc/kallsyms)" != ffffffff81000000
# addrs OBJ NAME: the addresses /proc/kallsyms lists for NAME, in its order
addrs() {
	awk -v m="[$1]" -v s="$2" '$3 == s && (m == "[vmlinux]" ? NF == 3 : $4 == m) { print "0x" $1 }' /proc/kallsyms
}
dup_addrs=$(addrs klp_test_dup klp_dup_fn)
diag "klp_dup_fn at" $dup_addrs
assert_eq "two klp_dup_fn in klp_test_dup" 2 "$(echo "$dup_addrs" | wc -l)"
calls() {
	echo "$(cat $DUP/1) $(cat $DUP/2)"
}
assert_eq "originals return 1 and 2" "1 2" "$(calls)"

# what_is: klp_test_probe's sysfs entry, ftrace's users, both copies' values
what_is() {
	echo "$([ -e "$KLP_SYSFS/klp_test_probe" ] && echo present || echo absent)|$(sort "$TRACEFS/enabled_functions")|$(calls)"
}

# refused WHAT MESSAGE PARAMS...: klp_test_probe with PARAMS fails to load,
# the kernel log says MESSAGE, and nothing changed
refused() {
	local what=$1 msg=$2 before
	shift 2
	before=$(what_is)
	dmesg_mark
	check "$what: refused" eval "! klp_insmod klp_test_probe $*"
	check "$what: the error says so" dmesg_has "$msg"
	assert_eq "$what: nothing changed" "$before" "$(what_is)"
}

refused "no position for a duplicate name" \
	"unresolvable ambiguity (2 matches) on symbol 'klp_dup_fn' in object 'klp_test_dup': pick one with old_sympos" \
	objname=klp_test_dup funcs=klp_dup_fn
refused "position 3 of 2" \
	"symbol position 3 for symbol 'klp_dup_fn' in object 'klp_test_dup' not found: it occurs 2 times" \
	objname=klp_test_dup funcs=klp_dup_fn sympos=3
refused "one position twice" \
	"function 'klp_dup_fn' appears twice in object 'klp_test_dup' (symbol position 2)" \
	objname=klp_test_dup funcs=klp_dup_fn,klp_dup_fn sympos=2,2
refused "positions 0 and 1 name one symbol" \
	"function 'klp_dup_fn' appears twice in object 'klp_test_dup' (symbol position 1)" \
	objname=klp_test_dup funcs=klp_dup_fn,klp_dup_fn sympos=1,0
refused "position 2 of a unique name" \
	"symbol position 2 for symbol 'klp_dup_read' in object 'klp_test_dup' not found: it occurs 1 time" \
	objname=klp_test_dup funcs=klp_dup_read sympos=2

trace_no_comm
echo 1 > "$TRACEFS/events/klp/klp_func_push/enable"
echo > "$TRACEFS/trace"
check "positions 2 and 1 in one patch load and enable" \
	klp_insmod klp_test_probe2 objname=klp_test_dup funcs=klp_dup_fn,klp_dup_fn sympos=2,1
echo 0 > "$TRACEFS/events/klp/klp_func_push/enable"
assert_eq "each copy runs its own replacement" "9001 9000" "$(calls)"
assert_eq "sysfs directories klp_dup_fn and klp_dup_fn,2" "klp_dup_fn klp_dup_fn,2" \
	"$(cd "$PDIR" && ls -d klp_dup_fn* | sort | tr '\n' ' ' | sed 's/ $//')"
assert_same "old_addr of each is the kallsyms address at its position" "$dup_addrs" \
	"$(cat "$PDIR/klp_dup_fn/old_addr" "$PDIR/klp_dup_fn,2/old_addr")"
assert_eq "klp/state names them apart" "klp_dup_fn,2 klp_dup_fn" \
	"$(awk '$1 == "func" && $2 == "klp_test_probe2" { printf "%s%s", s, $4; s = " " }' "$KLP_STATE")"
assert_eq "push events name them apart" "klp_dup_fn,2 klp_dup_fn" \
	"$(sed -n 's/.*klp_func_push: seq=[0-9]* klp_test_dup:\([^ ]*\) patch=.*/\1/p' "$TRACEFS/trace" | tr '\n' ' ' | sed 's/ $//')"

check "disable" set_enabled klp_test_probe2 0
assert_eq "both originals back" "1 2" "$(calls)"
check "enable again" set_enabled klp_test_probe2 1
assert_eq "both replaced again" "9001 9000" "$(calls)"
check "klp_test_dup reloads under the enabled patch" eval "rmmod klp_test_dup && klp_insmod klp_test_dup"
assert_eq "positions resolved again on its coming" "9001 9000" "$(calls)"
assert_same "old_addrs follow the new load" "$(addrs klp_test_dup klp_dup_fn)" \
	"$(cat "$PDIR/klp_dup_fn/old_addr" "$PDIR/klp_dup_fn,2/old_addr")"

# A vmlinux name kallsyms lists twice (register only: never run).
amb=$(awk 'NF == 3 && ($2 == "t" || $2 == "T") { n[$3]++ } END { for (s in n) if (n[s] == 2) print s }' /proc/kallsyms |
	grep -v -e '\.' -e '^__' | sort | head -n 1)
diag "vmlinux duplicate: $amb at" $(addrs vmlinux "$amb")
check "found a duplicate vmlinux name" test -n "$amb"
refused "vmlinux: position 3 of 2" \
	"symbol position 3 for symbol '$amb' in object 'vmlinux' not found: it occurs 2 times" \
	funcs="$amb" sympos=3 enable=0
check "vmlinux: position 2 registers" klp_insmod klp_test_probe funcs="$amb" sympos=2 enable=0
assert_same "vmlinux: old_addr is the second kallsyms address" \
	"$(addrs vmlinux "$amb" | sed -n 2p)" \
	"$(func_attr klp_test_probe vmlinux "$amb,2" old_addr)"

# The sample: khugepaged's full_scans_show is the second of two (ksm's first).
KSM=/sys/kernel/mm/ksm/full_scans
THP=/sys/kernel/mm/transparent_hugepage/khugepaged/full_scans
if [ -e $KSM ] && [ -e $THP ]; then
	ksm_before=$(cat $KSM)
	check "livepatch-sympos loads" klp_insmod livepatch-sympos
	assert_eq "khugepaged's full_scans is patched, ksm's is not" \
		"this has been live patched (symbol position 2)|$ksm_before" "$(cat $THP)|$(cat $KSM)"
	check "its sysfs directory is full_scans_show,2" test -d "$KLP_SYSFS/livepatch_sympos/vmlinux/full_scans_show,2"
	check "sample disables" set_enabled livepatch_sympos 0
	assert_eq "khugepaged's full_scans is a number again" yes \
		"$(grep -qx '[0-9]*' $THP && echo yes)"
else
	# Debian's kernels have both; a kernel without KSM or THP has at
	# most one full_scans_show, which the sample cannot be about.
	for c in "livepatch-sympos loads" "khugepaged's full_scans is patched, ksm's is not" \
		"its sysfs directory is full_scans_show,2" "sample disables" \
		"khugepaged's full_scans is a number again"; do
		skip "$c" "no KSM or no THP in this kernel: no two full_scans_show"
	done
fi
ktap_finish
