#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# selftests/mutants/run.sh - the mutation counts doc/testing.md quotes,
# reproduced: each selftests/mutants/NAME.patch breaks one property of the
# core on purpose, and the guest group named in its header line
#   # klp-mutant-group: GROUP
# must go red on it.  For each mutant: a scratch copy of the working tree
# (build/mutants/NAME), the patch applied there, `make all`, then
# `selftests/run.sh GROUP` in the copy, which must fail.  Prints one line
# a mutant, "NAME (GROUP): killed (F of N checks failed)" or
# "NAME (GROUP): SURVIVED", and exits non-zero if any survived or could
# not be tried.  A mutant is only a claim about the tests while it still
# applies: selftests/host/41-mutants.sh checks that on every make check.
#
# Not part of make check: each mutant is a build and one guest group
# (1-5 minutes, queued behind other guests on the guest lock).
#
# Usage: selftests/mutants/run.sh [NAME...]   (default: every mutant)
#   KEEP=1 leaves build/mutants/NAME (its group's output in group.out)
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 2

if [ $# -gt 0 ]; then
	names=("$@")
else
	names=()
	for p in selftests/mutants/*.patch; do
		[ -e "$p" ] && names+=("$(basename "$p" .patch)")
	done
fi
[ ${#names[@]} -gt 0 ] || { echo "mutants: none in selftests/mutants/" >&2; exit 2; }

# The guest kernel and its module tree are shared, not copied (gigabytes):
# the copy's build/kernel is a symlink to this tree's, and a RELATIVE one,
# because the guest resolves the path itself over its 9p view of the host
# root (an absolute symlink works the same there only by luck of layout).
[ -e build/kernel ] || { echo "mutants: no build/kernel: run make check once first" >&2; exit 2; }

survived=0
broken=0
for name in "${names[@]}"; do
	p=$top/selftests/mutants/$name.patch
	if [ ! -f "$p" ]; then
		echo "$name: no such mutant ($p)"
		broken=$((broken + 1))
		continue
	fi
	group=$(sed -n 's/^# klp-mutant-group: //p' "$p" | head -n 1)
	if [ -z "$group" ] || [ ! -f "selftests/tests/$group.sh" ]; then
		echo "$name: its header names no guest group of selftests/tests/ ('$group')"
		broken=$((broken + 1))
		continue
	fi
	dir=$top/build/mutants/$name
	keep=${KEEP:-0}
	rm -rf "$dir"
	mkdir -p "$dir/build"
	# the working tree as it is, tracked files and new ones not ignored,
	# as scratch_tree (selftests/lib.sh) copies it
	git ls-files -z --cached --others --exclude-standard |
		xargs -0 cp --parents -t "$dir" || { echo "$name: cannot copy the tree"; broken=$((broken + 1)); continue; }
	ln -s ../../../kernel "$dir/build/kernel"
	# a repository of its own, so that git apply patches the copy's
	# paths (inside this tree's repository it would skip them)
	if ! (cd "$dir" && git init -q && git apply "$p") > "$dir/apply.log" 2>&1; then
		echo "$name ($group): does not apply: $(head -n 3 "$dir/apply.log" | paste -sd' ' -)"
		broken=$((broken + 1))
		continue
	fi
	echo "# $name: building, then $group (output in $dir/group.out)" >&2
	if ! make -C "$dir" all > "$dir/make.log" 2>&1; then
		# a mutant that does not build says nothing about the tests
		echo "$name ($group): does not build: $(grep -m1 -E 'error' "$dir/make.log")"
		broken=$((broken + 1))
		continue
	fi
	"$dir/selftests/run.sh" "$group" > "$dir/group.out" 2>&1
	rc=$?
	# the closing line: "P passed, F failed[, S skipped]"
	last=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$dir/group.out" | tail -n 1)
	pass=$(sed -n 's/^\([0-9]*\) passed.*/\1/p' <<< "$last")
	fail=$(sed -n 's/^[0-9]* passed, \([0-9]*\) failed.*/\1/p' <<< "$last")
	if [ -z "$last" ]; then
		echo "$name ($group): no closing line from selftests/run.sh (exit $rc): see $dir/group.out"
		broken=$((broken + 1))
		keep=1
	elif [ "$rc" != 0 ] && [ "$fail" -gt 0 ]; then
		echo "$name ($group): killed ($fail of $((pass + fail)) checks failed)"
	else
		echo "$name ($group): SURVIVED ($pass passed, $fail failed)"
		survived=$((survived + 1))
	fi
	[ "$keep" = 1 ] || rm -rf "$dir"
done

[ "$survived" = 0 ] && [ "$broken" = 0 ]
