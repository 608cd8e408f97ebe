#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# klp-cost: 63
# klp-accel: tcg,thread=single
# klp-min-results: 115
# The klp core: loading, the seed sample, sysfs, the API, taint, bad input.
. "$(dirname "$0")/../lib.sh"
ktap_start "klp core basics"

cmdline=$(cat /proc/cmdline)
check "core module loads" klp_insmod klp
check "sysfs root $KLP_SYSFS exists" test -d "$KLP_SYSFS"
check "builtin livepatch root is left alone" test -d /sys/kernel/livepatch
check "not tainted K before any patch" eval '! tainted_livepatch'

# --- the seed sample (004) -------------------------------------------------
check "seed sample loads" klp_insmod livepatch-sample
assert_eq "sample: /proc/cmdline is patched" "this has been live patched" "$(cat /proc/cmdline)"
assert_eq "sample: enabled reads 1" 1 "$(patch_enabled livepatch_sample)"
check "sample: sysfs function dir" test -d "$KLP_SYSFS/livepatch_sample/vmlinux/cmdline_proc_show"
assert_eq "sample: winner position" 1 "$(func_attr livepatch_sample vmlinux cmdline_proc_show stack_pos)"
check "TAINT_LIVEPATCH (bit 15) set on first enable" tainted_livepatch
check "sysfs disable" set_enabled livepatch_sample 0
assert_eq "sample: /proc/cmdline back to the original" "$cmdline" "$(cat /proc/cmdline)"
assert_eq "sample: patched reads 0 when disabled" 0 "$(func_attr livepatch_sample vmlinux cmdline_proc_show patched)"
check "sysfs re-enable" set_enabled livepatch_sample 1
assert_eq "sample: patched again" "this has been live patched" "$(cat /proc/cmdline)"
check "same-state write (1 to enabled) fails" eval '! set_enabled livepatch_sample 1'
assert_eq "still enabled after the refused write" 1 "$(patch_enabled livepatch_sample)"

# --- sysfs garbage is refused and changes nothing -------------------------
# In both states: while enabled, a write of 1 fails anyway, so garbage that
# parsed as 1 would hide; while disabled, garbage parsed as 1 would enable.
enabled_file=$KLP_SYSFS/livepatch_sample/enabled
junk=$(head -c 4096 /dev/zero | tr '\0' 'j')
garbage() {	# garbage STATE EXPECTED-CMDLINE EXPECTED-ENABLED
	local bad
	for bad in 2 -1 abc "" "1x" " 1" "0x1" "01a"; do
		check "patch $1: sysfs write '${bad}' refused" eval "! echo '$bad' > $enabled_file 2>/dev/null"
	done
	check "patch $1: sysfs write of 4 KiB junk refused" eval '! printf "%s" "$junk" > $enabled_file 2>/dev/null'
	assert_eq "patch $1: state unchanged after garbage" "$3 $2" \
		"$(patch_enabled livepatch_sample) $(cat /proc/cmdline)"
}
garbage enabled "this has been live patched" 1
check "sysfs disable for the garbage round" set_enabled livepatch_sample 0
garbage disabled "$cmdline" 0
check "sysfs enable after the garbage" set_enabled livepatch_sample 1
# force outside a transition, answered as upstream answers it: a false
# value is done and does nothing, a true one is refused, junk too
force_file=$KLP_SYSFS/livepatch_sample/force
assert_eq "force '0' outside a transition: done, as upstream's" ok "$(write_err "$force_file" 0)"
assert_eq "force '1' outside a transition: refused" "Invalid argument" "$(write_err "$force_file" 1)"
assert_eq "force 'x': refused" "Invalid argument" "$(write_err "$force_file" x)"
assert_eq "still enabled and not in transition after the force writes" "1 0" \
	"$(patch_enabled livepatch_sample) $(cat $KLP_SYSFS/livepatch_sample/transition)"
check "core refuses to unload with a patch registered" eval '! rmmod klp 2>/dev/null'
check "sample module is pinned" eval '! rmmod livepatch_sample 2>/dev/null'

