# SPDX-License-Identifier: GPL-2.0
# selftests/lib.sh - kselftest/TAP helpers and klp guest helpers, sourced
# by every test script.  Results print as "ok N - name" / "not ok N - name";
# ktap_finish prints the plan and exits non-zero if anything failed.

KLP_TOP=${KLP_TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
KLP_SYSFS=/sys/kernel/klp
KLP_TARGET=/sys/kernel/debug/klp_target
KLP_MODS=$KLP_TOP/selftests/modules
KLP_BIN=$KLP_TOP/build/bin
TRACEFS=/sys/kernel/tracing

# trace_no_comm: trace events without recording comms.  Enabling the
# first event starts comm recording, which hooks the scheduler's
# tracepoints: their jump labels in ttwu_do_activate() are rewritten while
# the other CPUs run them, which multi-threaded TCG mis-emulates (an
# "Oops: int3" on 6.12, doc/testing.md).  Every group that enables events
# on multi-threaded TCG calls it first; no test reads a comm from a trace.
trace_no_comm() {
	echo 0 > "$TRACEFS/options/record-cmd"
}

_ktap_n=0
_ktap_pass=0
_ktap_fail=0
_ktap_skip=0

ktap_start() {
	echo "TAP version 13"
	echo "# ${1:-$(basename "$0")}"
}

ok() {
	_ktap_n=$((_ktap_n + 1)); _ktap_pass=$((_ktap_pass + 1))
	echo "ok $_ktap_n - $*"
}

not_ok() {
	_ktap_n=$((_ktap_n + 1)); _ktap_fail=$((_ktap_fail + 1))
	echo "not ok $_ktap_n - $*"
}

skip() {
	_ktap_n=$((_ktap_n + 1)); _ktap_skip=$((_ktap_skip + 1))
	echo "ok $_ktap_n - $1 # SKIP ${2:-}"
}

diag() {
	echo "# $*"
}

# check NAME CMD... : ok if CMD succeeds
check() {
	local name=$1
	shift
	if "$@"; then ok "$name"; else not_ok "$name"; fi
}

# assert_eq NAME EXPECTED ACTUAL
assert_eq() {
	if [ "$2" = "$3" ]; then
		ok "$1"
	else
		not_ok "$1"
		diag "  expected: '$2'"
		diag "  actual:   '$3'"
	fi
}

# assert_same NAME EXPECTED ACTUAL: assert_eq for an EXPECTED read from
# the system too (a value before a step, a symbol's address): an empty
# one is a read that found nothing, and two of those are no agreement
assert_same() {
	if [ -n "$2" ]; then
		assert_eq "$@"
	else
		not_ok "$1"
		diag "  nothing read to compare with (actual: '$3')"
	fi
}

# count_diff WHAT NOW THEN: NOW - THEN for two counts of WHAT read from
# the system, or, if either is not a whole number, what they were: bash's
# arithmetic takes an empty word for 0, so two reads that failed would
# make "no change"
count_diff() {
	if [[ $2 =~ ^-?[0-9]+$ && $3 =~ ^-?[0-9]+$ ]]; then
		echo $(( $2 - $3 ))
	else
		echo "no count of $1 ('$2' after '$3')"
	fi
}

ktap_finish() {
	echo "1..$_ktap_n"
	echo "# Totals: pass:$_ktap_pass fail:$_ktap_fail skip:$_ktap_skip"
	[ "$_ktap_fail" = 0 ]
	exit $?
}

# bail MSG: a failure the rest of the group cannot go on after
bail() {
	not_ok "$1"
	ktap_finish
}

# wait_until SECONDS CMD [ARGS...]: run CMD every 0.1 s until it succeeds
# (0) or SECONDS, times KLP_TIMEOUT_SCALE (a debug kernel is slower), have
# passed (1).
wait_until() {
	local end=$(( ${EPOCHREALTIME/./} + $1 * ${KLP_TIMEOUT_SCALE:-1} * 1000000 ))
	shift
	until "$@"; do
		[ "${EPOCHREALTIME/./}" -lt "$end" ] || return 1
		sleep 0.1
	done
}

# exporter_prereqs [promtool]: what the host tests of klp-exporter start
# with: $x the binary (built), promtool if asked, no klp core on this host
# (the guest tests load it); $tmp a scratch directory; the servers a test
# starts, in $pid or $pids, are killed and $tmp removed on exit.
exporter_prereqs() {
	x=$KLP_BIN/klp-exporter
	[ -x "$x" ] || bail "build/bin/klp-exporter built (make userspace)"
	if [ "${1:-}" = promtool ]; then
		command -v promtool > /dev/null ||
			bail "promtool present (scripts/deps.sh installs prometheus)"
	fi
	[ -e /sys/kernel/klp ] && bail "no klp core on this host (the guest tests load it)"
	tmp=$(mktemp -d)
	pid=
	pids=()
	trap 'kill ${pid:+"$pid"} "${pids[@]}" 2>/dev/null; rm -rf "$tmp"' EXIT
}

# The host tests' drivers of userspace code run under AddressSanitizer
# and UndefinedBehaviorSanitizer: an access out of bounds, a leak or
# undefined behaviour (qsort(NULL, 0, ...) too) ends the driver at once
# with a report on stderr and status 1, so its output is cut short and
# the test that reads it fails.  KLP_SANITIZE= builds them plain.
KLP_SANITIZE=${KLP_SANITIZE-"-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"}
export ASAN_OPTIONS=${ASAN_OPTIONS:-exitcode=1:abort_on_error=0:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# unit_build DIR NAME [ROOM...]: compile DIR/t.c against userspace/NAME_lib.c
# and the rooms' files ROOM.c (each once) into DIR/t (a host test's driver
# of one helper), with $KLP_SANITIZE; on failure the group ends
unit_build() {
	local dir=$1 name=$2 room srcs=("$(unit_src "$2_lib")")
	shift 2
	for room; do
		[[ " ${srcs[*]} " == *" $(unit_src "$room") "* ]] ||
			srcs+=("$(unit_src "$room")")
	done
	# shellcheck disable=SC2086 # KLP_SANITIZE is a list of flags
	gcc -Wall -Werror -g -D_GNU_SOURCE $KLP_SANITIZE \
		"${UNIT_INCLUDES[@]}" -I"$KLP_TOP/include" \
		-I"$KLP_TOP/selftests/host" -o "$dir/t" \
		"$dir/t.c" "${srcs[@]}" 2> "$dir/err" && return 0
	diag "$(cat "$dir/err")"
	bail "the $name test program builds"
}

# unit_src ROOM: the path of ROOM.c in whichever of userspace/'s rooms
# (lib, model, a folder of sources or of tools) holds it
unit_src() {
	local f
	for f in "$KLP_TOP"/userspace/*/"$1.c" "$KLP_TOP"/userspace/*/*/"$1.c"; do
		[ -f "$f" ] && echo "$f" && return 0
	done
	bail "userspace/*/$1.c exists"
}
# What the drivers link, a part of userspace/ each: the model; klp's
# source without its BPF side (its state file, events and transitions);
# klptop's screen and JSON; klp-exporter's metrics text
UNIT_MODEL="alloc_lib hindex_lib model transition_model event_log"
UNIT_KLP="snapshot_lib source_klp_state source_klp_events source_klp_transitions"
UNIT_KLPTOP="klptop_screen klptop_json klptop_transitions json_lib strbuf_lib"
UNIT_EXPORTER="klp-exporter_metrics klp-exporter_transitions klp-exporter_counters
	klp-exporter_text strbuf_lib"
UNIT_INCLUDES=()
for d in "$KLP_TOP"/userspace/*/ "$KLP_TOP"/userspace/*/*/; do
	[ -d "$d" ] && UNIT_INCLUDES+=("-I$d")
done

# scratch_tree NAME: a copy of the working tree as it is (tracked files
# and new ones not ignored) in build/NAME.XXXXXX, its path in SCRATCH,
# removed on exit: for host tests that build or change a tree of their own
scratch_tree() {
	SCRATCH=$(mktemp -d "$KLP_TOP/build/$1.XXXXXX") || bail "a scratch directory"
	trap 'rm -rf "$SCRATCH"' EXIT
	"$KLP_TOP/scripts/copy-tree.sh" "$SCRATCH" || bail "scratch copy of the tree"
}

# klp_ko_check NAME KVER KLP-KO KLP_EVENTS-KO [DIR]: ok if klp.ko and
# klp_events.ko (compressed or not) are built for KVER (their vermagic),
# klp.ko needs klp_events (the tracepoints), and both lie in DIR if given
klp_ko_check() {
	local k=$2 ko=$3 ev=$4 dir=${5:-} mi
	mi() { modinfo -F "$1" "$2" 2> /dev/null | cut -d' ' -f1; }
	assert_eq "$1" "$k $k klp_events${dir:+ $dir $dir}" \
		"$(mi vermagic "$ko") $(mi vermagic "$ev") $(mi depends "$ko")${dir:+ ${ko%/*}/ ${ev%/*}/}"
}

# --- guest helpers -------------------------------------------------------

# klp_events_load: klp_events.ko, the module of the klp:* tracepoints
# that klp.ko (either build) needs; loaded once, it stays
klp_events_load() {
	[ -d /sys/module/klp_events ] || insmod "$KLP_TOP/core/klp_events.ko" 2>/dev/null
}

# Load a module from the tree, quietly; returns insmod's status.  A patch
# module's enable may leave its transition running: wait until it is over.
klp_insmod() {
	local m=$1
	shift
	local f
	[ "$m" = klp ] && { klp_events_load || return; }
	for f in "$KLP_TOP/core/$m.ko" "$KLP_TOP/core/samples/$m.ko" "$KLP_MODS/$m.ko"; do
		[ -f "$f" ] || continue
		insmod "$f" "$@" 2>/dev/null || return
		[ -d "$KLP_SYSFS/${m//-/_}" ] && wait_transition "${m//-/_}"
		return 0
	done
	echo "klp_insmod: no module $m" >&2
	return 1
}

# klp_modpath MOD: the path of a module of the tree (for insmod's own errors)
klp_modpath() {
	local f
	for f in "$KLP_TOP/core/$1.ko" "$KLP_TOP/core/samples/$1.ko" "$KLP_MODS/$1.ko"; do
		[ -f "$f" ] && { echo "$f"; return 0; }
	done
	echo "klp_modpath: no module $1" >&2
	return 1
}

# dmesg_mark at the start of a test step, then dmesg_since: the kernel log
# lines that came after the mark (all of it before any mark)
dmesg_mark() {
	KLP_DMESG_MARK=$(dmesg | wc -l)
}

dmesg_since() {
	dmesg | tail -n +$((${KLP_DMESG_MARK:-0} + 1))
}

# dmesg_has PATTERN: a line since the last dmesg_mark matches (grep -e)
dmesg_has() {
	dmesg_since | grep -q -- "$1"
}

# kmemleak_start: what kmemleak found before (the boot's, earlier steps')
# is not reported again; kmemleak_check reports what leaked after it.
KMEMLEAK=/sys/kernel/debug/kmemleak
kmemleak_start() {
	[ -e "$KMEMLEAK" ] || return 0
	echo scan > "$KMEMLEAK"
	echo clear > "$KMEMLEAK"
}

# kmemleak_records PATTERN: the records of a kmemleak report on stdin that
# kmemleak_check fails on
kmemleak_records() {
	awk -v pat="$1" '
		function flush() { if (rec != "" && hit) printf "%s", rec; rec = ""; hit = 0 }
		/^unreferenced object/ { flush() }
		{ rec = rec $0 "\n" }
		/^    \[<[0-9a-f]+>\] / && ($0 ~ pat || $0 ~ /\] 0x[0-9a-f]+$/) { hit = 1 }
		END { flush() }'
}

# kmemleak_check NAME PATTERN: one check, that kmemleak reports no object
# whose allocation backtrace names a function or module matching PATTERN
# (grep -E), nor one allocated from a module since unloaded (a frame
# kallsyms no longer resolves: "] 0xffffffffc0..."); each such record is
# printed.  A skip on a kernel without kmemleak (the stock ones).
kmemleak_check() {
	local name=$1 pattern=$2 leaks
	if [ ! -e "$KMEMLEAK" ]; then
		skip "$name" "no kmemleak in this kernel (CONFIG_DEBUG_KMEMLEAK off)"
		return
	fi
	# an object is reported once it is 5 s old and a scan found no
	# reference to it; the second scan drops what a register or a stack
	# still held during the first
	sleep 6
	echo scan > "$KMEMLEAK"
	echo scan > "$KMEMLEAK"
	leaks=$(kmemleak_records "$pattern" < "$KMEMLEAK")
	[ -z "$leaks" ] || printf '%s\n' "$leaks" | head -40 | sed 's/^/# /'
	assert_eq "$name" 0 "$(printf '%s' "$leaks" | grep -c '^unreferenced object')"
}

# target FN: call klp_target_FN once from userspace, print its value
target() {
	cat "$KLP_TARGET/$1"
}

# target_call FN N: N calls from the kernel loop; prints the last value
target_call() {
	echo "$1 $2" > "$KLP_TARGET/call" && cut -d' ' -f1 "$KLP_TARGET/call"
}

# entered FN: how often the original klp_target_FN body ran
entered() {
	awk -v f="$1" '$1 == f { print $2 }' "$KLP_TARGET/entered"
}

patch_enabled() {
	cat "$KLP_SYSFS/$1/enabled"
}

# write_err FILE VALUE: the error text a write gives ("ok" if none)
write_err() {
	local out
	out=$( { echo "$2" > "$1"; } 2>&1 ) && { echo ok; return; }
	echo "${out##*: }"
}

# wait_transition PATCH: its transition is over (or the patch is gone)
wait_transition() {
	local tr=0
	# nearly always over when the write returns: read with a builtin
	# (no fork) first; a patch gone has none
	read -r tr 2>/dev/null < "$KLP_SYSFS/$1/transition" || return 0
	[ "$tr" = 0 ] ||
		wait_until 60 eval "[ \"\$(cat $KLP_SYSFS/$1/transition 2>/dev/null || echo 0)\" = 0 ]"
}

# set_enabled PATCH 0|1: write, and succeed only if the write did; then
# wait until every task switched (the transition it started is over)
set_enabled() {
	echo "$2" > "$KLP_SYSFS/$1/enabled" 2>/dev/null && wait_transition "$1"
}

func_attr() {	# func_attr PATCH OBJECT FUNC ATTR
	cat "$KLP_SYSFS/$1/$2/$3/$4"
}

# The core's whole state in one read (format in core/debugfs.c).
KLP_STATE=/sys/kernel/debug/klp/state

# state_torn < STATE: how many functions' stacks in one read of the state
# file do not add up: the funcs on it must sit at 1..depth once each, all
# with that depth, and its "stack" line list their ids in that order.
state_torn() {
	awk '$1 == "func" && $6 > 0 {
		k = $3 " " $4; n[k]++; id[k, $6] = $5; at[k, $6]++
		if (!(k in d)) d[k] = $7; else if (d[k] != $7) d[k] = -1
	}
	$1 == "stack" {
		k = $2 " " $3; sd[k] = $4
		for (i = 5; i <= NF; i++) { split($i, a, ":"); sid[k, i - 4] = a[2] }
	}
	END {
		for (k in n) {
			if (d[k] != n[k] || sd[k] != n[k]) { bad++; continue }
			for (i = 1; i <= n[k]; i++)
				if (at[k, i] != 1 || sid[k, i] != id[k, i]) { bad++; break }
		}
		for (k in sd) if (!(k in n)) bad++
		print bad + 0
	}'
}

