#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run every klp test: host tests (selftests/host/*.sh) here, guest groups
# (selftests/tests/*.sh) each in a fresh guest.  A guest that oopses, warns,
# panics or times out fails its group even if its script said ok.  Ends
# with one line "N passed, N failed" and exits non-zero on any failure.
#
# Usage: selftests/run.sh [NAME-PATTERN]   e.g. selftests/run.sh stack
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
pattern=${1:-}
passed=0
failed=0
skipped=0
failures=()

count() {	# count GROUP OUTPUT-FILE
	local p f s
	p=$(grep -cE '^ok [0-9]+' "$2" | head -n1)
	s=$(grep -cE '^ok [0-9]+ .*# SKIP' "$2" | head -n1)
	f=$(grep -cE '^not ok [0-9]+' "$2" | head -n1)
	passed=$((passed + p - s))
	skipped=$((skipped + s))
	failed=$((failed + f))
	[ "$f" = 0 ] || failures+=("$1: $f failed: $(grep -E '^not ok' "$2" | sed 's/^not ok [0-9]* - //' | head -n 5 | paste -sd';' -)")
}

log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT

for t in "$top"/selftests/host/*.sh; do
	[ -e "$t" ] || continue
	name=host/$(basename "$t" .sh)
	[[ -z $pattern || $name == *$pattern* ]] || continue
	echo "# ---- $name"
	"$t" 2>&1 | tee "$log/out"
	rc=${PIPESTATUS[0]}
	count "$name" "$log/out"
	if [ "$rc" != 0 ] && ! grep -qE '^not ok' "$log/out"; then
		failed=$((failed + 1)); failures+=("$name: exited $rc")
	fi
done

for t in "$top"/selftests/tests/*.sh; do
	[ -e "$t" ] || continue
	name=guest/$(basename "$t" .sh)
	[[ -z $pattern || $name == *$pattern* ]] || continue
	args=$(sed -n 's/^# klp-boot-args: //p' "$t")
	tmo=$(sed -n 's/^# klp-timeout: //p' "$t")
	# a debug kernel (make check-debug) runs everything several times slower
	tmo=$(( ${tmo:-600} * ${KLP_TIMEOUT_SCALE:-1} ))
	accel=$(sed -n 's/^# klp-accel: //p' "$t")
	echo "# ---- $name${args:+ (kernel args: $args)}"
	KLP_ACCEL=${accel:-${KLP_ACCEL:-auto}} \
		"$top/selftests/guest/boot.sh" -t "$tmo" ${args:+-a "$args"} "$t" 2>&1 | tee "$log/out"
	rc=${PIPESTATUS[0]}
	count "$name" "$log/out"
	if [ "$rc" != 0 ]; then
		# the guest script's own failures are counted; a crash is one more
		if [ "$rc" -ge 2 ] || ! grep -qE '^not ok' "$log/out"; then
			echo "not ok - $name: guest failed (boot.sh exit $rc)"
			failed=$((failed + 1)); failures+=("$name: guest failed (exit $rc)")
		fi
	fi
done

echo
if [ ${#failures[@]} -gt 0 ]; then
	echo "# failed:"
	printf '#   %s\n' "${failures[@]}"
fi
if [ "$skipped" -gt 0 ]; then
	echo "$passed passed, $failed failed, $skipped skipped"
else
	echo "$passed passed, $failed failed"
fi
[ "$failed" = 0 ]
