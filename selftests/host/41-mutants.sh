#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The mutants behind doc/testing.md's mutation table stay runnable: every
# selftests/mutants/*.patch still applies to the tree as it is (git apply
# --check), names in its "# klp-mutant-group:" header a guest group that
# exists and in "# klp-mutant-kills:" at least one check it must turn red
# (whether the group has it, only a run can tell).  Running them
# (selftests/mutants/run.sh) takes a build and a guest group each and is
# not part of make check; a mutant that no longer applies would quietly
# stop backing its count.
. "$(dirname "$0")/../lib.sh"
. "$KLP_TOP/selftests/headers.sh"
ktap_start "mutants: each applies and names its group"

n=0
for p in "$KLP_TOP"/selftests/mutants/*.patch; do
	[ -e "$p" ] || continue
	n=$((n + 1))
	name=$(basename "$p" .patch)
	group=$(klp_header "$p" mutant-group)
	check "$name: names an existing guest group ('$group')" \
		test -n "$group" -a -f "$KLP_TOP/selftests/tests/$group.sh"
	check "$name: names the checks it must turn red" \
		grep -q '^[^ ]' <<< "$(klp_headers "$p" mutant-kills)"
	if out=$(git -C "$KLP_TOP" apply --check "$p" 2>&1); then
		ok "$name: applies cleanly to the tree"
	else
		not_ok "$name: applies cleanly to the tree"
		while IFS= read -r l; do diag "$l"; done <<< "$out"
	fi
done
check "there are mutants ($n)" test "$n" -gt 0

ktap_finish