# --- a module object, through the API ------------------------------------
check "target module loads" klp_insmod klp_test_target
assert_eq "target: originals" "100 200 300" "$(target a) $(target b) $(target c)"
check "api module loads" klp_insmod klp_test_api
api() {
	echo "$1" > /sys/kernel/debug/klp_test_api/ctl && cut -d' ' -f2- /sys/kernel/debug/klp_test_api/ctl | awk '{print $NF}'
}
# upstream's klp_enable_patch() since 5.1: enabling registers first
assert_eq "api: enable before register: registers and enables it" "0 8003 1" \
	"$(api enable) $(target c) $(patch_enabled klp_test_api)"
assert_eq "api: register it again -> EINVAL" -22 "$(api register)"
# ... and, as upstream, frees it once disabled: its sysfs dir goes, and
# with it the patch (a 3.20-style unregister finds nothing left)
assert_eq "api: disable frees the patch klp_enable_patch() registered" "0 -22" \
	"$(api disable) $(api unregister)"
check "api: its sysfs dir goes" wait_until 5 eval '[ ! -e $KLP_SYSFS/klp_test_api ]' 
assert_eq "api: register" 0 "$(api register)"
assert_eq "api: register twice -> EINVAL" -22 "$(api register)"
assert_eq "api: registered, not enabled: original runs" 300 "$(target c)"
assert_eq "api: sysfs shows enabled 0" 0 "$(patch_enabled klp_test_api)"
assert_eq "api: enable" 0 "$(api enable)"
assert_eq "api: klp_target_c patched (userspace call)" 8003 "$(target c)"
assert_eq "api: klp_target_c patched (kernel loop)" 8003 "$(target_call c 1000)"
assert_eq "api: enable twice -> EINVAL" -22 "$(api enable)"
assert_eq "api: unregister while enabled -> EBUSY" -16 "$(api unregister)"
assert_eq "api: disable" 0 "$(api disable)"
assert_eq "api: original again" 300 "$(target c)"
assert_eq "api: disable twice -> EINVAL" -22 "$(api disable)"
assert_eq "api: re-enable" 0 "$(api enable)"
assert_eq "api: patched again" 8003 "$(target c)"
assert_eq "api: disable for unregister" 0 "$(api disable)"
assert_eq "api: unregister" 0 "$(api unregister)"
check "api: sysfs dir gone after unregister" test ! -e "$KLP_SYSFS/klp_test_api"
assert_eq "api: unregister twice -> EINVAL" -22 "$(api unregister)"
assert_eq "api: disable after unregister -> EINVAL" -22 "$(api disable)"

# --- malformed patches: the exact error, named, and nothing created -----
# kind errno message (a fixed string of the kernel log)
while read -r kind errno msg; do
	log0=$(dmesg | wc -l)
	rc=$(api "bad $kind")
	assert_eq "bad patch '$kind' refused with $errno, nothing left" "$errno no" \
		"$rc $([ -e "$KLP_SYSFS/klp_test_api" ] && echo yes || echo no)"
	if dmesg | tail -n +$((log0 + 1)) | grep -qF -- "$msg"; then
		ok "bad patch '$kind': the log says '$msg'"
	else
		not_ok "bad patch '$kind': the log says '$msg'"
		dmesg | tail -n +$((log0 + 1)) | sed 's/^/# /'
	fi
