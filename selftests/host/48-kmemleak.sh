#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# klp-min-results: 5
# kmemleak_records (selftests/lib.sh), what kmemleak_check fails on: a
# record of /sys/kernel/debug/kmemleak whose backtrace names a function or
# module of the pattern, or has a frame kallsyms no longer resolves (a
# module since unloaded), whole; no other.  The fixture is what
# 27-torture printed on the 6.1 debug kernel with a leak put into
# ktt_tgt's init (both sides' targets unloaded by then: bare frames); the
# other records are made up in the same format.
. "$(dirname "$0")/../lib.sh"
ktap_start "kmemleak_records: the leaks kmemleak_check fails on"

records() { grep -c '^unreferenced object'; }
fixture=$KLP_TOP/selftests/host/kmemleak/torture-red-6.1-debug.txt

assert_eq "the leaks of unloaded modules (bare frames) are taken" 2 \
	"$(kmemleak_records 'klp|ktt' < "$fixture" | records)"

# record NAME COMM FRAME: one record allocated by FRAME, from task COMM
record() {
	cat <<EOR
unreferenced object 0xffff8880072c$1 (size 64):
  comm "$2", pid 143, jiffies 4294894018
  hex dump (first 32 bytes):
    40 00 00 00 00 00 00 00 c8 9c 05 00 00 c9 ff ff  @...............
  backtrace:
    [<0000000057c9e349>] kmalloc_trace+0x26/0xc0
    [<00000000efe3fd4c>] $3
    [<0000000055c9a4fa>] do_one_initcall+0xd1/0x390
EOR
}
named=$(record 7580 insmod "ktt_tgt_init+0x41/0x60 [ktt_tgt_k]")
core=$(record 7600 insmod "klp_init_patch+0x1c4/0x5d0 [klp]")
kernel=$(record 7680 ktt_storm.py "kernfs_fop_open+0x2a3/0x4c0")
other=$(record 7700 modprobe "virtio_dev_probe+0x1c4/0x3d0 [virtio]")

assert_eq "a record naming a module of the pattern is taken, whole" "$named" \
	"$(kmemleak_records 'klp|ktt' <<< "$named")"
assert_eq "the pattern is looked for in the frames only (comm ktt_storm.py, the kernel's frames)" 0 \
	"$(kmemleak_records 'klp|ktt' <<< "$kernel" | records)"
assert_eq "another loaded module's record is left" 0 \
	"$(kmemleak_records 'klp|ktt' <<< "$other" | records)"
assert_eq "of a report mixing them, the pattern's and the unloaded modules' records, in order" \
	"$(printf '%s\n%s\n%s\n' "$named" "$core" "$(cat "$fixture")")" \
	"$(printf '%s\n%s\n%s\n%s\n%s\n' "$kernel" "$named" "$other" "$core" "$(cat "$fixture")" |
		kmemleak_records 'klp|ktt')"
ktap_finish
