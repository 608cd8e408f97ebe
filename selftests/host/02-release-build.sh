#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The klp.ko users get has no fault-injection knob: it is built only into
# the selftests' variant (build/core-fault, KLP_FAULT_INJECT=y), which has
# it (the control case: the checks can tell them apart).
. "$(dirname "$0")/../lib.sh"
ktap_start "release build: no fault-injection knob"

release=$KLP_TOP/core/klp.ko
testbuild=$KLP_TOP/build/core-fault/klp.ko
[ -f "$release" ] && [ -f "$testbuild" ] || bail "both builds exist (make modules)"

knob() {	# knob KO: "param" if the module has fault_inject, then "code"
	# if its klp_fault() is there
	modinfo -F parm "$1" | grep -q '^fault_inject:' && echo param
	nm "$1" | grep -qw klp_fault && echo code
}
assert_eq "the test build has the knob and its code" "param code" "$(knob "$testbuild" | paste -sd' ')"
assert_eq "the release build has neither" "" "$(knob "$release" | paste -sd' ')"
assert_eq "both are the same module (klp)" "klp klp" \
	"$(modinfo -F name "$release") $(modinfo -F name "$testbuild")"
ktap_finish
