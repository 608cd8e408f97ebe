#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Kernel coding style: checkpatch.pl --strict finds no error or warning in
# the kernel-side C (the tracepoint header follows TRACE_EVENT's own layout
# and is left out; remaining CHECKs are listed).
. "$(dirname "$0")/../lib.sh"
ktap_start "checkpatch --strict"

cp=$KLP_TOP/build/checkpatch/checkpatch.pl
if [ ! -f "$cp" ]; then
	bail "checkpatch.pl present (scripts/deps.sh extracts it)"
fi
cd "$KLP_TOP" || exit 1
for f in $(git ls-files 'core/*.[ch]' 'core/samples/*.c' 'selftests/modules/*.[ch]' 'include/*.h' | grep -v 'klp_trace.h$'); do
	# compat.h is the one place that tests the kernel version
	ignore=
	[ "$f" = core/compat.h ] && ignore="--ignore LINUX_VERSION_CODE,CONSTANT_COMPARISON"
	# the one X-macro: 256 test functions and their patch, generated
	[ "$f" = selftests/modules/klp_test_many.h ] && ignore="--ignore COMPLEX_MACRO"
	out=$(perl "$cp" --strict --no-tree --terse --show-types $ignore -f "$f" 2>&1 | grep -v '^total:')
	if echo "$out" | grep -qE ': (ERROR|WARNING):'; then
		not_ok "$f"
		echo "$out" | sed 's/^/# /'
	else
		ok "$f"
		[ -z "$out" ] || echo "$out" | sed 's/^/#   /'
	fi
done
# kernel-doc: every /** comment names the function or struct it documents
kd=$(dirname "$cp")/kernel-doc
for f in $(git ls-files 'core/*.[ch]' 'include/*.h'); do
	out=$(perl "$kd" -none "$f" 2>&1)
	if [ -z "$out" ]; then
		ok "kernel-doc $f"
	else
		not_ok "kernel-doc $f"
		echo "$out" | sed 's/^/# /'
	fi
done
ktap_finish
