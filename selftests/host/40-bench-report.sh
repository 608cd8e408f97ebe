#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The bench publishes whole runs only: `bench/run.sh -r` re-renders saved
# guest outputs (selftests/host/bench-outputs/) into a scratch
# results.json with pictures beside it.  A good output replaces JSON and
# pictures; one with a sentinel sample, a missing required figure, an
# N = 1000 figure short of its rounds, an E| record, no done record, or
# whose pictures cannot be drawn fails with a message naming the problem
# and leaves the JSON and the pictures there were byte for byte as they
# were.  A second run in a tree where one is running is refused.
#
# The outputs: full.out holds the records of the published run of 57c4038
# (bench/results.json then: every sample in its round, the info records;
# an output from before scale_rounds, so one sample per N is enough);
# quick.out is a real `bench/run.sh -q` guest output (build/bench/guest.out)
# of the guest.sh that records scale_rounds; transition.out a real
# `bench/run.sh -T` one (the consistency model's figures: per call during
# each core's transition from a switched and an unswitched task, release
# to completion, klp's sweeps).
. "$(dirname "$0")/../lib.sh"
ktap_start "bench: partial runs are not published"

data=$KLP_TOP/selftests/host/bench-outputs
tmp=$(mktemp -d "$KLP_TOP/build/bench-report.XXXXXX") || bail "a scratch directory"
trap 'rm -rf "$tmp"' EXIT
pub=$tmp/pub

jqt() { jq -e "$@" > /dev/null; }

# seed: what was published before, three files of known content
seed() {
	rm -rf "$pub"
	mkdir -p "$pub"
	echo '{"old": 1}' > "$pub/results.json"
	echo '<svg>old scale</svg>' > "$pub/scale.svg"
	echo '<svg>old percall</svg>' > "$pub/percall.svg"
}

# untouched: the seeded files as they were, no temporary left beside them
untouched() {
	[ "$(cat "$pub/results.json")" = '{"old": 1}' ] &&
		[ "$(cat "$pub/scale.svg")" = '<svg>old scale</svg>' ] &&
		[ "$(cat "$pub/percall.svg")" = '<svg>old percall</svg>' ] &&
		[ "$(find "$pub" -mindepth 1 | wc -l)" = 3 ]
}

# replay OUTPUT: bench/run.sh -r on it into $pub; its messages in $tmp/msg
replay() {
	BENCH_OUT=$tmp/out "$KLP_TOP/bench/run.sh" -r "$1" -o "$pub/results.json" \
		> "$tmp/table" 2> "$tmp/msg"
}

for t in jq gnuplot; do
	command -v $t > /dev/null || bail "$t missing (scripts/deps.sh installs it)"
done
for f in full quick transition; do
	[ -s "$data/$f.out" ] || bail "no saved guest output $data/$f.out"
done

# --- good outputs --------------------------------------------------------

seed
replay "$data/full.out"
rc=$?
assert_eq "a full run's output: bench/run.sh -r succeeds" 0 "$rc"
[ "$rc" = 0 ] || diag "$(tail -n 5 "$tmp/msg")"
check "its JSON replaced the old one, with every figure" \
	jqt '(.figures | length) > 100 and (.errors | length) == 0' "$pub/results.json"
check "both pictures redrawn beside it" \
	bash -c 'grep -q "<svg" "$1/scale.svg" && grep -q "<svg" "$1/percall.svg" &&
		! grep -q old "$1/scale.svg" "$1/percall.svg"' _ "$pub"
check "no temporary left beside them" \
	bash -c '[ "$(find "$1" -mindepth 1 | wc -l)" = 3 ]' _ "$pub"

seed
replay "$data/quick.out"
rc=$?
assert_eq "a quick run's output succeeds" 0 "$rc"
[ "$rc" = 0 ] || diag "$(tail -n 5 "$tmp/msg")"
check "its JSON replaced the old one" jqt '.info.mode == "quick"' "$pub/results.json"
check "the pictures are a full run's: not drawn from a quick one" \
	bash -c '[ "$(cat "$1/scale.svg")" = "<svg>old scale</svg>" ]' _ "$pub"

seed
replay "$data/transition.out"
rc=$?
assert_eq "a transition run's output succeeds" 0 "$rc"
[ "$rc" = 0 ] || diag "$(tail -n 5 "$tmp/msg")"
check "its JSON has the transition figures and the klp/builtin ratios" \
	jqt '.info.mode == "transition" and
		([.figures[] | select(.section == "transition")] | length) >= 22 and
		([.ratios[] | select(.section == "transition")] | length) >= 6' "$pub/results.json"
check "its table has the transition section" grep -q '^### During a transition' "$tmp/table"

# --- bad outputs -----------------------------------------------------------

# bad NAME OUTPUT PATTERN: OUTPUT fails, says PATTERN (a fixed string), and
# leaves what was published alone
bad() {
	seed
	replay "$2"
	rc=$?
	check "$1: fails" test "$rc" != 0
	check "$1: says so: '$3'" grep -qF -- "$3" "$tmp/msg"
	grep -qF -- "$3" "$tmp/msg" || diag "$(head -n 5 "$tmp/msg")"
	check "$1: results.json and the pictures untouched" untouched
}

# A sentinel (-1: not measured) in one round of the builtin's N = 1000
# disable; the other rounds of everything are there.
sed '0,/^B|scale|disable_ms|builtin_1000|/s/^\(B|scale|disable_ms|builtin_1000|[0-9]*|\)[^|]*|/\1-1|/' \
	"$data/full.out" > "$tmp/sentinel.out"
