#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
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
enabled_file=$KLP_SYSFS/livepatch_sample/enabled
junk=$(head -c 4096 /dev/zero | tr '\0' 'j')
for bad in 2 -1 abc "" "1x" " 1"; do
	check "sysfs write '${bad}' refused" eval "! echo '$bad' > $enabled_file 2>/dev/null"
done
check "sysfs write of 4 KiB junk refused" eval '! printf "%s" "$junk" > $enabled_file 2>/dev/null'
assert_eq "state unchanged after garbage" "1 this has been live patched" \
	"$(patch_enabled livepatch_sample) $(cat /proc/cmdline)"
check "core refuses to unload with a patch registered" eval '! rmmod klp 2>/dev/null'
check "sample module is pinned" eval '! rmmod livepatch_sample 2>/dev/null'

# --- a module object, through the API ------------------------------------
check "target module loads" klp_insmod klp_test_target
assert_eq "target: originals" "100 200 300" "$(target a) $(target b) $(target c)"
check "api module loads" klp_insmod klp_test_api
api() {
	echo "$1" > /sys/kernel/debug/klp_test_api/ctl && cut -d' ' -f2- /sys/kernel/debug/klp_test_api/ctl | awk '{print $NF}'
}
assert_eq "api: enable before register -> EINVAL" -22 "$(api enable)"
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

# --- malformed patches: a clear error and nothing created ----------------
for kind in null_patch null_mod null_objs empty_objs null_funcs empty_funcs null_new_func long_name dup_func; do
	rc=$(api "bad $kind")
	if [ "$rc" -lt 0 ] && [ ! -e "$KLP_SYSFS/klp_test_api" ]; then
		ok "bad patch '$kind' refused ($rc), nothing left"
	else
		not_ok "bad patch '$kind' refused ($rc), nothing left"
	fi
done
check "bad patch: error names the long name problem" dmesg_has "function name longer than"
check "bad patch: error names the missing new_func" dmesg_has "function 'klp_target_c' has no new_func"
check "bad patch: error names the duplicate function" dmesg_has "function 'klp_target_c' appears twice"
assert_eq "api: still works after the bad ones" "0 8003" "$(api register) $(api enable >/dev/null; target c)"
api disable >/dev/null; api unregister >/dev/null
# no consistency model: a task may still run its code, so it stays pinned
check "api module stays pinned after unregister" eval '! rmmod klp_test_api 2>/dev/null'
assert_eq "target c original after unregister" 300 "$(target c)"

# --- ftrace bookkeeping ---------------------------------------------------
check "ftrace lists cmdline_proc_show as IPMODIFY'd" \
	grep -q '^cmdline_proc_show (1) .*I' "$TRACEFS/enabled_functions"
check "no ftrace entry left for klp_target_c" eval "! grep -q '^klp_target_c' $TRACEFS/enabled_functions"
ktap_finish
