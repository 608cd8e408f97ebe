#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# selftests/mutants/run.sh - the mutation table doc/testing.md quotes,
# measured: each selftests/mutants/NAME.patch breaks one guarantee on
# purpose, and its header names the guest group and the checks of it
# that must go red:
#   # klp-mutant-group: GROUP
#   # klp-mutant-kills: CHECK        (one line each; at least one)
# CHECK is a check's name as the group prints it ("ok N - CHECK"), where
# '*' stands for any text (a count that varies from run to run).
#
# First the baseline: a scratch copy of the working tree
# (build/mutants/slot-1), unmutated, built, and every group the mutants
# name run once (selftests/run.sh); each must be green, and each named
# check must be there and pass, or the mutant says nothing.  Then for
# each mutant: its patch applied to a built copy, `make all`, its group
# run.  A mutant is killed when its group fails and every check it names
# is red (a crash before a named check is no kill).  Prints a table, one
# row per group's baseline and per mutant, with the counts measured
# ("F of N": the checks red of all the group gave, as selftests/run.sh's
# closing line counts them), and exits non-zero unless every mutant was
# killed.  A mutant is only a claim about the tests while it still
# applies: selftests/host/41-mutants.sh checks that on every make check.
#
# Two mutants at a time (JOBS=1: one), each in a tree of its own that is
# built whole once (build/mutants/slot-N, the first one the baseline's):
# a mutant is its patch applied there, an incremental build (kbuild and
# the tools' -MMD rebuild what it changed), its group, then the tree's
# files put back (git checkout, the build left to the next make).  Two
# single-threaded groups share the machine's two guest slots; a group
# that needs both waits for them on the guest lock.
#
# Not part of make check: each mutant is a build and one guest group
# (1-5 minutes, queued behind other guests on the guest lock).
#
# Usage: selftests/mutants/run.sh [NAME...]   (default: every mutant)
#   KEEP=1 leaves build/mutants/ (each mutant's group output in NAME.out)
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 2
. selftests/headers.sh
# the default kernel only: no second pass (make check may have set these)
unset KLP_ALSO_KVER KLP_ALSO_GROUPS

