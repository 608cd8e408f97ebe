#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run every klp test: host tests (selftests/host/*.sh) here, guest groups
# (selftests/tests/*.sh) each in a fresh guest.  A guest that oopses, warns,
# panics or times out fails its group even if its script said ok.  Ends
# with one line "N passed, N failed" and exits non-zero on any failure.
# A group whose TAP plan ("1..N") is missing or does not count its ok and
# not ok lines failed too (it died, or lost results), and so does a
# NAME-PATTERN that matches no group.  Each group declares in its header
# how many results it gives at least (# klp-min-results: N, default 1),
# counting ok and not ok lines that are not SKIPs: one that gives fewer
# (it printed 1..0, skipped its checks, or stopped early) failed too.
#
# With KLP_ALSO_KVER set (make check sets it to the installed 6.12 when
# KVER is the default), the groups named in KLP_ALSO_GROUPS run again on
# that kernel, from a copy of the tree built for it (build/also-KVER),
# queued after the first kernel's, counted in the same closing line.  With KLP_ALSO_KVER=missing (make check without a 6.12
# kernel's headers) that pass is one failure, not silence.
#
# Usage: selftests/run.sh [NAME-PATTERN...]   e.g. selftests/run.sh stack deferred
# (every group whose name contains one of them; none: every group)
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/selftests/headers.sh"
patterns=("$@")
# the harness's own test (host/04-harness) points these elsewhere
host_dir=${KLP_HOST_TESTS:-$top/selftests/host}
guest_dir=${KLP_GUEST_TESTS:-$top/selftests/tests}
boot=${KLP_GUEST_BOOT:-$top/selftests/guest/boot.sh}
# wanted NAME: no pattern given, or NAME contains one of them
wanted() {
	local p
	[ ${#patterns[@]} = 0 ] && return 0
	for p in "${patterns[@]}"; do
		[[ $1 == *$p* ]] && return 0
	done
	return 1
}
passed=0
failed=0
skipped=0
groups=0
failures=()

count() {	# count GROUP OUTPUT-FILE
	local p f s
	p=$(grep -cE '^ok [0-9]+' "$2" | head -n1)
	s=$(grep -cE '^ok [0-9]+ .*# SKIP' "$2" | head -n1)
	f=$(grep -cE '^not ok [0-9]+' "$2" | head -n1)
	passed=$((passed + p - s))
	skipped=$((skipped + s))
	failed=$((failed + f))
	[ "$f" = 0 ] || failures+=("$1: $f failed: $(grep -E '^not ok' "$2" | sed 's/^not ok [0-9]* - //' | head -n 5 | paste -sd';' -)")
}

# plan GROUP OUTPUT-FILE: the group's one plan line "1..N" must count its
# ok and not ok lines; if not, one more failure (succeeds if the plan held)
plan() {
	local plans n results why=
	plans=$(grep -cE '^1\.\.[0-9]+$' "$2")
	n=$(sed -n 's/^1\.\.\([0-9][0-9]*\)$/\1/p' "$2" | head -n 1)
	results=$(grep -cE '^(not )?ok [0-9]+' "$2")
	if [ "$plans" = 0 ]; then
		why="no TAP plan (1..N): the group did not finish ($results results)"
	elif [ "$plans" != 1 ]; then
		why="$plans TAP plans"
	elif [ "$n" != "$results" ]; then
		why="TAP plan 1..$n but $results results"
	fi
	[ -z "$why" ] && return 0
	echo "not ok - $1: $why"
	failed=$((failed + 1)); failures+=("$1: $why")
	return 1
}

# minimum GROUP OUTPUT-FILE SCRIPT: at least the results the script's
# "# klp-min-results: N" header promises (default 1), SKIPs not counted;
# if not, one more failure (succeeds if the minimum held)
minimum() {
	local want got
	want=$(klp_header_num "$3" min-results 1)
	got=$(grep -E '^(not )?ok [0-9]+' "$2" | grep -cvE '^ok [0-9]+ .*# SKIP')
	echo "# $1: $got results that are not SKIPs (at least $want)"
	[ "$got" -ge "$want" ] && return 0
	echo "not ok - $1: $got results that are not SKIPs, fewer than the $want its header promises (# klp-min-results)"
	failed=$((failed + 1)); failures+=("$1: $got results, fewer than $want")
	return 1
}

log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT

# The host tests run one after the other in the background, beside the
# guest groups (they share the cores; a guest a host test boots queues on
# the guest lock like any other), each one's output kept apart; host_reap
# shows and counts them once they and every guest group are done.
mkdir "$log/host"
host_run() {
	local t n s0
	for t in "$host_dir"/*.sh; do
		[ -e "$t" ] || continue
		n=$(basename "$t" .sh)
		wanted "host/$n" || continue
		echo "$t" >> "$log/host/list"
		s0=$SECONDS
		"$t" > "$log/host/$n.out" 2>&1 < /dev/null
		echo $? > "$log/host/$n.rc"
		echo $((SECONDS - s0)) > "$log/host/$n.time"
	done
}
host_run &
host_pid=$!

# Background jobs leave their status in files, never only in wait's: pids
# wrap (pid_max is 32768 on CI's machine), and once a job that ended long
# ago has been reaped, bash forgets it as soon as a new child of this
# shell takes its pid ("wait: pid N is not a child of this shell").  A
# job bash no longer knows has ended (a running child's pid is never
# taken), so its wait just returns.

host_reap() {
	local t n name rc s0=$SECONDS
	wait "$host_pid" 2> /dev/null
	echo "# ---- the host tests (waited $((SECONDS - s0)) s for them)"
	[ -e "$log/host/list" ] || return 0
	while read -r t; do
		n=$(basename "$t" .sh)
		name=host/$n
		echo "# ---- $name: $(cat "$log/host/$n.time" 2>/dev/null || echo ?) s"
		groups=$((groups + 1))
		cat "$log/host/$n.out"
		rc=$(cat "$log/host/$n.rc" 2>/dev/null || echo 3)
		count "$name" "$log/host/$n.out"
		plan "$name" "$log/host/$n.out" || continue	# a plan failure says enough
		minimum "$name" "$log/host/$n.out" "$t"
		if [ "$rc" != 0 ] && ! grep -qE '^not ok' "$log/host/$n.out"; then
			failed=$((failed + 1)); failures+=("$name: exited $rc")
		fi
	done < "$log/host/list"
}

# Guest groups run in the background, two at a time where the machine
# allows it: a group on single-threaded TCG (# klp-accel: tcg,thread=single)
# keeps one host core busy, any other may keep both, so it takes both
# slots (KLP_GUEST_SLOTS, default 2 on a host with two cores or more, 1
# runs one group at a time).  Each group's output is shown whole when it
# ends, then counted; its own guest keeps its isolation, and a crash
# fails that group alone, by name.
slots=${KLP_GUEST_SLOTS:-$( [ "$(nproc)" -ge 2 ] && echo 2 || echo 1)}
free=$slots
declare -A job_name=() job_weight=() job_t0=() job_out=() job_script=()

# guest_rootfs NAME KVER: the root filesystem image a group boots
# (# klp-rootfs: debian12, with systemd as PID 1), with this tree's
# packages beside it for the group to install there (scripts/deb.sh,
# scripts/rootfs.sh: each built once, and again only when what it is
# built from changed); prints the image's path
guest_rootfs() {
	local debs
	if [ "$1" != debian12 ]; then
		echo "run.sh: no root filesystem '$1' (scripts/rootfs.sh builds debian12)" >&2
		return 1
	fi
	debs=$("$top/scripts/deb.sh" -m "$2") &&
		"$top/scripts/rootfs.sh" "$2" "$(grep '/klp-tools_' <<< "$debs")"
}

# guest_timeout SCRIPT: the seconds its guest may run: its # klp-timeout:
# (default 600), but never under four times its cost (beside the host
# tests, the 6.12 build and the other slot's group, a group started early
# took 2.5 times its idle time; a timeout near that fails it for being
# slow, not for hanging), and
# KLP_TIMEOUT_SCALE times that on a debug kernel (make check-debug runs
# everything several times slower)
guest_timeout() {
	local tmo cost
	tmo=$(klp_header_num "$1" timeout 600)
	cost=$(guest_cost "$1")
	(( tmo < 4 * cost )) && tmo=$(( 4 * cost ))
	echo $(( tmo * ${KLP_TIMEOUT_SCALE:-1} ))
}

# guest_run GROUP-SCRIPT NAME KVER OUT WEIGHT BOOT: boot one group's guest
# with BOOT (the boot.sh of the tree the group runs from), output to OUT,
# boot.sh's status to OUT.rc (a background job)
guest_run() {
	local t=$1 name=$2 kver=$3 out=$4 boot=$6 args tmo accel gport rc rootfs
	args=$(klp_header "$t" boot-args)
	tmo=$(guest_timeout "$t")
	accel=$(klp_header "$t" accel)
	gport=$(klp_header "$t" host-prometheus)
	rootfs=$(klp_header "$t" rootfs)
	exec > "$out" 2>&1
	echo "# ---- $name${args:+ (kernel args: $args)}"
	local KLP_ROOTFS=
	if [ -n "$rootfs" ] &&
	   ! KLP_ROOTFS=$(guest_rootfs "$rootfs" "${kver:-$("$top/scripts/kver.sh")}"); then
		echo "not ok - $name: its root filesystem and the packages it installs are built"
		echo rootfs > "$out.rc"
		return
	fi
	local KLP_HOSTFWD= KLP_PROM_ARGS= pdir=
	if [ -n "$gport" ]; then
		# a Prometheus on the host, scraping the guest's port gport
		pdir=$(mktemp -d)
		if ! eval "$("$top/selftests/guest/prometheus.sh" start "$pdir" "$gport" $((tmo + 300)))"; then
			echo "not ok - $name: the host's Prometheus starts"
			"$top/selftests/guest/prometheus.sh" stop "$pdir"
			echo prometheus > "$out.rc"
			return
		fi
		args+="${args:+ }$KLP_PROM_ARGS"
	fi
	KVER=$kver KLP_ACCEL=${accel:-${KLP_ACCEL:-auto}} KLP_HOSTFWD=$KLP_HOSTFWD KLP_ROOTFS=$KLP_ROOTFS \
		KLP_GUEST_WEIGHT=$(( $5 < slots ? 1 : 2 )) \
		"$boot" -t "$tmo" ${args:+-a "$args"} "$t"
	rc=$?
	[ -n "$pdir" ] && "$top/selftests/guest/prometheus.sh" stop "$pdir"
	echo "$rc" > "$out.rc"
}

# guest_count NAME OUT SCRIPT: show one finished group's output and count it
guest_count() {
	local name=$1 out=$2 script=$3 rc planned
	cat "$out"
	rc=$(cat "$out.rc" 2>/dev/null || echo 3)
	if [ "$rc" = prometheus ]; then
		failed=$((failed + 1)); failures+=("$name: the host's Prometheus did not start")
		return
	fi
	if [ "$rc" = rootfs ]; then
		failed=$((failed + 1)); failures+=("$name: its root filesystem or packages were not built")
		return
	fi
	count "$name" "$out"
	plan "$name" "$out"
	planned=$?
	[ "$planned" = 0 ] && minimum "$name" "$out" "$script"
	if [ "$rc" != 0 ]; then
		# the guest script's own failures are counted; a crash is one more
		# (a script that died without results is already a plan failure)
		if [ "$rc" -ge 2 ] || { [ "$planned" = 0 ] && ! grep -qE '^not ok' "$out"; }; then
			echo "not ok - $name: guest failed (boot.sh exit $rc)"
			failed=$((failed + 1)); failures+=("$name: guest failed (exit $rc)")
		fi
	fi
}

# guest_reap: wait for one running group, show and count it
guest_reap() {
	local pid= p
	until [ -n "${pid:-}" ]; do
		# (wait unsets pid when it returns for no job)
		wait -n -p pid "${!job_name[@]}" 2> /dev/null
		[ $? = 127 ] && [ -z "${pid:-}" ] || continue
		# bash knows none of them any more: they all ended; the first
		# whose status is written (each writes it as it ends)
		for p in "${!job_name[@]}"; do
			pid=$p
			[ -e "${job_out[$p]}.rc" ] && break
		done
	done
	echo "# ---- ${job_name[$pid]}: $((SECONDS - job_t0[$pid])) s"
	guest_count "${job_name[$pid]}" "${job_out[$pid]}" "${job_script[$pid]}"
	free=$((free + job_weight[$pid]))
	unset "job_name[$pid]" "job_weight[$pid]" "job_t0[$pid]" "job_out[$pid]" "job_script[$pid]"
}

# single_threaded GROUP-SCRIPT: the group runs on single-threaded TCG
# (# klp-accel: tcg,thread=single), one host core busy
single_threaded() {
	[ "$(klp_header "$1" accel)" = tcg,thread=single ]
}

# guest GROUP-SCRIPT NAME [KVER [BOOT]]: start one guest group once its
# slots are free (booted by BOOT, default this tree's boot.sh)
guest() {
	local t=$1 name=$2 kver=${3:-${KVER:-}} gboot=${4:-$boot} weight=$slots pid out
	# (with one slot, every guest has the machine to itself)
	[ "$slots" -ge 2 ] && single_threaded "$t" && weight=1
	while [ "$free" -lt "$weight" ]; do
		guest_reap
	done
	out=$(mktemp "$log/group.XXXXXX")
	guest_run "$t" "$name" "$kver" "$out" "$weight" "$gboot" &
	pid=$!
	job_name[$pid]=$name job_weight[$pid]=$weight job_t0[$pid]=$SECONDS job_out[$pid]=$out
	job_script[$pid]=$t
	free=$((free - weight))
}

# guest_drain: wait for every running group
guest_drain() {
	while [ ${#job_name[@]} -gt 0 ]; do
		guest_reap
	done
}

# guest_order SCRIPT...: the groups' scripts in the order they start: those
# that take one slot, then those that take both (each after another, so
# the slots drain once, not before each of them; last, when the host
# tests and the second kernel's build no longer slow the cores they hold
# alone); each kind the dearest first (# klp-cost: the seconds the group
# took on an idle machine; none: 0), ties in the order given: no long
# group is left to run alone at the end while the other slot idles
guest_order() {
	local t w
	for t in "$@"; do
		[ -e "$t" ] || continue
		w=2
		single_threaded "$t" && w=1
		echo "$w $(guest_cost "$t") $t"
	done | sort -s -k1,1n -k2,2nr | cut -d' ' -f3-
}

# The second kernel (make check sets KLP_ALSO_KVER to the installed 6.12):
# the groups whose outcome the kernel can change run again on it, from a
# copy of this tree (git's files, the guest kernels hard-linked) built for it
# in the background while the first kernel's groups run; its groups are
# queued after theirs, so they fill the slots as the first ones end, and
# this tree stays built for the first kernel.
also=${KLP_ALSO_KVER:-}
if [ "$also" = missing ]; then
	echo "not ok - the second kernel's pass: no 6.12 headers installed ($("$top/scripts/kver.sh" 6.12 2>&1 >/dev/null))"
	failed=$((failed + 1)); failures+=("no second kernel (6.12) to run on")
	also=
fi
[ "$also" = "${KVER:-}" ] && also=
# (the groups whose outcome the kernel can change: its ftrace and symbols,
# IBT, stack unwinding, the builtin livepatch the tools and the torture
# read, BTF for the BPF programs (43 and 45 load klptop's); the others
# run on one kernel in CI's hour, and on 6.12 whole with make check
# KVER=...)
also_groups=${KLP_ALSO_GROUPS:-10-core 13-symbols 14-builtin 15-reloc 17-hardening 18-ibt 24-batch 25-consistency 26-edges 27-torture 43-livepatch-source 45-transitions}
also_tree=$top/build/also-$also
# (KLP_ALSO_BUILD: a command run instead, host/22's fake)
also_build() {
	if [ -n "${KLP_ALSO_BUILD:-}" ]; then
		$KLP_ALSO_BUILD "$also_tree"
		return
	fi
	"$top/scripts/copy-tree.sh" "$also_tree" && mkdir "$also_tree/build" &&
	# hard links, not a symlink: a guest sees only its tree's own path
	# (its /tmp is a tmpfs), so a link out of it would not resolve there
	cp -al "$top/build/kernel" "$also_tree/build/kernel" &&
	make -s -C "$also_tree" all KVER="$also"
}
if [ -n "$also" ]; then
	{ also_build; echo $? > "$log/also-build.rc"; } > "$log/also-build" 2>&1 &
	also_pid=$!
fi

mapfile -t scripts < <(guest_order "$guest_dir"/*.sh)
for t in "${scripts[@]}"; do
	name=guest/$(basename "$t" .sh)
	wanted "$name" || continue
	groups=$((groups + 1))
	guest "$t" "$name"
done

# the second kernel's groups, once its tree is built
if [ -n "$also" ]; then
	echo "# ==== the same groups on $also: $also_groups"
	wait "$also_pid" 2> /dev/null
	if [ "$(cat "$log/also-build.rc" 2> /dev/null)" = 0 ]; then
		also_dir=${KLP_GUEST_TESTS:-$also_tree/selftests/tests}
		scripts=()
		for g in $also_groups; do
			t=$also_dir/$g.sh
			wanted "guest/$g" || continue
			if [ ! -e "$t" ]; then
				echo "not ok - no group $g for $also"
				failed=$((failed + 1)); failures+=("$also: no group $g")
				continue
			fi
			scripts+=("$t")
		done
		mapfile -t scripts < <(guest_order "${scripts[@]}")
		for t in "${scripts[@]}"; do
			groups=$((groups + 1))
			guest "$t" "guest@$also/$(basename "$t" .sh)" "$also" \
				"${KLP_GUEST_BOOT:-$also_tree/selftests/guest/boot.sh}"
		done
	else
		tail -n 30 "$log/also-build"
		echo "not ok - build for $also"
		failed=$((failed + 1)); failures+=("$also: the build failed")
	fi
fi
guest_drain
host_reap

if [ "$groups" = 0 ]; then
	echo "not ok - no group matches '${patterns[*]}' (see selftests/host/ and selftests/tests/)"
	failed=$((failed + 1)); failures+=("no group matches '${patterns[*]}'")
fi

echo
if [ ${#failures[@]} -gt 0 ]; then
	echo "# failed:"
	printf '#   %s\n' "${failures[@]}"
fi
if [ "$skipped" -gt 0 ]; then
	echo "$passed passed, $failed failed, $skipped skipped"
else
	echo "$passed passed, $failed failed"
fi
[ "$failed" = 0 ]
