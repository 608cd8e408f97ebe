#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# klp-cost: 63
# klp-accel: tcg,thread=single
# klp-min-results: 46
# Object callbacks (core/callbacks.c) on the scenarios of upstream's
# test-callbacks.sh, written anew, each checked in the exact order of the
# core's events (klp:klp_callback among the pushes, pops, object and
# enable/disable events, by seq) and in what the callbacks themselves
# logged (the module state they saw): enable and disable with a target
# module loaded and one deferred; the deferred module coming and going;
# a failing pre_patch stopping an enable with everything undone (post_
# unpatch only where pre_patch ran, no pre_unpatch); a failing pre_patch
# refusing a coming module; and, past upstream's test, a second patch's
# failing pre_patch on a coming module unwinding the first patch's
# applied object with both of its unpatch callbacks.  The last step is
# also read through klp-trace and klptop's transition log; then the
# callbacks sample.
. "$(dirname "$0")/../lib.sh"
ktap_start "object callbacks"

klp_insmod klp || bail "core loads"
klp_insmod klp_test_target || bail "target loads"
INST=$TRACEFS/instances/klp-cb-test
EVENTS="klp_callback klp_func_push klp_func_pop klp_object klp_enable_failed klp_patch_enable klp_patch_disable"

# trace_on: the transition events into a private instance, emptied
trace_on() {
	local e
	trace_no_comm || return
	mkdir -p "$INST" && echo 4096 > "$INST/buffer_size_kb" || return
	for e in $EVENTS; do
		echo 1 > "$INST/events/klp/$e/enable" || return
	done
}

# mark: start a step (empties the instance's buffer and marks dmesg)
mark() {
	echo > "$INST/trace"
	dmesg_mark
}

# events: the step's events in the core's order, one compact line each
events() {
	sed -n 's/.* \(klp_[a-z_]*\): seq=\([0-9]*\) \(.*\)/\2 \1 \3/p' "$INST/trace" | sort -n |
		awk '{ ev = $2; sub(/^klp_/, "", ev); $1 = $2 = ""; line = ev
			for (i = 3; i <= NF; i++) {
				if ($i ~ /^(id|depth|winner|winner_id)=/) continue
				sub(/^(patch|object|cause)=/, "", $i); line = line " " $i
			}
			print line }'
}

# logged: what the callbacks logged in this step, "<module>: <line>"
logged() {
	dmesg_since | sed -n 's/^\[[^]]*\] \(klp_test_cb2*: \(pre\|post\)_.*\)/\1/p'
}


check "tracing the transition events" trace_on

mark
check "patch with callbacks loads and enables (klp_test_dup not loaded)" \
	klp_insmod klp_test_cb
assert_eq "enable: pre_patch per loaded object, deferred, one switch, post_patch once every task switched" \
"callback klp_test_cb vmlinux pre_patch enable ret=0
callback klp_test_cb klp_test_target pre_patch enable ret=0
object klp_test_cb klp_test_dup deferred enable
func_push klp_test_target:klp_target_c klp_test_cb enable
patch_enable klp_test_cb ret=0
callback klp_test_cb vmlinux post_patch enable ret=0
callback klp_test_cb klp_test_target post_patch enable ret=0" "$(events)"
assert_eq "events traced without recording a comm (no scheduler hook)" "" \
	"$(cat "$TRACEFS/saved_cmdlines" 2>&1)"
assert_eq "enable: the callbacks ran, the target module LIVE" \
"klp_test_cb: pre_patch vmlinux
klp_test_cb: pre_patch klp_test_target LIVE
klp_test_cb: post_patch vmlinux
klp_test_cb: post_patch klp_test_target LIVE" "$(logged)"
assert_eq "klp_target_c patched" 7003 "$(target c)"

mark
check "deferred module comes" klp_insmod klp_test_dup
assert_eq "coming: pre_patch, applied, post_patch" \
"callback klp_test_cb klp_test_dup pre_patch module_coming ret=0
object klp_test_cb klp_test_dup applied module_coming
callback klp_test_cb klp_test_dup post_patch module_coming ret=0" "$(events)"
assert_eq "coming: the callbacks saw the module COMING" \
"klp_test_cb: pre_patch klp_test_dup COMING
klp_test_cb: post_patch klp_test_dup COMING" "$(logged)"