# target_load_slow: start loading klp_test_target with an init that sleeps
# (like a driver probing at boot) and return once it is in that init
# (COMING); TARGET_PID is the insmod to wait for.
target_load_slow() {
	klp_insmod klp_test_target init_delay_ms=$((3000 * ${KLP_TIMEOUT_SCALE:-1})) &
	TARGET_PID=$!
	wait_until 5 grep -q '^klp_test_target .* Loading ' /proc/modules
}

tainted_livepatch() {
	[ $(( $(cat /proc/sys/kernel/tainted) & 32768 )) != 0 ]
}

# --- klptop's BPF counters ----------------------------------------------------

# klptop_attach JSON: klptop --json 1 in the background, writing to JSON
# (stderr to JSON.err); once its first interval is out, KT_PID is its pid
# and KT_MAP the id of its hits map.  Fails if either does not come.
klptop_attach() {
	local id json=$1
	"$KLP_BIN/klptop" --json 1 > "$json" 2> "$json.err" &
	KT_PID=$!
	KT_MAP=
	# (wait_until runs the command in its own frame: no $1 in there)
	wait_until 40 eval '[ "$(wc -l < "$json")" -ge 1 ] || ! kill -0 $KT_PID 2>/dev/null'
	kill -0 "$KT_PID" 2>/dev/null || return 1
	for id in $(bpftool prog show -j | jq '.[] | select(.name == "klptop_redirect") | .map_ids[]'); do
		[ "$(bpftool map show id "$id" -j | jq -r .name)" = hits ] && KT_MAP=$id
	done
	[ -n "$KT_MAP" ]
}

