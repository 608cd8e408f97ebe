#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# userspace/ reads like its design (userspace/README.md), drawn from the
# code itself: every dependency points down, lib <- the model <- the
# sources <- the tools, never up and never beside (one source on another,
# one tool on another), and none goes round in a circle.
# selftests/host/rooms.py reads each file's #includes, the global symbols
# each object uses and defines (nm on build/obj/, as make built them),
# what each header declares, and the Makefile's link lines; each finding
# is a not ok naming the file and what it depends on.  First, on a copy
# with one fault of each kind put in on purpose, the drawing must see
# every one of them.
. "$(dirname "$0")/../lib.sh"
ktap_start "userspace/: every include, call and link line points down"

command -v nm > /dev/null || bail "nm present (binutils)"
[ -x "$KLP_BIN/klptop" ] || bail "build/bin/klptop built (make userspace)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# draw TOP OBJDIR: rooms.py's findings, or the group ends
draw() {
	python3 "$KLP_TOP/selftests/host/rooms.py" "$1" "$2" 2> "$tmp/err" ||
		bail "rooms.py reads the tree ($(tail -n 1 "$tmp/err"))"
}

# --- the drawing sees each kind of fault ----------------------------------
c=$tmp/copy
# copy: the tree's userspace/, Makefile and objects, as they are
copy() {
	rm -rf "$c"
	mkdir -p "$c/build"
	cp -r "$KLP_TOP/userspace" "$KLP_TOP/Makefile" "$c/"
	cp -r "$KLP_TOP/build/obj" "$c/build/obj"
}
# fault FILE SED: a line of userspace/FILE changed, its object kept newer
fault() {
	sed -i "$2" "$c/userspace/$1"
	touch -r "$KLP_TOP/userspace/$1" "$c/userspace/$1"
}
# sees WHAT PATTERN: the copy's drawing finds PATTERN, and nothing but
# dependencies up, beside or round
sees() {
	local found
	found=$(draw "$c" "$c/build/obj")
	if grep -qP "$2" <<< "$found" && ! grep -qvP '^(up|side|decl|circle|link|count)\t' <<< "$found"; then
		ok "a fault put in is seen: $1"
	else
		not_ok "a fault put in is seen: $1"
		while read -r l; do diag "  $l"; done <<< "$found"
	fi
}
copy
fault model/model.c 's/^#include "model.h"/&\n#include "klptop.h"/'
sees "an include up (the model of klptop's header)" \
	'^up\tmodel/model.c\ttools/klptop/klptop.h\tinclude$'
copy
printf 'void kt_help_lines(void *f);\nvoid rooms_fault(void) { kt_help_lines(0); }\n' \
	>> "$c/userspace/model/model.c"
gcc -c -Wno-implicit-function-declaration -D_GNU_SOURCE -I"$KLP_TOP/include" \
	-I"$c/userspace/lib" -I"$c/userspace/model" -o "$c/build/obj/model.o" \
	"$c/userspace/model/model.c" 2> "$tmp/cc" || diag "$(head -n 3 "$tmp/cc")"
sees "a call up (the model's object calls klptop's help)" \
	'^up\tmodel/model.c\ttools/klptop/klptop_keys.c\tuses kt_help_lines$'
copy
fault sources/klp/source_klp.c 's/^#include "source_klp.h"/&\n#include "source_livepatch.h"/'
sees "an include beside (klp's source of the builtin's header)" \
	'^side\tsources/klp/source_klp.c\tsources/livepatch/source_livepatch.h\tinclude$'
copy
fault model/model.h 's/^void model_free(/int klp_source_open(void *s, void *f, void *c);\n&/'
sees "a header that declares another room's function (the model, klp's source's)" \
	'^decl\tmodel/model.h\tklp_source_open\tsources/klp/source_klp.c$'
copy
fault model/transition_model.c 's/^#include "alloc.h"/#include "model.h"/'
sees "a circle inside a room (the transitions include the model, which includes them)" \
	'^circle\t(.*\t)?model/model\.h\t(.*\t)?model/transition\.h\t(.*\t)?model/transition_model\.c(\t|$)'
copy
fault ../Makefile 's/^klptop_ROOMS := /&klp-exporter_text /'
sees "a tool linked with another tool's room" \
	'^link\tklptop\ttools/klp-exporter/klp-exporter_text.c\tanother tool'"'"'s room'
copy
fault ../Makefile 's/^klptop_LIBS := /&seqorder /'
sees "a tool linked with a file it never uses" \
	'^link\tklptop\tlib/seqorder_lib.c\tlinked, never used$'

# --- the tree as it is -----------------------------------------------------
out=$(draw "$KLP_TOP" "$KLP_TOP/build/obj")
stale=$(awk -F'\t' '$1 == "stale" { print $2 }' <<< "$out")
[ -z "$stale" ] || bail "every object newer than its file (make userspace): $(tr '\n' ' ' <<< "$stale")"

# report KIND WHAT: a not ok for each file with findings of KIND, each
# finding a line under it; one ok when there is none
report() {
	local f files
	files=$(awk -F'\t' -v k="$1" '$1 == k { print $2 }' <<< "$out" | sort -u)
	if [ -z "$files" ]; then
		ok "$2: none"
		return
	fi
	for f in $files; do
		not_ok "$2: $f"
		awk -F'\t' -v k="$1" -v f="$f" '$1 == k && $2 == f {
			$1 = $2 = ""; sub(/^ +/, ""); print "#   " f " -> " $0 }' <<< "$out"
	done
}
report up "a dependency on a room above its own"
report side "a dependency on a room beside its own (another source, another tool)"
report decl "a header that declares a symbol another room defines"
report link "a tool linked with another tool's room, or with a file it never uses"
circles=$(awk -F'\t' '$1 == "circle" { $1 = ""; print }' <<< "$out")
if [ -z "$circles" ]; then
	ok "a circle of dependencies: none"
else
	while read -r l; do
		not_ok "a circle of dependencies: $l"
	done <<< "$circles"
fi
diag "$(awk -F'\t' '$1 == "count" { printf "%s %s  ", $3, $2 }' <<< "$out")"
ktap_finish