if [ $# -gt 0 ]; then
	names=("$@")
else
	names=()
	for p in selftests/mutants/*.patch; do
		[ -e "$p" ] && names+=("$(basename "$p" .patch)")
	done
fi
[ ${#names[@]} -gt 0 ] || { echo "mutants: none in selftests/mutants/" >&2; exit 2; }

# The guest kernel and its module tree are shared, not copied (gigabytes):
# the copy's build/kernel is a symlink to this tree's, and a RELATIVE one,
# because the guest resolves the path itself over its 9p view of the host
# root (an absolute symlink works the same there only by luck of layout).
[ -e build/kernel ] || { echo "mutants: no build/kernel: run make check once first" >&2; exit 2; }

# copy DIR: the working tree as it is (scripts/copy-tree.sh) in DIR, a git
# repository of its own with those files committed (git apply patches the
# copy's paths; git checkout puts them back after a mutant)
copy() {
	"$top/scripts/copy-tree.sh" "$1" && mkdir "$1/build" || return
	ln -s ../../../kernel "$1/build/kernel"
	(cd "$1" && git init -q && git add -A &&
	 git -c user.name=mutants -c user.email=mutants@localhost commit -qm tree)
}

# run_group DIR GROUP...: build DIR, run the groups there into
# DIR/group.out; fails (saying why) if it did not build or gave no
# closing line
run_group() {
	local dir=$1
	shift
	if ! make -C "$dir" all > "$dir/make.log" 2>&1; then
		why="does not build: $(grep -m1 -E 'error' "$dir/make.log")"
		return 1
	fi
	"$dir/selftests/run.sh" "$@" > "$dir/group.out" 2>&1
	grep -qE '^[0-9]+ passed, [0-9]+ failed' "$dir/group.out" && return 0
	why="no closing line from selftests/run.sh: see $dir/group.out"
	return 1
}

# results OUT: "ok|not ok<TAB>NAME" for each numbered result in OUT
results() {
	sed -nE 's/^(not ok|ok) [0-9]+ - (.*)$/\1\t\2/p' "$1" | sed -E 's/ # SKIP.*$//'
}

# named OUT PATTERN: the results whose name PATTERN matches, "ok" and
# "not ok" counted: "OK NOT_OK"
named() {
	local r name ok=0 bad=0
	while IFS=$'\t' read -r r name; do
		# shellcheck disable=SC2053 # PATTERN is a glob
		[[ $name == $2 ]] || continue
		if [ "$r" = ok ]; then ok=$((ok + 1)); else bad=$((bad + 1)); fi
	done < <(results "$1")
	echo "$ok $bad"
}

# red OUT: "F of N", the checks OUT's groups failed of all they gave, as
# selftests/run.sh's closing line counts them (SKIPs not counted; the
# harness's own failures, a crash or too few results, counted)
red() {
	awk '/^not ok/ { f++ } /^ok [0-9]+ / && !/ # SKIP/ { p++ }
		END { print f + 0 " of " f + p }' "$1"
}

# block OUT GROUP: GROUP's part of OUT (from its "# ---- guest/GROUP: S s"
# line to the next group's)
block() {
	awk -v g="guest/$2:" '/^# ---- guest\/[^ ]*: [0-9]+ s$/ { on = ($3 == g) } on' "$1"
}

# --- each mutant's header ----------------------------------------------------
declare -A group kills
groups=()
broken=0
rows=()
for name in "${names[@]}"; do
	p=$top/selftests/mutants/$name.patch
	if [ ! -f "$p" ]; then
		rows+=("| $name | | | no such mutant |")
		broken=$((broken + 1))
		continue
	fi
	g=$(klp_header "$p" mutant-group)
	k=$(klp_headers "$p" mutant-kills)
	if [ -z "$g" ] || [ ! -f "selftests/tests/$g.sh" ] || [ -z "$k" ]; then
		rows+=("| $name | $g | | its header names no guest group or no check to kill |")
		broken=$((broken + 1))
		continue
	fi
	group[$name]=$g
	kills[$name]=$k
	[[ " ${groups[*]} " == *" $g "* ]] || groups+=("$g")
done

# --- the baseline: every group green, every named check there and ok ---------
# (slot 2's tree is copied and built meanwhile)
mdir=$top/build/mutants
base=$mdir/slot-1
jobs=${JOBS:-2}
[ "$jobs" = 1 ] || jobs=2
rm -rf "$mdir"
mkdir -p "$mdir/rows"
if [ "$jobs" = 2 ]; then
	# (its status in a file: by the baseline's end a new child may have
	# taken its pid, and bash forgets it; see selftests/run.sh)
	{ copy "$mdir/slot-2" && make -C "$mdir/slot-2" all > "$mdir/slot-2/make.log" 2>&1
	  echo $? > "$mdir/slot-2.rc"; } &
	slot2=$!
fi
echo "# baseline: building, then ${groups[*]} (output in $base/group.out)" >&2
if ! copy "$base" || ! run_group "$base" "${groups[@]}"; then
	echo "mutants: the baseline: ${why:-cannot copy the tree}" >&2
	exit 2
fi
for g in "${groups[@]}"; do
	block "$base/group.out" "$g" > "$mdir/baseline-$g.out"
	rows+=("| (none) | $g | $(red "$mdir/baseline-$g.out") | the baseline |")
done
if ! grep -qE '^[0-9]+ passed, 0 failed' "$base/group.out"; then
	echo "mutants: the baseline is not green: see $base/group.out" >&2
	grep -E '^#   ' "$base/group.out" | tail -n 20 >&2
	exit 2
fi
[ "$jobs" = 2 ] && wait "$slot2" 2> /dev/null
if [ "$jobs" = 2 ] && [ "$(cat "$mdir/slot-2.rc" 2> /dev/null)" != 0 ]; then
	echo "mutants: slot 2's tree does not build: see $mdir/slot-2/make.log" >&2
	exit 2
fi

# try NAME DIR: NAME's row into build/mutants/rows/NAME, trying it in the
# built tree DIR, which it leaves as it found it (its files; the build is
# the next make's)
try() {
	local name=$1 dir=$2 g=${group[$1]} p=$top/selftests/mutants/$1.patch
	local bad='' k ok nok verdict said row
	# each named check: in the baseline, and all of it ok there
	while IFS= read -r k; do
		read -r ok nok <<< "$(named "$mdir/baseline-$g.out" "$k")"
		[ "$ok" -gt 0 ] && [ "$nok" = 0 ] || bad+="'$k' ($ok ok, $nok not ok in the baseline); "
	done <<< "${kills[$name]}"
	if [ -n "$bad" ]; then
		row="| $name | $g | | names checks the baseline lacks or fails: ${bad%; } |"
	elif ! (cd "$dir" && git apply "$p") > "$mdir/$name.apply" 2>&1; then
		row="| $name | $g | | does not apply: $(head -n 3 "$mdir/$name.apply" | paste -sd' ' -) |"
	else
		echo "# $name: building, then $g (output in $mdir/$name.out)" >&2
		if ! run_group "$dir" "$g"; then
			row="| $name | $g | | $why |"
		else
			# killed: the group failed, and each named check went red
			verdict=killed
			grep -qE '^[0-9]+ passed, 0 failed' "$dir/group.out" && verdict=SURVIVED
			said=
			while IFS= read -r k; do
				read -r ok nok <<< "$(named "$dir/group.out" "$k")"
				if [ "$nok" -gt 0 ]; then
					said+="red: \`$k\`; "
				else
					said+="NOT red ($ok ok): \`$k\`; "
					verdict=SURVIVED
				fi
			done <<< "${kills[$name]}"
			row="| $name | $g | $(red "$dir/group.out") | $verdict: ${said%; } |"
		fi
		cp "$dir/group.out" "$mdir/$name.out" 2>/dev/null
		(cd "$dir" && git checkout -q -- .)
	fi
	echo "$row" > "$mdir/rows/$name"
}

# --- the mutants: the longest groups first, dealt to the slots in turn --------
mapfile -t order < <(for name in "${names[@]}"; do
	[ -n "${group[$name]:-}" ] || continue
	echo "$(guest_cost "selftests/tests/${group[$name]}.sh") $name"
done | sort -s -k1,1nr | cut -d' ' -f2)
pids=()
for ((j = 1; j <= jobs; j++)); do
	(
		for ((i = j - 1; i < ${#order[@]}; i += jobs)); do
			try "${order[i]}" "$mdir/slot-$j"
		done
	) &
	pids+=($!)
done
wait "${pids[@]}"

survived=0
for name in "${names[@]}"; do
	[ -n "${group[$name]:-}" ] || continue
	if [ ! -s "$mdir/rows/$name" ]; then
		rows+=("| $name | ${group[$name]} | | no row: its slot ended early |")
		broken=$((broken + 1))
		continue
	fi
	row=$(cat "$mdir/rows/$name")
	rows+=("$row")
	case $row in
	*"| killed: "*) ;;
	*"| SURVIVED: "*) survived=$((survived + 1)) ;;
	*) broken=$((broken + 1)) ;;
	esac
done

echo "mutants at $(git describe --always --dirty), kernel $(scripts/kver.sh), $(date +%Y-%m-%d)"
echo "| mutant | group | checks red | the checks it must turn red |"
echo "|---|---|---|---|"
printf '%s\n' "${rows[@]}"
echo "$(( ${#names[@]} - survived - broken )) of ${#names[@]} killed, $survived survived, $broken could not be tried"
[ "${KEEP:-0}" = 1 ] || rm -rf "$mdir"
[ "$survived" = 0 ] && [ "$broken" = 0 ]
