#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# klp-cost: 37
# klp-accel: tcg,thread=single
# klp-min-results: 26
# System states (core/state.c), after the scenarios of upstream's
# test-state.sh, written anew.  klp_test_state (version 1),
# klp_test_state2 (version 1, replace) and klp_test_state3 (version 2,
# replace) change one state, klp_test_target's level, with callbacks that
# use klp_get_state() and klp_get_prev_state(): a patch changes it and
# puts it back; a replace patch takes the change over from the patch it
# replaces (whose callbacks do not run) and puts it back itself; a chain
# of replace patches hands it on; and the compatibility rule refuses a
# patch with an older version of an enabled patch's state and a replace
# patch without it, naming both, changing nothing.  Last, the state sample.
. "$(dirname "$0")/../lib.sh"
ktap_start "system states"

klp_insmod klp || bail "core loads"
klp_insmod klp_test_target || bail "target loads"
for m in klp_test_state klp_test_state2 klp_test_state3; do
	klp_insmod $m enable=0 || bail "$m registers"
done
LEVEL=$KLP_TARGET/level
level() { cat $LEVEL; }
# said: what the state patches logged since the mark, "<patch>: <line>" joined by |
said() {
	dmesg_since | sed -n 's/^\[[^]]*\] \(klp_test_state[23]*: .*\)/\1/p' | paste -sd'|'
}
# enabled: the three patches' enabled files
enabled() { echo "$(patch_enabled klp_test_state) $(patch_enabled klp_test_state2) $(patch_enabled klp_test_state3)"; }
assert_eq "the level starts at 1" 1 "$(level)"

dmesg_mark
check "state patch enables" set_enabled klp_test_state 1
assert_eq "it saves the level and changes it" \
	"klp_test_state: pre_patch: room to save the level|klp_test_state: post_patch: level saved, set to 5|5" \
	"$(said)|$(level)"
dmesg_mark
check "and disables" set_enabled klp_test_state 0
assert_eq "it restores the level and frees what it saved" \
	"klp_test_state: pre_unpatch: level restored to 1|klp_test_state: post_unpatch: saved level freed|1" \
	"$(said)|$(level)"

check "state patch enabled again" set_enabled klp_test_state 1
dmesg_mark
check "replace patch with the same state (version 1) enables" set_enabled klp_test_state2 1
assert_eq "it takes the change over; the replaced patch's callbacks do not run" \
	"klp_test_state2: pre_patch: the level is saved already|klp_test_state2: post_patch: taking over the level change (version 1)|5|0 1 0" \
	"$(said)|$(level)|$(enabled)"
dmesg_mark
check "replace patch with version 2 enables" set_enabled klp_test_state3 1
assert_eq "the change is handed on again" \
	"klp_test_state3: pre_patch: the level is saved already|klp_test_state3: post_patch: taking over the level change (version 1)|5|0 0 1" \
	"$(said)|$(level)|$(enabled)"

dmesg_mark
assert_eq "version 1 (replace) refused while version 2 is enabled" "Invalid argument" \
	"$(write_err $KLP_SYSFS/klp_test_state2/enabled 1)"
check "the error names the state and both versions" dmesg_has \
	"patch 'klp_test_state2' carries system state 1 at version 1, older than version 2 of enabled patch 'klp_test_state3'"
assert_eq "nothing ran, nothing changed" "|5|0 0 1" "$(said)|$(level)|$(enabled)"
dmesg_mark
assert_eq "version 1 (not replace) refused too" "Invalid argument" \
	"$(write_err $KLP_SYSFS/klp_test_state/enabled 1)"
check "naming it" dmesg_has \
	"patch 'klp_test_state' carries system state 1 at version 1, older than version 2 of enabled patch 'klp_test_state3'"
dmesg_mark
check "a replace patch without the state is refused" eval '! klp_insmod klp_test_replace funcs=c'
check "naming the state it lacks" dmesg_has \
	"patch 'klp_test_replace' would replace patch 'klp_test_state3' but does not carry its system state 1 (version 2)"
assert_eq "klp_target_c untouched, the level too" "300 5 0 0 1" "$(target c) $(level) $(enabled)"
check "a patch without states that replaces nothing is fine" klp_insmod klp_test_p1
assert_eq "it runs beside the state patch" "1001 5" "$(target a) $(level)"

dmesg_mark
check "the version 2 patch disables" set_enabled klp_test_state3 0
assert_eq "it puts the level back itself" \
	"klp_test_state3: pre_unpatch: level restored to 1|klp_test_state3: post_unpatch: saved level freed|1" \
	"$(said)|$(level)"

# The sample raises the console loglevel while enabled.
loglevel() { cut -f1 /proc/sys/kernel/printk; }
before=$(loglevel)
check "livepatch-state loads" klp_insmod livepatch-state
assert_eq "console loglevel raised to 15" 15 "$(loglevel)"
check "it disables" set_enabled livepatch_state 0
assert_same "console loglevel back" "$before" "$(loglevel)"
ktap_finish
