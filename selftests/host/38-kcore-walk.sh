#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# klp-trace's walk of the builtin livepatch's func_stacks without BPF
# (userspace/sources/livepatch/livepatch_walk_lib.c) through /proc/kcore
# (userspace/lib/kcore_lib.c), on a fake kcore (selftests/host/
# kcore_walk.c: an ELF64 core with two PT_LOADs holding a fake klp_ops
# list), under ASan and UBSan: the records in lp_walk's order (each
# klp_ops, its stack from the winner down) with patch, object, func names,
# old and new function and flags; an empty list; a list that never comes
# back to its head, a func_stack cycle, a pointer outside every segment, a
# NULL and a misaligned one: each walk ends, bounded, with its status, and
# is walked again LPW_TRIES times; names cut at the record's size or where
# the memory ends.  kcore's header refused when it is no ELF64 core of
# this byte order or its program headers lie outside the file; reads
# outside, across or past the end of a segment refused.  Then a bounded
# fuzz run of random damage to the header and memory: every open fails
# cleanly or every walk ends within its bounds, names terminated.
. "$(dirname "$0")/../lib.sh"
ktap_start "kcore and the builtin's func_stacks walked without BPF"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$KLP_TOP/selftests/host/kcore_walk.c" "$tmp/t.c"
unit_build "$tmp" kcore livepatch_walk_lib
t=$tmp/t

assert_eq "the walk: each klp_ops, its func_stack from the top; names, functions, flags" \
'tries 0 status 1 nr 3 ops 2
1 0 p2 vmlinux target_a,1(target_a) old=10 new=20 t=1 p=1 n=0
1 1 p1 vmlinux target_a,1(target_a) old=10 new=30 t=0 p=1 n=0
2 0 p1 vmlinux target_b,2(target_b,2) old=40 new=50 t=0 p=1 n=1' "$("$t" walk good)"
assert_eq "an empty list: done, no record" "tries 0 status 1 nr 0 ops 0" "$("$t" walk empty)"
assert_eq "a list that never comes back to its head: the steps run out, walked again, given up" \
	"tries -11 status 4 nr 2 ops 8190" "$("$t" walk ops-cycle | head -n 1)"
assert_eq "a func_stack cycle: the records fill up (as lp_walk: truncated)" \
	"tries 0 status 2 nr 4096 ops 2" "$("$t" walk func-cycle | head -n 1)"
for c in outside null misaligned; do
	assert_eq "a $c pointer: a fault, the node before it not recorded, given up after 3 walks" \
		"tries -11 status 3 nr 2 ops 1" "$("$t" walk $c | head -n 1)"
done
assert_eq "a name without its NUL at a segment's end: what can be read" \
	"1 0 tail vmlinux" "$("$t" walk name-at-end | sed -n '2s/ target.*//p')"
assert_eq "a name longer than the record: cut, terminated" \
	"63" "$("$t" walk name-long | sed -n '3p' | awk '{ print length($3) }')"

for c in magic class32 big-endian not-core phentsize phnum0 phnum-huge \
	 phoff-past-end phoff-wraps; do
	assert_eq "kcore header: $c refused (ENOEXEC)" "open -8 segs 0" "$("$t" hdr $c)"
done
assert_eq "kcore header: good, both PT_LOADs kept, the PT_NOTE not" \
	"open 0 segs 2 read-ops1 0 read-seg1-last 0" "$("$t" hdr good)"
assert_eq "kcore header: a PT_LOAD past 2^64 dropped, reads there refused" \
	"open 0 segs 1 read-ops1 -14 read-seg1-last -14" "$("$t" hdr seg-wraps)"
assert_eq "kcore reads: inside, the last byte; across an end, below, wrapping, too big, empty, closed: refused" \
'head 0 777ffff00000
last byte 0
across the end -14
below -14
wraps -14
bigger than a segment -14
zero bytes -14
closed -14' "$("$t" read)"

runs=${KLP_FUZZ_RUNS:-100000}
runs=$((runs < 50000 ? runs : 50000))
if "$t" fuzz "$runs" 1 > "$tmp/fuzz.out" 2> "$tmp/fuzz.err"; then
	ok "$runs damaged images: no sanitizer report, every walk bounded ($(cat "$tmp/fuzz.out"))"
else
	not_ok "$runs damaged images: no sanitizer report, every walk bounded"
	head -n 30 "$tmp/fuzz.err" | sed 's/^/#   /'
fi
ktap_finish
