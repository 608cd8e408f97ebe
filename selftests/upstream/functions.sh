#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# functions.sh for upstream's livepatch selftests run against klp: the
# helpers their test-*.sh scripts call, as upstream's
# tools/testing/selftests/livepatch/functions.sh (6.1) defines them, with
# what differs for klp (doc/testing.md, "Upstream's livepatch selftests"):
# - the sysfs root is /sys/kernel/klp (the builtin livepatch owns
#   /sys/kernel/livepatch);
# - modules come from a module tree of their own (KLP_UP_MODTREE, built by
#   selftests/tests/70-upstream.sh with depmod): modprobe -d, modinfo -b;
# - die() does not exit: it records the first failure and the kernel log
#   at that moment, and every helper after it does nothing, so the script
#   still reaches check_result() and hands over upstream's expected
#   transcript; the group compares the two (check_result() judges nothing);
# - waits last KLP_UP_WAIT seconds (10), not 600 tries, and one that
#   nothing can end any more fails after a second: a patch that is
#   neither freed nor in transition;
# - its lines go to the kernel log at KERN_INFO, off the console.
# Each scenario runs in a bash of its own, so these globals are its state.

# Upstream waits up to 600 tries 0.1 s apart; under emulation a try costs
# more than its sleep, so the waits are in seconds: KLP_UP_WAIT (10 s,
# times KLP_TIMEOUT_SCALE) for a transition to end, a module or a sysfs
# file to come or go
WAIT_US=$(( ${KLP_UP_WAIT:-10} * ${KLP_TIMEOUT_SCALE:-1} * 1000000 ))
RETRY_INTERVAL=".1"	# seconds
KLP_SYSFS_DIR="/sys/kernel/klp"
# a patch that stays registered and idle this long is not going away
STUCK_US=1000000

ksft_skip=4
# where this scenario's results go (the group reads them)
OUT=${KLP_UP_OUT:?KLP_UP_OUT: the result directory of the scenario}
MODTREE=${KLP_UP_MODTREE:?KLP_UP_MODTREE: the module tree}
DEAD=

# log(msg): to the kernel log at KERN_INFO (<6>: not on the console)
function log() {
	echo "<6>$1" > /dev/kmsg
}

function skip() {
	log "SKIP: $1"
	echo "SKIP: $1" >&2
	echo "$1" > "$OUT/skipped"
	exit $ksft_skip
}