bad "a sentinel sample" "$tmp/sentinel.out" "not measured: scale/disable_ms/builtin_1000 round 1"

# The same in the quick run, in one round of seven of the switch figures:
# the figure is there, with a round fewer.
awk -F'|' '!d && $1 == "B" && $3 == "stack_live_other_ms" && $4 == "builtin" { $6 = -1; d = 1 } 1' OFS='|' \
	"$data/quick.out" > "$tmp/sentinel-quick.out"
bad "a quick run's sentinel sample" "$tmp/sentinel-quick.out" "not measured: switch/stack_live_other_ms/builtin"

# A required figure missing: klptop's counters never attached (its
# redirect configuration left out, as a run without klptop did before).
grep -v '^B|redirect|[a-z_]*|ours_klptop|' "$data/full.out" > "$tmp/missing.out"
bad "a missing required figure" "$tmp/missing.out" "missing figure: redirect/kernel_ns/ours_klptop"

# The tools' boot never ran: no klptop or exporter figures in a full run.
grep -vE '^(B\|(klptop|exporter)\||I\|tools_)' "$data/full.out" > "$tmp/notools.out"
bad "a full run without its tools' boot" "$tmp/notools.out" "missing figure: klptop/cpu_pct/busy_screen"

# N = 1000 short of the rounds the guest says it measured.
sed 's/^I|scale_rounds|.*/I|scale_rounds|100:3 10:1 1:2/' "$data/quick.out" > "$tmp/rounds.out"
bad "a figure short of its rounds" "$tmp/rounds.out" "scale/enable_ms/ours_100 has 1 of its 3 samples"

# An error the guest reported, every figure there all the same.
sed '/^I|done|/i E|klp-exporter died during the idle scrapes: x' "$data/full.out" > "$tmp/error.out"
bad "an E| record" "$tmp/error.out" "the guest reported: klp-exporter died during the idle scrapes"

# The transition section: one figure missing (the builtin's release to
# completion), klp's sweeps not measured, the whole section gone.
grep -v '^B|transition|release_complete_ms|enabling_builtin|' "$data/transition.out" > "$tmp/tr-missing.out"
bad "a transition figure missing" "$tmp/tr-missing.out" "missing figure: transition/release_complete_ms/enabling_builtin"
awk -F'|' '!d && $1 == "B" && $3 == "sweeps_at_complete" { $6 = -1; d = 1 } 1' OFS='|' \
	"$data/transition.out" > "$tmp/tr-sentinel.out"
bad "klp's sweeps not measured" "$tmp/tr-sentinel.out" "not measured: transition/sweeps_at_complete/enable_ours round 1"
grep -v '^B|transition|' "$data/transition.out" > "$tmp/tr-none.out"
bad "a transition run without its section" "$tmp/tr-none.out" "missing figure: transition/kernel_ns/enabling_ours"
grep -v '^B|transition|unswitched_ns|disabling_ours|' "$data/transition.out" > "$tmp/tr-unswitched.out"
bad "no unswitched figure" "$tmp/tr-unswitched.out" "missing figure: transition/unswitched_ns/disabling_ours"
# A quick run of a guest.sh with the transition section (it records
# transition_rounds) that lost the section: the quick output with the
# record added.
sed 's/^I|switch_rounds|.*/&\nI|transition_rounds|2/' "$data/quick.out" > "$tmp/tr-quick.out"
bad "a quick run without the transition section it has" "$tmp/tr-quick.out" "missing figure: transition/kernel_ns/enabling_ours"
# klp's scale figures until the write returned, beside those until complete
grep -v '^B|scale|enable_returned_ms|ours_1000|' "$data/transition.out" > "$tmp/tr-returned.out"
bad "klp's enable returned missing" "$tmp/tr-returned.out" "missing figure: scale/enable_returned_ms/ours_1000"

# The guest stopped before its end.
grep -v '^I|done|' "$data/quick.out" > "$tmp/unfinished.out"
bad "no done record" "$tmp/unfinished.out" "the guest run did not finish"

# Everything measured, but the pictures cannot be drawn: the JSON must not
# move in without them.
mkdir -p "$tmp/stub"
printf '#!/bin/sh\nexit 1\n' > "$tmp/stub/gnuplot"
chmod +x "$tmp/stub/gnuplot"
seed
PATH=$tmp/stub:$PATH replay "$data/full.out"
rc=$?
check "pictures that cannot be drawn: fails" test "$rc" != 0
check "pictures that cannot be drawn: says so" grep -q 'the pictures could not be drawn' "$tmp/msg"
check "pictures that cannot be drawn: results.json and the pictures untouched" untouched

# Two runs in one tree: the second is refused before it builds or boots
# anything (it would rebuild the first's modules under its guest and mix
# its records into the same guest.out).  No kernel by that name: if the
# refusal were missing, the module build fails before any boot.
mkdir -p "$tmp/out"
flock "$tmp/out/.run.lock" sleep 60 &
holder=$!
sleep 0.5
BENCH_OUT=$tmp/out KVER=no-such-kernel timeout 60 "$KLP_TOP/bench/run.sh" -q > /dev/null 2> "$tmp/msg"
rc=$?
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null
assert_eq "a second run in the same tree: refused (exit 2)" 2 "$rc"
check "it says another run holds the tree" grep -q 'another bench/run.sh is running in this tree' "$tmp/msg"
grep -q 'another bench/run.sh' "$tmp/msg" || diag "$(head -n 3 "$tmp/msg")"

ktap_finish
