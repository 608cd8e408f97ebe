#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# klptop -h and klp-exporter -h are --help: the same text, on stdout,
# exit 0, nothing on stderr (help asked for is not an error).
. "$(dirname "$0")/../lib.sh"
ktap_start "klptop, klp-exporter: -h is --help"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for t in klptop klp-exporter; do
	[ -x "$KLP_BIN/$t" ] || { not_ok "build/bin/$t built (make userspace)"; continue; }
	for o in -h --help; do
		timeout 5 "$KLP_BIN/$t" $o > "$tmp/$t$o.out" 2> "$tmp/$t$o.err"
		echo $? > "$tmp/$t$o.rc"
	done
	assert_eq "$t --help: exit 0, help on stdout, nothing on stderr" "0 yes " \
		"$(cat "$tmp/$t--help.rc") $(grep -q "^Usage: $t" "$tmp/$t--help.out" && echo yes) $(cat "$tmp/$t--help.err")"
	assert_eq "$t -h: the same exit, stdout and stderr" "same" \
		"$(cmp -s "$tmp/$t-h.rc" "$tmp/$t--help.rc" && cmp -s "$tmp/$t-h.out" "$tmp/$t--help.out" &&
		   cmp -s "$tmp/$t-h.err" "$tmp/$t--help.err" && echo same)"
done
ktap_finish