done <<'KINDS'
null_patch -22 cannot register a NULL patch
null_mod -22 cannot register a patch with no module (.mod)
null_objs -22 patch 'klp_test_api' has no objects
empty_objs -22 patch 'klp_test_api' has no objects
null_funcs -22 object 'klp_test_target' of patch 'klp_test_api' has no functions
empty_funcs -22 object 'klp_test_target' of patch 'klp_test_api' has no functions
null_new_func -22 function 'klp_target_c' has no new_func
long_name -22 function name longer than 255 characters in object 'klp_test_target'
name_256 -22 function name longer than 255 characters in object 'klp_test_absent'
long_obj -22 object name longer than 55 characters in patch 'klp_test_api'
no_symbol -2 symbol 'klp_target_zz' not found in object 'klp_test_target'
dup_func -22 function 'klp_target_c' appears twice in object 'klp_test_target'
cve_empty -22 patch 'klp_test_api': cve is empty (1 to 255 characters)
cve_space -22 patch 'klp_test_api': cve may hold letters, digits and ",._-" only, not ' ' (0x20)
cve_long -22 patch 'klp_test_api': cve is too long (1 to 255 characters)
KINDS
check "an unknown bad kind fails the control write itself" \
	eval '! echo "bad no_such_kind" > /sys/kernel/debug/klp_test_api/ctl 2>/dev/null'
# The longest name sysfs takes (255 bytes) registers, and its entry opens.
assert_eq "a 255-byte function name registers (object absent)" 0 "$(api "bad name_255")"
name255=$(printf '%*s' 255 '' | tr ' ' x)
assert_eq "its sysfs entry opens" "0 0" \
	"$(cat "$KLP_SYSFS/klp_test_api/klp_test_absent/$name255/patched" 2>&1) $(cat "$KLP_SYSFS/klp_test_api/klp_test_absent/loaded" 2>&1)"
assert_eq "and it unregisters" 0 "$(api unregister_bad)"
assert_eq "api: still works after the bad ones" "0 8003" "$(api register) $(api enable >/dev/null; target c)"
api disable >/dev/null; api unregister >/dev/null
# no consistency model: a task may still run its code, so it stays pinned
check "api module stays pinned after unregister" eval '! rmmod klp_test_api 2>/dev/null'
assert_eq "target c original after unregister" 300 "$(target c)"

# --- what identifies a patch: its cve, srcversion and enable time ---------
# info_line PATCH: its "info" record in the state file
info_line() { grep "^info $1 " "$KLP_STATE"; }
# ns_between LINE A B: the record's enable time (ns) is within [A, B] s
ns_between() { awk -v a="$2" -v b="$3" '{ s = $5 / 1e9; exit !(s >= a && s <= b + 1) }' <<< "$1"; }
t0=$(date +%s)
check "p1 (cve CVE-2099-0001, a MODULE_VERSION) loads, enabled" klp_insmod klp_test_p1
t1=$(date +%s)
assert_eq "p1's cve in sysfs" CVE-2099-0001 "$(cat "$KLP_SYSFS/klp_test_p1/cve")"
src=$(cat /sys/module/klp_test_p1/srcversion)
line=$(info_line klp_test_p1)
assert_eq "state file: p1's srcversion and cve" "info klp_test_p1 $src CVE-2099-0001" \
	"$(cut -d' ' -f1-4 <<< "$line")"
check "... its enable time, between before and after its insmod" ns_between "$line" "$t0" "$t1"
check "p1 disabled" set_enabled klp_test_p1 0
assert_eq "... enable time 0 while disabled" 0 "$(info_line klp_test_p1 | cut -d' ' -f5)"
sleep 1
t2=$(date +%s)
check "p1 enabled again" set_enabled klp_test_p1 1
t3=$(date +%s)
check "... its enable time is the new enable's" ns_between "$(info_line klp_test_p1)" "$t2" "$t3"
assert_eq "the sample, with neither: no cve in sysfs, '-' for both in the state file" \
	"|info livepatch_sample - -" \
	"$(cat "$KLP_SYSFS/livepatch_sample/cve")|$(info_line livepatch_sample | cut -d' ' -f1-4)"
check "p1 disabled for the rest" set_enabled klp_test_p1 0

# --- ftrace bookkeeping ---------------------------------------------------
check "ftrace lists cmdline_proc_show as IPMODIFY'd" \
	grep -q '^cmdline_proc_show (1) .*I' "$TRACEFS/enabled_functions"
check "no ftrace entry left for klp_target_c" eval "! grep -q '^klp_target_c' $TRACEFS/enabled_functions"
ktap_finish