function is_root() {
	[ "$(id -u)" = 0 ] || skip "must be run as root"
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

function save_dmesg() {
	dmesg > "$OUT/dmesg-before"
}

function cleanup_dmesg_file() {
	:
}

# klp's own debug lines, as upstream turns on kernel/livepatch/*'s (off
# before: the group never turns them on)
function push_config() {
	FTRACE_ENABLED=$(sysctl --values kernel.ftrace_enabled)
}

function pop_config() {
	echo 'module klp -p' > /sys/kernel/debug/dynamic_debug/control 2>/dev/null
	if [[ -n "$FTRACE_ENABLED" ]]; then
		sysctl kernel.ftrace_enabled="$FTRACE_ENABLED" &> /dev/null
	fi
}

function set_dynamic_debug() {
	echo 'module klp +p' > /sys/kernel/debug/dynamic_debug/control 2>/dev/null
}

function set_ftrace_enabled() {
	[ -n "$DEAD" ] && return 1
	local can_fail=0
	if [[ "$1" == "--fail" ]]; then
		can_fail=1
		shift
	fi

	local err result
	err=$(sysctl -q kernel.ftrace_enabled="$1" 2>&1)
	result=$(sysctl --values kernel.ftrace_enabled)

	if [[ "$result" != "$1" ]]; then
		if [[ $can_fail -eq 1 ]]; then
			echo "<6>livepatch: $err" | sed 's#/proc/sys/kernel/#kernel.#' > /dev/kmsg
			return
		fi
		skip "failed to set kernel.ftrace_enabled = $1"
	fi

	echo "<6>livepatch: kernel.ftrace_enabled = $result" > /dev/kmsg
}

function cleanup() {
	pop_config
}

function setup_config() {
	is_root
	push_config
	set_dynamic_debug
	set_ftrace_enabled 1
	trap cleanup EXIT INT TERM HUP
}

# now_us: microseconds
function now_us() {
	echo "${EPOCHREALTIME/./}"
}

function loop_until() {
	[ -n "$DEAD" ] && return 1
	local cmd="$*"
	local end=$(( $(now_us) + WAIT_US ))
	while true; do
		eval "$cmd" && return 0
		[[ $(now_us) -gt $end ]] && return 1
		sleep $RETRY_INTERVAL
	done
}

# idle_patch(mod): its patch is registered and not in transition (a core
# without a transition file has none)
function idle_patch() {
	local dir="$KLP_SYSFS_DIR/$1"
	[[ -d "$dir" ]] || return 1
	[[ ! -e "$dir/transition" ]] || grep -q '^0$' "$dir/transition"
}

# wait_patch(cond, stuck): loop_until cond (0); 2 once stuck (a command)
# held STUCK_US, 1 after WAIT_US
function wait_patch() {
	[ -n "$DEAD" ] && return 1
	local now end since=
	end=$(( $(now_us) + WAIT_US ))
	while true; do
		eval "$1" && return 0
		now=$(now_us)
		if eval "$2"; then
			since=${since:-$now}
			[[ $((now - since)) -ge $STUCK_US ]] && return 2
		else
			since=
		fi
		[[ $now -gt $end ]] && return 1
		sleep $RETRY_INTERVAL
	done
}

function modinfo_of() {
	modinfo -b "$MODTREE" "$@"
}

function assert_mod() {
	modprobe -d "$MODTREE" --dry-run "$1" &>/dev/null
}

function is_livepatch_mod() {
	[[ $(modinfo_of "$1" | awk '/^livepatch:/{print $NF}') == "Y" ]]
}

function __load_mod() {
	local mod="$1"; shift

	# modprobe would quietly keep a module an earlier scenario left
	[[ -e "/sys/module/$mod" ]] &&
		{ die "module $mod is still loaded (left by an earlier scenario)"; return 1; }
	local msg="% modprobe $mod $*"
	log "${msg%% }"
	ret=$(modprobe -d "$MODTREE" "$mod" "$@" 2>&1)
	if [[ "$ret" != "" ]]; then
		die "$ret"; return 1
	fi

	loop_until '[[ -e "/sys/module/$mod" ]]' ||
		die "failed to load module $mod"
}

function load_mod() {
	[ -n "$DEAD" ] && return 1
	local mod="$1"; shift

	assert_mod "$mod" ||
		skip "unable to load module ${mod}: not in $MODTREE"
	is_livepatch_mod "$mod" &&
		{ die "use load_lp() to load the livepatch module $mod"; return 1; }
	__load_mod "$mod" "$@"
}

function load_lp_nowait() {
	[ -n "$DEAD" ] && return 1
	local mod="$1"; shift

	assert_mod "$mod" ||
		skip "unable to load module ${mod}: not in $MODTREE"
	is_livepatch_mod "$mod" ||
		{ die "module $mod is not a livepatch"; return 1; }
	__load_mod "$mod" "$@" || return 1

	loop_until '[[ -e "$KLP_SYSFS_DIR/$mod" ]]' ||
		die "failed to load module $mod (sysfs)"
}

# load_lp: wait until the transition finishes; a core without a
# transition file switched every task at once: wait for enabled instead
function load_lp() {
	[ -n "$DEAD" ] && return 1
	local mod="$1"; shift

	load_lp_nowait "$mod" "$@" || return 1
	if [[ -e "$KLP_SYSFS_DIR/$mod/transition" ]]; then
		loop_until 'grep -q "^0$" "$KLP_SYSFS_DIR/$mod/transition"' ||
			die "failed to complete transition"
	else
		loop_until 'grep -q "^1$" "$KLP_SYSFS_DIR/$mod/enabled"' ||
			die "failed to complete transition (no transition file; enabled not 1)"
	fi
}

function load_failing_mod() {
	[ -n "$DEAD" ] && return 1
	local mod="$1"; shift

	local msg="% modprobe $mod $*"
	log "${msg%% }"
	ret=$(modprobe -d "$MODTREE" "$mod" "$@" 2>&1)
	if [[ "$ret" == "" ]]; then
		die "$mod unexpectedly loaded"; return 1
	fi
	log "$ret"
}

function unload_mod() {
	[ -n "$DEAD" ] && return 1
	local mod="$1" rc

	# Wait for the module's references to go; a patch that stays
	# registered and idle keeps its reference for good.
	wait_patch '[[ $(cat "/sys/module/$mod/refcnt") == "0" ]]' 'idle_patch "$mod"'
	rc=$?
	if [[ $rc != 0 ]]; then
		[[ $rc = 2 ]] && { die "failed to unload module $mod (refcnt $(cat "/sys/module/$mod/refcnt"): its patch stays in $KLP_SYSFS_DIR)"; return 1; }
		die "failed to unload module $mod (refcnt)"; return 1
	fi

	log "% rmmod $mod"
	ret=$(rmmod "$mod" 2>&1)
	if [[ "$ret" != "" ]]; then
		die "$ret"; return 1
	fi

	loop_until '[[ ! -e "/sys/module/$mod" ]]' ||
		die "failed to unload module $mod (/sys/module)"
}

function unload_lp() {
	unload_mod "$1"
}

# disable_lp: wait until the patch is gone from sysfs (freed); one that
# stays disabled and idle is not going
function disable_lp() {
	[ -n "$DEAD" ] && return 1
	local mod="$1" rc

	log "% echo 0 > $KLP_SYSFS_DIR/$mod/enabled"
	echo 0 > "$KLP_SYSFS_DIR/$mod/enabled"

	wait_patch '[[ ! -e "$KLP_SYSFS_DIR/$mod" ]]' \
		'idle_patch "$mod" && grep -q "^0$" "$KLP_SYSFS_DIR/$mod/enabled"'
	rc=$?
	[[ $rc = 2 ]] && { die "failed to disable livepatch $mod ($KLP_SYSFS_DIR/$mod stays, disabled: the patch is not freed)"; return 1; }
	[[ $rc = 0 ]] || die "failed to disable livepatch $mod"
}

function set_pre_patch_ret {
	[ -n "$DEAD" ] && return 1
	local mod="$1"; shift
	local ret="$1"

	log "% echo $ret > /sys/module/$mod/parameters/pre_patch_ret"
	echo "$ret" > /sys/module/"$mod"/parameters/pre_patch_ret

	loop_until '[[ $(cat "/sys/module/$mod/parameters/pre_patch_ret") == "$ret" ]]' ||
		die "failed to set pre_patch_ret parameter for $mod module"
}

function start_test {
	local test="$1"

	save_dmesg
	echo "$test" > "$OUT/name"
	echo -n "TEST: $test ... "
	log "===== TEST: $test ====="
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
	comm --nocheck-order -13 "$OUT/dmesg-before" "$now" |
		grep -e 'livepatch:' -e 'test_klp' -e '^\[[ 0-9.]*\] klp: ' |
		grep -v '\(tainting\|taints\) kernel' |
		sed 's/^\[[ 0-9.]*\] //' > "$OUT/actual"
	echo "checked"
}

function check_sysfs_rights() {
	[ -n "$DEAD" ] && return 1
	local mod="$1"; shift
	local rel_path="$1"; shift
	local expected_rights="$1"; shift

	local path="$KLP_SYSFS_DIR/$mod/$rel_path"
	local rights
	rights=$(/bin/stat --format '%A' "$path" 2>&1)
	if test "$rights" != "$expected_rights"; then
		die "Unexpected access rights of $path: $expected_rights vs. $rights"
	fi
}

function check_sysfs_value() {
	[ -n "$DEAD" ] && return 1
	local mod="$1"; shift
	local rel_path="$1"; shift
	local expected_value="$1"; shift

	local path="$KLP_SYSFS_DIR/$mod/$rel_path"
	local value
	value=$(cat "$path" 2>&1)
	if test "$value" != "$expected_value"; then
		die "Unexpected value in $path: $expected_value vs. $value"
	fi
}
