#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A bounded libFuzzer run of selftests/host/fuzz_state.c: the state
# parser, the model's resync and event applier, klptop --json and
# klp-exporter's metrics text in both formats, under ASan and UBSan, on
# inputs mutated from the seed corpus in selftests/host/fuzz-state/ (state
# files as the core writes them, and the inputs that once overflowed the
# model).  A crash, a leak, undefined behaviour or a broken invariant
# (see fuzz_state.c) is a not ok, with the input that caused it.  A fixed
# seed and number of runs (KLP_FUZZ_RUNS) make it the same run each time.
. "$(dirname "$0")/../lib.sh"
ktap_start "fuzz: state parser, model, JSON and metrics"

runs=${KLP_FUZZ_RUNS:-100000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck disable=SC2206 # the lists are words
rooms=($UNIT_MODEL $UNIT_KLP $UNIT_KLPTOP $UNIT_EXPORTER)
srcs=()
for r in "${rooms[@]}"; do
	[[ " ${srcs[*]} " == *" $(unit_src "$r") "* ]] || srcs+=("$(unit_src "$r")")
done
# clang's libFuzzer runtime is libclang-rt-14-dev (scripts/deps.sh)
if ! clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer -Wall -Werror -D_GNU_SOURCE \
	"${UNIT_INCLUDES[@]}" -I"$KLP_TOP/include" -I"$KLP_TOP/selftests/host" \
	-o "$tmp/fuzz" \
	"$KLP_TOP/selftests/host/fuzz_state.c" "${srcs[@]}" 2> "$tmp/err"; then
	diag "$(cat "$tmp/err")"
	bail "the fuzz target builds with clang -fsanitize=fuzzer,address,undefined"
fi
ok "the fuzz target builds with clang -fsanitize=fuzzer,address,undefined"

# the seeds alone first: each must go through cleanly
seeds=$KLP_TOP/selftests/host/fuzz-state
if "$tmp/fuzz" -runs=0 -artifact_prefix="$tmp/" "$seeds" > "$tmp/seeds.log" 2>&1; then
	ok "every seed input goes through ($(ls "$seeds" | wc -l) inputs)"
else
	not_ok "every seed input goes through"
	grep -v '^INFO\|^#' "$tmp/seeds.log" | head -n 40 | sed 's/^/#   /'
fi

# new inputs go to the scratch corpus, never into the tree
mkdir "$tmp/corpus"
start=$SECONDS
if "$tmp/fuzz" -seed=1 -runs="$runs" -max_len=8192 -timeout=10 \
	-artifact_prefix="$tmp/" "$tmp/corpus" "$seeds" > "$tmp/fuzz.log" 2>&1; then
	ok "$runs mutated inputs: no crash, leak, undefined behaviour or broken invariant"
else
	not_ok "$runs mutated inputs: no crash, leak, undefined behaviour or broken invariant"
	grep -v '^#[0-9]\|^INFO' "$tmp/fuzz.log" | head -n 60 | sed 's/^/#   /'
	for a in "$tmp"/crash-* "$tmp"/leak-* "$tmp"/timeout-* "$tmp"/oom-*; do
		[ -e "$a" ] || continue
		diag "the input ($(basename "$a")), as od -c shows it:"
		od -c "$a" | head -n 40 | sed 's/^/#   /'
	done
fi
diag "$(grep -m1 -o 'Done [0-9]* runs in [0-9]* second(s)' "$tmp/fuzz.log"), $((SECONDS - start)) s in all; $(ls "$tmp/corpus" | wc -l) new inputs kept"
ktap_finish
