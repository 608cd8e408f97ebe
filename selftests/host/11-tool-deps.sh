#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Each tool is rebuilt from what it is made of, and only that: in a
# scratch copy of the tree, after `make userspace`, a change to one
# tool's helper or BPF program leaves the other tool up to date, and a
# change to a header rebuilds exactly the tools that include it.
. "$(dirname "$0")/../lib.sh"
ktap_start "make: per-tool dependencies"

scratch_tree tooldeps
tmp=$SCRATCH

m() { make -s -C "$tmp" "$@" > "$tmp/make.log" 2>&1; }
check "the tools build in the scratch tree" m userspace || diag "$(tail -n 20 "$tmp/make.log")"

# stale FILE: which tools `make -q` finds out of date after FILE changed
stale() {
	local t out=
	sleep 1	# a newer mtime than the last build, on any filesystem
	touch "$tmp/$1"
	for t in klptop klp-trace klp-exporter; do
		make -q -C "$tmp" "build/bin/$t" > /dev/null 2>&1 || out+="$t "
	done
	echo "${out% }"
	m userspace
}
check "all up to date after the build" \
	eval 'make -q -C "$tmp" build/bin/klptop && make -q -C "$tmp" build/bin/klp-trace &&
	      make -q -C "$tmp" build/bin/klp-exporter'
assert_eq "userspace/lib/seqorder_lib.c: klp-trace only" "klp-trace" "$(stale userspace/lib/seqorder_lib.c)"
# the state file is klp's source's: klp-trace reads the core's events only
assert_eq "userspace/sources/klp/snapshot_lib.c: klptop and klp-exporter" "klptop klp-exporter" \
	"$(stale userspace/sources/klp/snapshot_lib.c)"
assert_eq "bpf/klptop.bpf.c: klptop and klp-exporter (its programs)" "klptop klp-exporter" \
	"$(stale bpf/klptop.bpf.c)"
assert_eq "userspace/lib/json.h: klptop and klp-trace" "klptop klp-trace" "$(stale userspace/lib/json.h)"
assert_eq "userspace/sources/klp/snapshot.h: klptop and klp-exporter" "klptop klp-exporter" \
	"$(stale userspace/sources/klp/snapshot.h)"
# klp-trace reads klp's records by field name (libtraceevent), but
# numbers the builtin livepatch's actions by enum klp_transition_action
assert_eq "include/klp/uapi.h: all three tools" "klptop klp-trace klp-exporter" \
	"$(stale include/klp/uapi.h)"
assert_eq "userspace/tools/klp-trace/klp-trace.c: klp-trace only" "klp-trace" "$(stale userspace/tools/klp-trace/klp-trace.c)"
assert_eq "userspace/model/model.c (the model of both cores): klptop and klp-exporter" \
	"klptop klp-exporter" "$(stale userspace/model/model.c)"
# klp-trace reads the builtin's blocked tasks with livepatch_transitions.c,
# which stands on the model's transitions
assert_eq "userspace/model/transition_model.c (a shared room): all three tools" \
	"klptop klp-trace klp-exporter" "$(stale userspace/model/transition_model.c)"
assert_eq "userspace/tools/klp-trace/klp-trace_calls.c: klp-trace only" "klp-trace" \
	"$(stale userspace/tools/klp-trace/klp-trace_calls.c)"
assert_eq "userspace/lib/kcore_lib.c: all three tools (the walk, klptop's names)" \
	"klptop klp-trace klp-exporter" "$(stale userspace/lib/kcore_lib.c)"
assert_eq "userspace/tools/klptop/klptop_screen.c (klptop's own room): klptop only" "klptop" \
	"$(stale userspace/tools/klptop/klptop_screen.c)"
assert_eq "userspace/tools/klp-exporter/klp-exporter_http.c: klp-exporter only" "klp-exporter" \
	"$(stale userspace/tools/klp-exporter/klp-exporter_http.c)"
assert_eq "userspace/tools/klp-trace/klp-trace.h: klp-trace only" "klp-trace" "$(stale userspace/tools/klp-trace/klp-trace.h)"
ktap_finish
