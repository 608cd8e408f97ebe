#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The man pages klptop(8), klp-trace(8) and klp-exporter(8): groff formats
# them without a warning, and every option a tool's --help lists is
# documented in its page.
. "$(dirname "$0")/../lib.sh"
ktap_start "man pages: clean, and every option documented"

for tool in klptop klp-trace klp-exporter; do
	page=$KLP_TOP/man/$tool.8
	bin=$KLP_TOP/build/bin/$tool
	[ -f "$page" ] || { not_ok "$tool: man/$tool.8 exists"; continue; }
	[ -x "$bin" ] || { not_ok "$tool: built (make userspace)"; continue; }
	warnings=$(groff -man -ww -z "$page" 2>&1)
	assert_eq "$tool.8: groff -man -ww formats it without a warning" "" "$warnings"
	# "  -c, --count=COUNT ..." and "      --json ...": every long option
	opts=$("$bin" --help | grep -oE '^ +(-[^ ,], )?--[a-z-]+' | grep -oE -- '--[a-z-]+' |
		grep -vxE -- '--(usage)' | sort -u)
	check "$tool: --help lists options" test -n "$opts"
	# the page as text, hyphens plain
	text=$(MANWIDTH=200 man -l "$page" 2>/dev/null | col -b | sed 's/‐/-/g')
	missing=
	for o in $opts; do
		grep -qF -- "$o" <<< "$text" || missing+=" $o"
	done
	assert_eq "$tool.8 documents every option of --help" "" "${missing# }"
done
ktap_finish