mark
check "module goes" rmmod klp_test_dup
assert_eq "going: pre_unpatch, reverted, post_unpatch" \
"callback klp_test_cb klp_test_dup pre_unpatch module_going ret=0
object klp_test_cb klp_test_dup reverted module_going
callback klp_test_cb klp_test_dup post_unpatch module_going ret=0" "$(events)"
assert_eq "going: the callbacks saw the module GOING" \
"klp_test_cb: pre_unpatch klp_test_dup GOING
klp_test_cb: post_unpatch klp_test_dup GOING" "$(logged)"

mark
check "disable" set_enabled klp_test_cb 0
assert_eq "disable: pre_unpatch for each patched object, the write, pops and post_unpatch once every task switched" \
"callback klp_test_cb vmlinux pre_unpatch disable ret=0
callback klp_test_cb klp_test_target pre_unpatch disable ret=0
patch_disable klp_test_cb ret=0
func_pop klp_test_target:klp_target_c klp_test_cb disable
callback klp_test_cb vmlinux post_unpatch disable ret=0
callback klp_test_cb klp_test_target post_unpatch disable ret=0" "$(events)"
assert_eq "klp_target_c original" 300 "$(target c)"

PARAM=/sys/module/klp_test_cb/parameters/fail_pre_patch
check "klp_test_dup loads again (patch disabled: no callbacks)" klp_insmod klp_test_dup
echo klp_test_dup > $PARAM
mark
assert_eq "enable with klp_test_dup's pre_patch failing: the error of the callback" \
	"No such device" "$(write_err "$KLP_SYSFS/klp_test_cb/enabled" 1)"
assert_eq "failed enable: nothing switched yet, post_unpatch where pre_patch ran, no pre_unpatch" \
"callback klp_test_cb vmlinux pre_patch enable ret=0
callback klp_test_cb klp_test_target pre_patch enable ret=0
callback klp_test_cb klp_test_dup pre_patch enable ret=-19
enable_failed klp_test_cb klp_test_dup: err=-19
callback klp_test_cb vmlinux post_unpatch rollback ret=0
callback klp_test_cb klp_test_target post_unpatch rollback ret=0
patch_enable klp_test_cb ret=-19" "$(events)"
check "the log names the failing callback" \
	dmesg_has "pre-patch callback of patch 'klp_test_cb' failed for object 'klp_test_dup' (-19)"
assert_eq "nothing left: disabled, klp_target_c original" "0 300" \
	"$(patch_enabled klp_test_cb) $(target c)"
check "klp_test_dup unloads" rmmod klp_test_dup

echo klp_test_target > $PARAM
mark
assert_eq "enable with klp_test_target's pre_patch failing refused" \
	"No such device" "$(write_err "$KLP_SYSFS/klp_test_cb/enabled" 1)"
assert_eq "no func pushed, vmlinux unwound" \
"callback klp_test_cb vmlinux pre_patch enable ret=0
callback klp_test_cb klp_test_target pre_patch enable ret=-19
enable_failed klp_test_cb klp_test_target: err=-19
callback klp_test_cb vmlinux post_unpatch rollback ret=0
patch_enable klp_test_cb ret=-19" "$(events)"

echo klp_test_dup > $PARAM
check "enable with klp_test_dup absent: its pre_patch does not run" set_enabled klp_test_cb 1
mark
check "klp_test_dup refused while its pre_patch fails" eval '! klp_insmod klp_test_dup'
assert_eq "refused module: pre_patch failed, nothing applied" \
"callback klp_test_cb klp_test_dup pre_patch module_coming ret=-19
enable_failed klp_test_cb klp_test_dup: err=-19" "$(events)"
check "not loaded" eval '! grep -q "^klp_test_dup " /proc/modules'

echo "" > $PARAM
check "second callback patch loads and enables" klp_insmod klp_test_cb2
assert_eq "klp_target_c is the second patch's" 7103 "$(target c)"
echo klp_test_dup > /sys/module/klp_test_cb2/parameters/fail_pre_patch
mark
check "klp_test_dup refused by the second patch's pre_patch" eval '! klp_insmod klp_test_dup'
assert_eq "the first patch's applied object unwound with both unpatch callbacks" \
"callback klp_test_cb klp_test_dup pre_patch module_coming ret=0
object klp_test_cb klp_test_dup applied module_coming
callback klp_test_cb klp_test_dup post_patch module_coming ret=0
callback klp_test_cb2 klp_test_dup pre_patch module_coming ret=-19
enable_failed klp_test_cb2 klp_test_dup: err=-19
callback klp_test_cb klp_test_dup pre_unpatch rollback ret=0
callback klp_test_cb klp_test_dup post_unpatch rollback ret=0" "$(events)"
check "not loaded" eval '! grep -q "^klp_test_dup " /proc/modules'

