#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# klp-cost: 185
# klp-accel: tcg,thread=single
# klp-timeout: 900
# klp-min-results: 2
# The torture: seeded random sequences of what a user can do (load,
# disable, reverse, force, remove patches of a pool; reload the target;
# sleepers parked inside old and new functions; storms that fork and exec
# from threads that are not their group's leader; a CPU off and on), done
# on klp and on the kernel's own livepatch, whose observable outcomes must
# agree after every step, with klp's invariants (no mixed versions, no
# module gone under a sleeper, transitions held exactly while a sleeper
# holds them) checked on both (selftests/torture/klp_torture.py).
# Single-threaded TCG: the first patch of a function is enabled while the
# storms call it (doc/testing.md).
#
# Usage in the guest: 27-torture.sh [SEEDS [STEPS [SECONDS [VERBOSE]]]]
# (SEEDS separated by ':'; make torture passes them; SECONDS: soak)
. "$(dirname "$0")/../lib.sh"
ktap_start "torture: klp and the builtin livepatch under the same random sequences"

# make check: one seed a kernel (CI's time), two between the two kernels
case $(uname -r) in
6.1.*) seeds=${1:-1} ;;
*) seeds=${1:-2} ;;
esac
steps=${2:-60}
seconds=${3:-0}
verbose=${4:+-v}

kmemleak_start
klp_insmod klp || bail "core loads"
check "the builtin livepatch's sysfs tree is there" [ -d /sys/kernel/livepatch ]
out=$(mktemp)
IFS=: read -ra list <<< "$seeds"
for ((i = 0; i < ${#list[@]}; i++)); do
	seed=${list[i]}
	# streamed as it goes (a hung step shows where it hung)
	python3 -u "$KLP_TOP/selftests/torture/klp_torture.py" --seed "$seed" \
		--steps "$steps" --time "$seconds" --moddir "$KLP_TOP/build/torture" \
		$verbose 2>&1 | tee "$out" | grep --line-buffered -v '^ktt-' |
		sed -u 's/^\([^#]\)/# \1/'
	rc=${PIPESTATUS[0]}
	result=$(sed -n 's/^ktt-result: //p' "$out")
	case $result in
	"ok "*) ok "${result#ok }" ;;
	"not ok "*) not_ok "${result#not ok }" ;;
	*) not_ok "seed $seed: the driver ended without a result (exit $rc)" ;;
	esac
	# a failed run leaves its sleepers and patches: no seed after it
	[ "$rc" = 0 ] || break
	# a forced transition pins its patch modules (and ktt_park, whose
	# symbols they use) until a reboot: no seed after it sets up here
	[ "$(sed -n 's/^ktt-forced: //p' "$out")" = 1 ] || continue
	for ((j = i + 1; j < ${#list[@]}; j++)); do
		skip "seed ${list[j]}" "seed $seed forced a transition: the modules it pinned stay until a reboot (make torture boots once a seed)"
	done
	break
done
rm -f "$out"
# what both cores and the patch modules allocated is freed when the last
# patch goes, the modules with it (a pinned module keeps a reference to
# what it holds: no leak); after a failed seed they stay as they failed
if [ "$rc" = 0 ]; then
	kmemleak_check "kmemleak: no object klp, the builtin livepatch or a ktt module allocated" "klp|ktt"
else
	skip "kmemleak: no object klp, the builtin livepatch or a ktt module allocated" "a seed failed: its patches and sleepers stay"
fi
ktap_finish
