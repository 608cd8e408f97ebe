#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# klp-cost: 300
# klp-accel: tcg,thread=single
# klp-min-results: 23
# Upstream's livepatch selftests, run against klp as a peer's suite: the
# scripts and test modules of Debian's linux-source-6.1
# (tools/testing/selftests/livepatch/test-*.sh, lib/livepatch/
# test_klp_*.c), built by scripts/upstream-selftests.sh at build time with
# only the include line changed, driven by our own functions.sh
# (selftests/upstream/).  Each scenario (a start_test ... check_result of
# their scripts) runs in a bash of its own, the modules it left are
# removed after it, and its transcript (the kernel log as upstream's
# check_result() filters it) is compared with the one upstream expects,
# both translated by selftests/upstream/{upstream-only,translate}.sed
# (the core's lines whose wording differs).  A scenario passes if it
# agrees, or differs exactly as selftests/upstream/differences lists it;
# one that differs otherwise, or agrees although listed, fails.
# Arguments: scenarios to run (SCRIPT:N, e.g. test-livepatch:1); none: all.
. "$(dirname "$0")/../lib.sh"
ktap_start "upstream's livepatch selftests (linux-source-6.1) against klp"

UP=$KLP_TOP/build/upstream
UPS=$KLP_TOP/selftests/upstream
SRC=$UP/src/tools/testing/selftests/livepatch
ls "$UP"/modules/test_klp_*.ko > /dev/null 2>&1 && [ -f "$SRC/functions.sh" ] ||
	bail "upstream's selftests are built (build/upstream: make all with /usr/src/linux-source-6.1.tar.xz installed)"

klp_insmod klp || bail "core loads"

W=$(mktemp -d)
kv=$(uname -r)
# a module tree of their own, for modprobe -d and modinfo -b
mkdir -p "$W/tree/lib/modules/$kv/extra" "$W/scen"
cp "$UP"/modules/test_klp_*.ko "$KLP_TOP/core/klp.ko" "$KLP_TOP/core/klp_events.ko" \
	"$W/tree/lib/modules/$kv/extra/"
depmod -b "$W/tree" "$kv" 2> "$W/depmod.err" || { diag "$(cat "$W/depmod.err")"; bail "depmod of the test modules"; }
# upstream's sysfs root becomes klp's, in its scripts and its helpers
to_klp() { sed 's#/sys/kernel/livepatch#/sys/kernel/klp#g' "$1"; }
# upstream's helpers, then klp's changes to them (they source the former)
to_klp "$SRC/functions.sh" > "$W/scen/upstream-functions.sh"
cp "$UPS/functions.sh" "$W/scen/"

# split SCRIPT: each scenario of it, with the script's lines before its
# first start_test (sourcing functions.sh, naming the modules,
# setup_config), as $W/scen/NAME:N.sh.  Prints the number of scenarios.
split() {
	local name
	name=$(basename "$1" .sh)
	to_klp "$1" |
		awk -v out="$W/scen/$name" '
		/^start_test / { n++ }
		n == 0 { head = head $0 "\n"; next }
		{ body[n] = body[n] $0 "\n" }
		END {
			for (i = 1; i <= n; i++) {
				f = out ":" i ".sh"
				printf "%s%s", head, body[i] > f
				close(f)
			}
			print n
		}'
}