# The last step also through klp-trace and klptop's transition log.
echo "" > /sys/module/klp_test_cb2/parameters/fail_pre_patch
KT_OUT=/tmp/klp-trace.out
setsid "$KLP_BIN/klp-trace" -e klp_callback -c 4 > $KT_OUT 2>&1 &
kt_pid=$!
check "klp-trace -e klp_callback is tracing" wait_until 30 grep -q '^Tracing ' $KT_OUT
check "klptop --json is attached" klptop_attach /tmp/klptop.json
mark
check "klp_test_dup loads under both patches" klp_insmod klp_test_dup
assert_eq "both patches' callbacks, in registration order" \
"callback klp_test_cb klp_test_dup pre_patch module_coming ret=0
object klp_test_cb klp_test_dup applied module_coming
callback klp_test_cb klp_test_dup post_patch module_coming ret=0
callback klp_test_cb2 klp_test_dup pre_patch module_coming ret=0
object klp_test_cb2 klp_test_dup applied module_coming
callback klp_test_cb2 klp_test_dup post_patch module_coming ret=0" "$(events)"
check "klp-trace exits after its 4 events" wait_until 30 eval '! kill -0 $kt_pid 2>/dev/null'
assert_eq "klp-trace prints the 4 callbacks, in the core's order" \
"patch=klp_test_cb object=klp_test_dup which=pre_patch cause=module_coming ret=0
patch=klp_test_cb object=klp_test_dup which=post_patch cause=module_coming ret=0
patch=klp_test_cb2 object=klp_test_dup which=pre_patch cause=module_coming ret=0
patch=klp_test_cb2 object=klp_test_dup which=post_patch cause=module_coming ret=0" \
	"$(sed -n 's/.*klp_callback: seq=[0-9]* //p' $KT_OUT)"
# klptop_texts: the callback lines of klptop's transition log so far
klptop_texts() {
	jq -r '.transitions[] | select(.event == "callback") | "\(.cause) \(.text)"' /tmp/klptop.json
}
check "klptop logs the 4 callbacks" wait_until 30 eval '[ "$(klptop_texts | wc -l)" -ge 4 ]'
kill "$KT_PID"
assert_eq "klptop's log names patch, callback, object and cause" \
"module_coming patch klp_test_cb: pre_patch callback of klp_test_dup
module_coming patch klp_test_cb: post_patch callback of klp_test_dup
module_coming patch klp_test_cb2: pre_patch callback of klp_test_dup
module_coming patch klp_test_cb2: post_patch callback of klp_test_dup" "$(klptop_texts)"

# The sample: a failing pre_patch refuses the load; then patch and unpatch.
demo() {
	dmesg_since | sed -n 's/^\[[^]]*\] livepatch_callbacks_demo: //p' | tr '\n' ' ' | sed 's/ $//'
}
cmdline=$(cat /proc/cmdline)
dmesg_mark
check "callbacks demo with pre_patch_ret=-19 refused" eval '! klp_insmod livepatch-callbacks-demo pre_patch_ret=-19'
assert_eq "only its pre_patch ran, /proc/cmdline unpatched" \
	"pre_patch_callback: vmlinux|$cmdline" "$(demo)|$(cat /proc/cmdline)"
check "its klp_enable_patch() (which registered it) left nothing registered" \
	eval '[ ! -e $KLP_SYSFS/livepatch_callbacks_demo ] && ! dmesg_has "going away with its patch still registered"'
dmesg_mark
check "callbacks demo loads" klp_insmod livepatch-callbacks-demo
assert_eq "pre_patch and post_patch ran, /proc/cmdline patched" \
	"pre_patch_callback: vmlinux post_patch_callback: vmlinux|this has been live patched (with callbacks)" \
	"$(demo)|$(cat /proc/cmdline)"
dmesg_mark
check "callbacks demo disables" set_enabled livepatch_callbacks_demo 0
assert_eq "pre_unpatch and post_unpatch ran, /proc/cmdline back" \
	"pre_unpatch_callback: vmlinux post_unpatch_callback: vmlinux|$cmdline" "$(demo)|$(cat /proc/cmdline)"
ktap_finish
