#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# functions.sh for upstream's livepatch selftests run against klp: only
# what klp changes.  Upstream's own tools/testing/selftests/livepatch/
# functions.sh (from the installed linux-source, as the test scripts) is
# sourced first, with the scripts' one translation (/sys/kernel/livepatch
# becomes /sys/kernel/klp: the builtin livepatch owns the former); then
# (doc/testing.md, "Upstream's livepatch selftests"):
# - modprobe and modinfo read a module tree of the group's own
#   (KLP_UP_MODTREE, built by selftests/tests/70-upstream.sh with depmod);
# - die() does not exit: it records the first failure and the kernel log
#   at that moment, and every helper after it does nothing, so the script
#   still reaches check_result(), which hands upstream's expected
#   transcript and ours to the group (it judges nothing);
# - loop_until() waits KLP_UP_WAIT seconds (10), not 600 tries;
# - set_dynamic_debug() turns on klp's debug lines, not kernel/livepatch's;
# - skip() tells the group why.
# Each scenario runs in a bash of its own, so these globals are its state.

# shellcheck source=/dev/null
. "$(dirname "${BASH_SOURCE[0]}")/upstream-functions.sh" ||
	{ echo "upstream's functions.sh is missing" >&2; exit 1; }

# where this scenario's results go (the group reads them)
OUT=${KLP_UP_OUT:?KLP_UP_OUT: the result directory of the scenario}
MODTREE=${KLP_UP_MODTREE:?KLP_UP_MODTREE: the module tree}
DEAD=

function modprobe() {
	command modprobe -d "$MODTREE" "$@"
}

function modinfo() {
	command modinfo -b "$MODTREE" "$@"
}

eval "upstream_$(declare -f skip)"
function skip() {
	echo "$1" > "$OUT/skipped"
	upstream_skip "$@"
}

# die(msg): the scenario failed here; keep going to check_result()
function die() {
	[ -n "$DEAD" ] && return 1
	DEAD=1
	# the transcript ends here (the group names the failure apart)
	dmesg > "$OUT/dmesg-at-death"
	log "ERROR: $1"
	echo "ERROR: $1" >&2
	echo "$1" > "$OUT/died"
	return 1
}

# Upstream waits up to 600 tries 0.1 s apart; under emulation a try costs
# more than its sleep, so the wait is in seconds: KLP_UP_WAIT (10 s, times
# KLP_TIMEOUT_SCALE) for a transition to end, a module or a sysfs file to
# come or go
WAIT_US=$(( ${KLP_UP_WAIT:-10} * ${KLP_TIMEOUT_SCALE:-1} * 1000000 ))
function loop_until() {
	[ -n "$DEAD" ] && return 1
	local cmd="$*"
	local end=$(( ${EPOCHREALTIME/./} + WAIT_US ))
	while true; do
		eval "$cmd" && return 0
		[[ ${EPOCHREALTIME/./} -gt $end ]] && return 1
		sleep "$RETRY_INTERVAL"
	done
}

# after die(), upstream's helpers do nothing
for f in set_ftrace_enabled load_mod load_lp_nowait load_lp load_failing_mod \
	 unload_mod disable_lp set_pre_patch_ret check_sysfs_rights check_sysfs_value; do
	eval "upstream_$(declare -f $f)"
	eval "function $f() { [ -n \"\$DEAD\" ] && return 1; upstream_$f \"\$@\"; }"
done
unset f

function set_dynamic_debug() {
	echo 'module klp +p' > /sys/kernel/debug/dynamic_debug/control 2> /dev/null
}

eval "upstream_$(declare -f pop_config)"
function pop_config() {
	echo 'module klp -p' > /sys/kernel/debug/dynamic_debug/control 2> /dev/null
	upstream_pop_config
}

# check_result(expected): hand upstream's expected transcript and ours
# (the kernel log since start_test, up to a failure, filtered as upstream
# filters it, klp's own lines too) to the group, which compares them
function check_result {
	local now="$OUT/dmesg-after"

	printf '%s\n' "$*" > "$OUT/expected"
	if [ -n "$DEAD" ]; then
		now="$OUT/dmesg-at-death"
	else
		dmesg > "$now"
	fi
	comm --nocheck-order -13 "$SAVED_DMESG" "$now" |
		grep -e 'livepatch:' -e 'test_klp' -e '^\[[ 0-9.]*\] klp: ' |
		grep -v '\(tainting\|taints\) kernel' |
		sed 's/^\[[ 0-9.]*\] //' > "$OUT/actual"
	echo "checked"
}