# wanted ID: no argument given, or ID among them
wanted() {
	[ ${#ARGS[@]} = 0 ] && return 0
	local a
	for a in "${ARGS[@]}"; do [ "$a" = "$1" ] && return 0; done
	return 1
}

# listed ID: the lines selftests/upstream/differences gives scenario ID
# (its block's lines but why:, comments and blank ones); 1 if unlisted
listed() {
	awk -v id="$1" '
		/^=== / { on = ($2 == id); if (on) found = 1; next }
		on && !/^(why:|#|$)/ { print }
		END { exit !found }' "$UPS/differences"
}

# tidy: after a scenario, no patch of a test module enabled, no test
# module loaded: each patch disabled, each module removed, forcibly
# (rmmod -f, CONFIG_MODULE_FORCE_UNLOAD) if klp still pins it; ftrace on
tidy() {
	local e m mods=()
	echo 1 > /proc/sys/kernel/ftrace_enabled
	for e in "$KLP_SYSFS"/test_klp_*/enabled; do
		[ -e "$e" ] && [ "$(< "$e")" = 1 ] && echo 0 > "$e"
	done
	# patch modules first (in /proc/modules, the last loaded comes first):
	# a target may be a patch's object
	while read -r m _; do
		[[ $m == test_klp_* ]] && mods+=("$m")
	done < /proc/modules
	for m in "${mods[@]}"; do
		[ -d "/sys/module/$m" ] || continue
		rmmod "$m" 2> /dev/null && continue
		if rmmod -f "$m" 2> /dev/null; then
			FORCED+=" $m"
		else
			bail "$m cannot be removed after a scenario: the next would run on its leftovers"
		fi
	done
}

ARGS=("$@")
FORCED=
SEEN=
for s in "$SRC"/test-livepatch.sh "$SRC"/test-callbacks.sh "$SRC"/test-shadow-vars.sh \
	 "$SRC"/test-state.sh "$SRC"/test-ftrace.sh "$SRC"/test-sysfs.sh; do
	[ -f "$s" ] || { not_ok "$(basename "$s") is in linux-source"; continue; }
	name=$(basename "$s" .sh)
	n=$(split "$s")
	for ((i = 1; i <= n; i++)); do
		id=$name:$i
		SEEN+=" $id "
		wanted "$id" || continue
		out=$W/out/$id
		mkdir -p "$out"
		FORCED=
		t0=$SECONDS
		KLP_UP_OUT=$out KLP_UP_MODTREE=$W/tree timeout 300 \
			bash "$W/scen/$id.sh" > "$out/stdout" 2>&1
		tidy
		diag "$id: $((SECONDS - t0)) s"
		# start_test's "TEST: NAME ... " opens the scenario's output
		tname=$(awk '/^TEST: / { s = substr($0, 7); i = index(s, " ... ")
			print i ? substr(s, 1, i - 1) : s; exit }' "$out/stdout")
		title="$id '$tname'"
		if [ -e "$out/skipped" ]; then
			skip "$title" "$(cat "$out/skipped")"
			continue
		fi
		# the signature of a difference: why it died, then the lines
		# upstream expects and we lack (-), those we have and it lacks (+)
		{
			[ -e "$out/expected" ] || echo "died: no check_result (exit or timeout)"
			[ -e "$out/died" ] && echo "died: $(cat "$out/died")"
			[ -e "$out/expected" ] &&
				diff --old-line-format='-%L' --new-line-format='+%L' \
					--unchanged-line-format= \
					<(sed -f "$UPS/upstream-only.sed" "$out/expected") \
					<(sed -f "$UPS/translate.sed" "$out/actual")
		} > "$out/signature"
		[ -n "$FORCED" ] && diag "$id: removed by force after it:$FORCED"
		[ -e "$out/expected" ] || sed 's/^/#   stdout: /' "$out/stdout" | tail -n 20
		if listed "$id" > "$out/listed"; then
			if [ ! -s "$out/signature" ]; then
				not_ok "$title: agrees with upstream, but selftests/upstream/differences lists it: remove it there"
			elif cmp -s "$out/signature" "$out/listed"; then
				ok "$title: differs from upstream as listed ($(awk -v id="$id" '$1 == "===" { on = ($2 == id); next } on && /^why:/ { sub(/^why: */, ""); print; exit }' "$UPS/differences"))"
			else
				not_ok "$title: differs from upstream otherwise than listed"
				diag "listed:"
				sed 's/^/#   | /' "$out/listed"
				diag "now:"
				sed 's/^/#   | /' "$out/signature"
			fi
		elif [ ! -s "$out/signature" ]; then
			ok "$title: agrees with upstream"
		else
			not_ok "$title: differs from upstream"
			diag "=== $id $tname"
			sed 's/^/#   | /' "$out/signature"
		fi
		if [ -n "${KLP_UP_VERBOSE:-}" ]; then
			diag "--- $id transcript (translated):"
			sed -f "$UPS/translate.sed" "$out/actual" 2>/dev/null | sed 's/^/#   > /'
		fi
	done
done
# a block for a scenario upstream's scripts no longer have is stale
stale=$(awk '/^=== / { print $2 }' "$UPS/differences" | while read -r id; do
	[[ $SEEN == *" $id "* ]] || echo "$id"; done)
assert_eq "every scenario selftests/upstream/differences lists exists" "" "$stale"
rm -rf "$W"
ktap_finish
