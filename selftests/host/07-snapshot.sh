#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# userspace/sources/klp/snapshot_lib.c, the parser of debugfs klp/state: a good file
# gives its seq, patches and stacks (winner first); a line that does not
# parse, a func outside its patch or object, or stacks that do not add up
# are refused as -EPROTO naming the line, never half-read.
. "$(dirname "$0")/../lib.sh"
ktap_start "snapshot_lib: parse debugfs klp/state"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/t.c" <<'EOC'
#include <errno.h>
#include <stdio.h>
#include "snapshot.h"

/* print what klp_snapshot_parse() made of stdin, or its error */
int main(void)
{
	struct klp_snapshot snap;
	size_t i;
	int err;

	err = klp_snapshot_parse(&snap, stdin);
	if (err) {
		printf("error %d line %zu\n", err, snap.bad_line);
		return 1;
	}
	printf("seq %llu\n", snap.seq);
	for (i = 0; i < snap.nr_patches; i++)
		printf("patch %s %d srcversion=%s cve=%s enabled_ns=%llu\n",
		       snap.patches[i].name, snap.patches[i].enabled,
		       snap.patches[i].srcversion ?: "(none)",
		       snap.patches[i].cve ?: "(none)",
		       snap.patches[i].enabled_ns);
	for (i = 0; i < snap.nr_funcs; i++) {
		const struct klp_snap_func *f = &snap.funcs[i];

		printf("func %s %s %s id=%u loaded=%d patched=%d pos=%d/%u old=%#llx new=%#llx\n",
		       f->object, f->func, f->patch, f->id, f->loaded,
		       f->patched, f->stack_pos, f->stack_depth, f->old_addr,
		       f->new_func);
	}
	klp_snapshot_free(&snap);
	return 0;
}
EOC
unit_build "$tmp" snapshot

# p1 and p2 both on vmlinux's f, p2 winning; p1 also on mod's g, which is
# not loaded; a record kind from a newer core in between
good='seq 42
patch p1 1
info p1 D18882B9E144041D3E7CD16 CVE-2099-0001,CVE-2099-0002 1764860000123456789
object p1 vmlinux 1
func p1 vmlinux f 3 2 2 0xffffffff81000010 0xffffffffc0001000
object p1 mod 0
func p1 mod g 4 0 0 0x0 0xffffffffc0001100
patch p2 1
info p2 - - 0
future p2 something
object p2 vmlinux 1
func p2 vmlinux f 7 1 2 0xffffffff81000010 0xffffffffc0002000
stack vmlinux f 2 p2:7 p1:3'
want='seq 42
patch p1 1 srcversion=D18882B9E144041D3E7CD16 cve=CVE-2099-0001,CVE-2099-0002 enabled_ns=1764860000123456789
patch p2 1 srcversion=(none) cve=(none) enabled_ns=0
func mod g p1 id=4 loaded=0 patched=0 pos=0/0 old=0 new=0xffffffffc0001100
func vmlinux f p2 id=7 loaded=1 patched=1 pos=1/2 old=0xffffffff81000010 new=0xffffffffc0002000
func vmlinux f p1 id=3 loaded=1 patched=1 pos=2/2 old=0xffffffff81000010 new=0xffffffffc0001000'
assert_eq "a good state: seq, patches and their info, funcs sorted winner first, unknown kinds skipped" \
	"$want" "$("$tmp/t" <<< "$good")"
assert_eq "only a seq: nothing registered" "seq 0" "$("$tmp/t" <<< "seq 0")"

bad() {	# bad LABEL WANT INPUT
	local got rc
	got=$(printf '%s' "$3" | "$tmp/t")
	rc=$?
	assert_eq "$1" "$2" "$got
rc=$rc"
}
proto=-$(printf '%d' "$(grep -m1 -o 'EPROTO[[:space:]]*[0-9]*' /usr/include/asm-generic/errno.h | awk '{ print $2 }')")
bad "empty: refused" "error $proto line 0
rc=1" ""
bad "an empty line: refused at line 1" "error $proto line 1
rc=1" "
"
bad "no seq first: refused at line 1" "error $proto line 1
rc=1" "patch p1 1"
bad "a func with a field missing: refused at its line" "error $proto line 4
rc=1" "seq 1
patch p1 1
object p1 vmlinux 1
func p1 vmlinux f 3 1 1 0x10"
bad "a func of another patch than the one before it: refused" "error $proto line 4
rc=1" "seq 1
patch p1 1
object p1 vmlinux 1
func p2 vmlinux f 3 1 1 0x10 0x20"
bad "a func before any object: refused" "error $proto line 3
rc=1" "seq 1
patch p1 1
func p1 vmlinux f 3 1 1 0x10 0x20"
bad "a negative position: refused" "error $proto line 4
rc=1" "seq 1
patch p1 1
object p1 vmlinux 1
func p1 vmlinux f 3 -1 1 0x10 0x20"
bad "a torn stack (winner of depth 2 alone): refused, no line" "error $proto line 0
rc=1" "seq 1
patch p1 1
object p1 vmlinux 1
func p1 vmlinux f 3 1 2 0x10 0x20"
bad "an info of another patch: refused at its line" "error $proto line 3
rc=1" "seq 1
patch p1 1
info p2 - - 0"
bad "a second info for a patch: refused at its line" "error $proto line 4
rc=1" "seq 1
patch p1 1
info p1 - - 0
info p1 - - 5"
bad "an info with a bad time: refused at its line" "error $proto line 3
rc=1" "seq 1
patch p1 1
info p1 - - -1"
bad "an info with a field missing: refused at its line" "error $proto line 3
rc=1" "seq 1
patch p1 1
info p1 - 0"
bad "two winners on one function: refused" "error $proto line 0
rc=1" "seq 1
patch p1 1
object p1 vmlinux 1
func p1 vmlinux f 3 1 2 0x10 0x20
patch p2 1
object p2 vmlinux 1
func p2 vmlinux f 4 1 2 0x10 0x30"
ktap_finish