# bpf_counts: "old_addr id hits" for every func the core has registered:
# the calls klptop's map counted for its id, summed over the CPUs' slices
# (include/klp/uapi.h), one bpftool run for all; old_addr from the core's
# state file, as map_addr prints it
bpf_counts() {
	local slice ncpu cpu id addr s i=0 sum ids=() addrs=() vals
	slice=$(awk '$2 == "KLP_MAX_HIT_KEYS" { print $3 }' "$KLP_TOP/include/klp/uapi.h")
	ncpu=$(( $(bpftool map show id "$KT_MAP" -j | jq .max_entries) / slice ))
	while read -r id addr; do
		ids+=("$id")
		addrs+=("$addr")
	done < <(awk '$1 == "func" { print $5, $8 }' /sys/kernel/debug/klp/state | sort -un)
	[ ${#ids[@]} -gt 0 ] || return 0
	mapfile -t vals < <(for id in "${ids[@]}"; do
		for ((cpu = 0; cpu < ncpu; cpu++)); do
			s=$((cpu * slice + id))
			printf 'map lookup id %s key hex %02x %02x %02x %02x\n' "$KT_MAP" \
				$((s & 255)) $((s >> 8 & 255)) $((s >> 16 & 255)) $((s >> 24))
		done
	done | bpftool -j batch file - |
		jq -r '.[].output.value | reverse | map(ltrimstr("0x")) | join("")')
	for s in "${!ids[@]}"; do
		sum=0
		for ((cpu = 0; cpu < ncpu; cpu++)); do
			sum=$((sum + 16#${vals[i]}))
			i=$((i + 1))
		done
		echo "$(map_addr "${addrs[s]}") ${ids[s]} $sum"
	done | sort
}

# map_addr 0xADDR: the address as bpf_counts prints it (16 hex digits)
map_addr() {
	local a=${1#0x}
	printf '%s%s\n' "$(printf '%*s' $((16 - ${#a})) '' | tr ' ' 0)" "$a"
}

# --- perf stat on klp:klp_redirect ------------------------------------------

# perf_event_fds PID...: how many perf_event fds those processes hold
perf_event_fds() {
	local p f n=0
	for p in "$@"; do
		for f in /proc/"$p"/fd/*; do
			[ "$(readlink "$f" 2> /dev/null)" = "anon_inode:[perf_event]" ] && n=$((n + 1))
		done
	done
	echo $n
}

# perf_count_start FILE: perf stat -a counting klp:klp_redirect into FILE;
# returns once it holds a perf event on every CPU (PERF_PID is its pid).
# No workload: perf stat -a then counts until SIGINT, where a workload
# would ignore SIGINT as a background job and perf would wait for it.
perf_count_start() {
	local ncpu
	ncpu=$(nproc)
	perf stat -a -x, -e klp:klp_redirect -o "$1" &
	PERF_PID=$!
	wait_until 60 eval '[ "$(perf_event_fds $PERF_PID)" -ge "$ncpu" ]'
}

# perf_count_stop FILE: stop that perf stat; PERF_COUNT is its count
# (not printed: waiting for perf must happen in this shell, its parent)
perf_count_stop() {
	kill -INT "$PERF_PID"
	wait "$PERF_PID"
	PERF_COUNT=$(awk -F, '/klp:klp_redirect/ { print $1 }' "$1")
}
