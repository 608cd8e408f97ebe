#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The bench publishes whole runs only: `bench/run.sh -r` re-renders saved
# guest outputs (selftests/host/bench-outputs/) into a scratch
# results.json with pictures beside it.  A good output replaces JSON and
# pictures; one with a sentinel sample, a missing required figure, an
# N = 1000 figure short of its rounds, an E| record, no done record, or
# whose pictures cannot be drawn fails with a message naming the problem
# and leaves the JSON and the pictures there were byte for byte as they
# were.  A second run in a tree where one is running is refused.  The
# tools' CPU readings: a raw reading clamped at 2^31 - 1 (mawk's printf
# "%d", which froze them), going back or no number is refused, and the
# guest's own reading (bench/guest-cpu.sh, on a made-up /proc) is exact
# past 2^31 ns.
#
# The outputs: full.out holds the records of the published run of 57c4038
# (bench/results.json then: every sample in its round, the info records;
# an output from before scale_rounds, so one sample per N is enough);
# quick.out is a real `bench/run.sh -q` guest output (build/bench/guest.out)
# of the guest.sh that records scale_rounds; transition.out a real
# `bench/run.sh -T` one (the consistency model's figures: per call during
# each core's transition from a switched and an unswitched task, release
# to completion, klp's sweeps); builtin.out a real `bench/run.sh -B` one
# (the builtin livepatch as klptop and klp-exporter see it, beside klp:
# per call with klptop counting against the patch alone, the tools with
# 1000 patched functions of each core), a run that failed: klp-exporter
# could not serve the builtin's 1000 functions, and klptop's CPU time did
# not advance; builtin-good.out the same records made whole (its header
# says how: a synthetic fixture, not a measurement) for the report of a
# complete run, the per-call target missed as measured; builtin-floor.out
# a later real `-B` run with the floor of a kprobe counter (builtin_bpf0);
# percall.out a real `bench/run.sh -c` one (the per-call rows in several
# boots, each sample with what its calls went through).
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
for f in full quick transition builtin builtin-good percall; do
	[ -s "$data/$f.out" ] || bail "no saved guest output $data/$f.out"
done

# --- good outputs --------------------------------------------------------

# good WHAT OUTPUT: bench/run.sh -r on OUTPUT succeeds (else its messages)
good() {
	seed
	replay "$2"
	rc=$?
	assert_eq "$1: bench/run.sh -r succeeds" 0 "$rc"
	[ "$rc" = 0 ] || diag "$(tail -n 5 "$tmp/msg")"
}

good "a full run's output" "$data/full.out"
check "its JSON replaced the old one, with every figure" \
	jqt '(.figures | length) > 100 and (.errors | length) == 0' "$pub/results.json"
check "both pictures redrawn beside it" \
	bash -c 'grep -q "<svg" "$1/scale.svg" && grep -q "<svg" "$1/percall.svg" &&
		! grep -q old "$1/scale.svg" "$1/percall.svg"' _ "$pub"
check "no temporary left beside them" \
	bash -c '[ "$(find "$1" -mindepth 1 | wc -l)" = 3 ]' _ "$pub"

good "a quick run's output" "$data/quick.out"
check "its JSON replaced the old one" jqt '.info.mode == "quick"' "$pub/results.json"
check "the pictures are a full run's: not drawn from a quick one" \
	bash -c '[ "$(cat "$1/scale.svg")" = "<svg>old scale</svg>" ]' _ "$pub"

good "a transition run's output" "$data/transition.out"
check "its JSON has the transition figures and the klp/builtin ratios" \
	jqt '.info.mode == "transition" and
		([.figures[] | select(.section == "transition")] | length) >= 22 and
		([.ratios[] | select(.section == "transition")] | length) >= 6' "$pub/results.json"
check "its table has the transition section" grep -q '^### During a transition' "$tmp/table"

good "a builtin run's output" "$data/builtin-good.out"
check "its JSON has the four per-call configurations over every round and the tools of both cores" \
	jqt '.info.mode == "builtin" and (.info.builtin_rounds | tonumber) as $r | $r > 0 and
		([.figures[] | select(.section == "builtin" and (.metric == "kernel_ns" or .metric == "user_ns") and .n == $r)] | length) == 8 and
		([.figures[] | select(.section == "klptop" and .metric == "cpu_total_pct")] | length) == 4 and
		([.figures[] | select(.section == "exporter" and .metric == "cpu_ms_per_scrape")] | length) == 4' "$pub/results.json"
# The per-call target is R_builtin <= R_klp: its value is the ratio of
# the two ratios' medians the JSON has, per loop, and it is met exactly
# when that is at most 1.
check "its per-call targets are R_builtin / R_klp of the medians, met when at most 1" \
	jqt '[.ratios[] | select(.section == "builtin")] as $r | [.targets[] | select(.target | startswith("per call"))] as $t |
		($t | length) == 2 and ([$t[] | select(.target | test("kernel loop"))] | length) == 1 and
		all($t[]; (if (.target | test("kernel loop")) then "kernel_ns" else "user_ns" end) as $m |
			([$r[] | select(.metric == $m and .ratio == "R_builtin")][0].median /
			 [$r[] | select(.metric == $m and .ratio == "R_klp")][0].median) as $v |
			((.value - $v) | fabs) < 1e-4 * $v and .met == (.value <= 1))' "$pub/results.json"
check "its tools' targets: klptop at most 1% of a CPU, a scrape under 20 ms, both cores, busy and idle" \
	jqt '[.targets[] | select(.target | startswith("klptop") or startswith("klp-exporter"))] as $t |
		($t | length) == 8 and all($t[]; .met == (if .op == "<" then .value < .limit else .value <= .limit end)) and
		([$t[] | select(.target | test("builtin"))] | length) == 4' "$pub/results.json"
check "its table has both sections" \
	bash -c 'grep -q "^### klptop counting the calls of a builtin-patched function" "$1" &&
		grep -q "^### klptop and klp-exporter, 1000 patched functions, klp and builtin" "$1"' _ "$tmp/table"
# every target the JSON says missed is named in the table and by run.sh,
# and no other
jq -r '.targets[] | select(.met == false) | .target' "$pub/results.json" | sort > "$tmp/missed.json"
sed -n 's/^- target missed: \(.*\): [^:]*, not [<=]* [0-9.]*$/\1/p' "$tmp/table" | sort > "$tmp/missed.table"
sed -n 's/^bench: target missed: \(.*\): [^:]*, not [<=]* [0-9.]*$/\1/p' "$tmp/msg" | sort > "$tmp/missed.msg"
check "its missed targets: the same in the JSON, the table and run.sh's messages" \
	bash -c 'cmp -s "$1" "$2" && cmp -s "$1" "$3"' _ "$tmp/missed.json" "$tmp/missed.table" "$tmp/missed.msg"
diag "targets missed in builtin-good.out: $(paste -sd ';' "$tmp/missed.json")"
cp "$pub/results.json" "$tmp/builtin.json"
cp "$tmp/table" "$tmp/builtin.table"

good "a per-call run's output, over boots" "$data/percall.out"
boots=$(sed -n 's/^I|boots|//p' "$data/percall.out")
check "its JSON has klp / builtin over the boots, one median a boot" \
	jqt --argjson b "$boots" '.info.mode == "percall" and
		([.ratios[] | select(.section == "percall" and .metric == "kernel_ns" and .ratio == "klp/builtin over boots" and .n == $b)] | length) == 1 and
		([.ratios[] | select(.section == "percall" and (.ratio | startswith("klp/builtin boot ")))] | length) == $b' "$pub/results.json"
check "each per-call sample has its state: what the site calls, its ops, and jump-cache slots shared" \
	jqt 'all(.figures[] | select(.metric == "kernel_ns" or .metric == "user_ns");
		(.state | length) == (.samples | length) and all(.state[]; .calls != null and .ops != null and .jc != null))' "$pub/results.json"
# Only boots where both cores were in the same state (own trampoline, one
# ops, no kprobe, no transition, no shared slot) in every round count in
# the "same state" ratio: with no slot shared anywhere every boot does;
# klp's rounds of boot 1 with a shared slot take boot 1 out.
same() { jq '[.ratios[] | select(.metric == "kernel_ns" and .ratio == "klp/builtin over boots, both cores collision-free")][0].n // 0' "$pub/results.json"; }
sed 's/^\(S|redirect|[a-z]*|[0-9.]*|jc|\).*/\1none/' "$data/percall.out" > "$tmp/pc-clean.out"
good "a per-call run with no slot shared" "$tmp/pc-clean.out"
assert_eq "every boot in the same-state ratio" "$boots" "$(same)"
sed 's/^\(S|redirect|ours|1\.[0-9]*|jc|\).*/\1tgt=new/' "$tmp/pc-clean.out" > "$tmp/pc-jc.out"
good "a per-call run with a shared slot in boot 1" "$tmp/pc-jc.out"
assert_eq "that boot left out of the same-state ratio" $((boots - 1)) "$(same)"
check "the table names the shared slot" grep -q '^| 1 | .*jc tgt=new' "$tmp/table"

# target_is met|missed LABEL OUTPUT [ROW]: OUTPUT is published (what was
# measured); the target LABEL is met or missed in the JSON, the table and
# bench/run.sh's messages (and the table's row that starts with ROW, an
# ERE, says so in its next cell); every other target as in builtin-good.out
target_is() {
	local want=false yn='\*\*no\*\*'
	[ "$1" = met ] && want=true yn=yes
	good "$2 $1: still published" "$3"
	check "$2 $1: met $want in the JSON" \
		jqt --arg l "$2" --argjson w "$want" '[.targets[] | select(.target | startswith($l))] | length == 1 and all(.met == $w)' "$pub/results.json"
	check "$2 $1: every other target as in builtin-good.out" \
		jqt --arg l "$2" --slurpfile b "$tmp/builtin.json" '[.targets[] | select(.target | startswith($l) | not) | [.target, .met]] ==
			[$b[0].targets[] | select(.target | startswith($l) | not) | [.target, .met]]' "$pub/results.json"
	if [ "$1" = met ]; then
		check "$2 met: not listed as missed" bash -c '! grep -qF -- "target missed: $2" "$1"' _ "$tmp/table" "$2"
		check "$2 met: run.sh does not name it" bash -c '! grep -qF -- "target missed: $2" "$1"' _ "$tmp/msg" "$2"
	else
		check "$2 missed: listed in the table" grep -qF -- "- target missed: $2" "$tmp/table"
		check "$2 missed: bench/run.sh names it" grep -qF -- "bench: target missed: $2" "$tmp/msg"
	fi
	[ -z "${4:-}" ] || check "$2 $1: its row says $yn" grep -qE "^\| $4 \| $yn \|" "$tmp/table"
}
# The per-call target both ways: the builtin's counted kernel loop at a
# third of its figure in every round (cheaper than klp's counting), then
# at three times it.
awk -F'|' '$1 == "B" && $2 == "builtin" && $3 == "kernel_ns" && $4 == "builtin_klptop" { $6 = $6 / 3 } 1' OFS='|' \
	"$data/builtin-good.out" > "$tmp/bi-percall-met.out"
target_is met "per call, kernel loop: R_builtin <= R_klp" "$tmp/bi-percall-met.out" "R_builtin <= R_klp"
awk -F'|' '$1 == "B" && $2 == "builtin" && $3 == "kernel_ns" && $4 == "builtin_klptop" { $6 = $6 * 3 } 1' OFS='|' \
	"$data/builtin-good.out" > "$tmp/bi-percall.out"
target_is missed "per call, kernel loop: R_builtin <= R_klp" "$tmp/bi-percall.out" "R_builtin <= R_klp"
# The floor row: a program that does nothing on klptop's kprobe
# (builtin_bpf0), here at half the counted loop's figure in every round:
# its R_builtin0 / R_klp is half of R_builtin / R_klp, per loop.
awk -F'|' '1; $1 == "B" && $2 == "builtin" && ($3 == "kernel_ns" || $3 == "user_ns") && $4 == "builtin_klptop" { $4 = "builtin_bpf0"; $6 = $6 / 2; print }' OFS='|' \
	"$data/builtin-good.out" > "$tmp/bi-floor.out"
good "a builtin run with the kprobe floor" "$tmp/bi-floor.out"
check "floor: R_builtin0 / R_klp is half of R_builtin / R_klp in each loop" \
	jqt '[.ratios[] | select(.section == "builtin")] as $r | all("kernel_ns", "user_ns"; . as $m |
		([$r[] | select(.metric == $m and .ratio == "R_builtin0/R_klp")][0].median) as $f |
		([$r[] | select(.metric == $m and .ratio == "R_builtin/R_klp")][0].median) as $b |
		$f != null and (($f - $b / 2) | fabs) < 1e-3 * $b)' "$pub/results.json"
check "floor: its rows in the table" \
	bash -c 'grep -q "^| builtin livepatch + a kprobe program that does nothing |" "$1" &&
		grep -q "^| R_builtin0 / R_klp |" "$1"' _ "$tmp/table"
check "floor: no floor rows without its records" \
	bash -c '! grep -q "R_builtin0" "$1"' _ "$tmp/builtin.table"

# klptop over 1% of a CPU on the builtin's 1000 functions, idle
sed 's/^\(B|klptop|cpu_total_pct|builtin_idle_json|1|\)[^|]*|/\11.5|/' "$data/builtin-good.out" > "$tmp/bi-klptop.out"
target_is missed "klptop --json 1, builtin, idle: CPU overall" "$tmp/bi-klptop.out"
# exactly 1%: met; a scrape of exactly 20 ms is not under 20 ms
sed 's/^\(B|klptop|cpu_total_pct|builtin_idle_json|1|\)[^|]*|/\11.00|/' "$data/builtin-good.out" > "$tmp/bi-klptop1.out"
target_is met "klptop --json 1, builtin, idle: CPU overall" "$tmp/bi-klptop1.out"
sed 's/^\(B|exporter|cpu_ms_per_scrape|builtin_busy|1|\)[^|]*|/\120|/' "$data/builtin-good.out" > "$tmp/bi-exporter.out"
target_is missed "klp-exporter, builtin, calls running: CPU per scrape" "$tmp/bi-exporter.out"

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

# The real builtin run: the exporter could not serve the builtin's 1000
# functions, and klptop's CPU time stood still while it wrote its lines.
bad "the real builtin run" "$data/builtin.out" "the guest reported: klp-exporter did not serve"
check "the real builtin run: says klptop's CPU time did not advance" \
	grep -qF "not measured: klptop/cpu_total_pct/ours_busy_json is 0 while klptop wrote" "$tmp/msg"
# The real run with the kprobe floor (run 4, doc/performance.md): not
# published (klptop's CPU time stood still after its first row), but its
# table has the floor's rows, R_builtin0 / R_klp as measured.
bad "the real builtin run with the floor" "$data/builtin-floor.out" \
	"not measured: klptop/cpu_total_pct/builtin_busy_json is 0 while klptop wrote"
check "the real builtin run with the floor: R_builtin0 / R_klp in its table" \
	bash -c 'grep -q "^| R_builtin0 / R_klp | 1.24 (1.17-1.56) | 1.11 (0.99-1.17) |$" "$1"' _ "$tmp/table"
# The same in a complete run: one klptop row's CPU time 0 in every interval.
awk -F'|' '$1 == "B" && $2 == "klptop" && ($3 == "cpu_pct" || $3 == "cpu_total_pct") && $4 == "builtin_idle_json" { $6 = 0 } 1' OFS='|' \
	"$data/builtin-good.out" > "$tmp/bi-cpu0.out"
bad "a klptop whose CPU time did not advance" "$tmp/bi-cpu0.out" "not measured: klptop/cpu_total_pct/builtin_idle_json is 0 while klptop wrote"
# The same for the exporter: 0 ms a scrape while it served its scrapes
# (the real run of 2026-12-05 at fb5190a read that in its builtin rows).
sed 's/^\(B|exporter|cpu_ms_per_scrape|builtin_busy|1|\)[^|]*|/\10.000|/' "$data/builtin-good.out" > "$tmp/bi-ex0.out"
bad "an exporter whose CPU time did not advance" "$tmp/bi-ex0.out" "not measured: exporter/cpu_ms_per_scrape/builtin_busy is 0 while each scrape served 321120 bytes"
# What froze them: mawk's printf "%d" clamps at 2^31 - 1, so a tool past
# 2.15 s of CPU read 2147483647 every time.  A reading clamped only at
# the end (a row that started below it) has figures above 0, too low.
sed 's/^I|klptop_cpu_ns_ours_idle_json|.*/I|klptop_cpu_ns_ours_idle_json|2100000000 2147483647/' \
	"$data/builtin-good.out" > "$tmp/bi-clamp.out"
bad "a CPU reading clamped at 2^31 - 1" "$tmp/bi-clamp.out" "not measured: klptop_cpu_ns_ours_idle_json is '2100000000 2147483647': 2147483647 is 2^31 - 1"
sed 's/^I|exporter_cpu_ns_builtin_idle|.*/I|exporter_cpu_ns_builtin_idle|3880000000 3870000000/' \
	"$data/builtin-good.out" > "$tmp/bi-back.out"
bad "a CPU reading that went back" "$tmp/bi-back.out" "not measured: exporter_cpu_ns_builtin_idle is '3880000000 3870000000': the CPU time went back"
sed 's/^I|exporter_cpu_ns_ours_busy|.*/I|exporter_cpu_ns_ours_busy|-1 1941500000/' \
	"$data/builtin-good.out" > "$tmp/bi-noread.out"
bad "a CPU reading that is not a number" "$tmp/bi-noread.out" "not measured: exporter_cpu_ns_ours_busy is '-1 1941500000', not two CPU times in ns"
grep -v '^I|klptop_cpu_ns_builtin_busy_json|' "$data/builtin-good.out" > "$tmp/bi-noraw.out"
bad "a builtin run without a row's raw CPU readings" "$tmp/bi-noraw.out" "missing record: I|klptop_cpu_ns_builtin_busy_json"

# The guest's reading itself (bench/guest-cpu.sh, on a made-up /proc):
# a tool of two threads past 2^31 ns in all is read exactly, not clamped
# at 2147483647 as mawk's printf "%d" did; a field that is no number, or
# no such process, reads -1; the % of a CPU between two such readings.
mkdir -p "$tmp/proc/77/task/77" "$tmp/proc/77/task/78" "$tmp/proc/88/task/88"
echo "3000000000 120 40" > "$tmp/proc/77/task/77/schedstat"
echo "17 3 2" > "$tmp/proc/77/task/78/schedstat"
echo "x 0 0" > "$tmp/proc/88/task/88/schedstat"
# shellcheck source=bench/guest-cpu.sh disable=SC1091
. "$KLP_TOP/bench/guest-cpu.sh"
assert_eq "cpu_ns: 3 s of CPU in two threads, exactly" 3000000017 "$(BENCH_PROC=$tmp/proc cpu_ns 77)"
assert_eq "cpu_ns: a field that is no number reads -1" -1 "$(BENCH_PROC=$tmp/proc cpu_ns 88)"
assert_eq "cpu_ns: no such process reads -1" -1 "$(BENCH_PROC=$tmp/proc cpu_ns 99)"
assert_eq "cpu_pct: 50 ms of CPU past 2^31 ns, over 5 s" 1.00 "$(cpu_pct 3000000017 3050000017 5000000000 %.2f)"
assert_eq "cpu_pct: a missing reading is -1" -1 "$(cpu_pct -1 3050000017 5000000000 %.2f)"

# The builtin mode: the counted builtin configuration missing, a round
# of klp's counted loop not measured, the exporter's builtin rows gone,
# no record of the rounds.
grep -v '^B|builtin|[a-z_]*|builtin_klptop|' "$data/builtin-good.out" > "$tmp/bi-missing.out"
bad "a builtin run without its counted configuration" "$tmp/bi-missing.out" "missing figure: builtin/kernel_ns/builtin_klptop"
awk -F'|' '!d && $1 == "B" && $2 == "builtin" && $3 == "user_ns" && $4 == "ours_klptop" { $6 = -1; d = 1 } 1' OFS='|' \
	"$data/builtin-good.out" > "$tmp/bi-sentinel.out"
bad "a builtin run's sentinel sample" "$tmp/bi-sentinel.out" "not measured: builtin/user_ns/ours_klptop"
grep -v '^B|exporter|[a-z_]*|builtin_' "$data/builtin-good.out" > "$tmp/bi-noexp.out"
bad "a builtin run without the exporter's builtin rows" "$tmp/bi-noexp.out" "missing figure: exporter/cpu_ms_per_scrape/builtin_busy"
grep -v '^I|builtin_rounds|' "$data/builtin-good.out" > "$tmp/bi-norounds.out"
bad "a builtin run without its rounds" "$tmp/bi-norounds.out" "no builtin_rounds record"

# A per-call sample without the record of what its calls went through,
# from a guest that records them; a boot of several that did not finish.
awk -F'|' '!d && $1 == "S" && $3 == "builtin" && $5 == "jc" { d = 1; next } 1' "$data/percall.out" > "$tmp/pc-nostate.out"
bad "a per-call sample without its state" "$tmp/pc-nostate.out" "no state: redirect/builtin round"
grep -vE '^I\|(b2_)?done\|' "$data/percall.out" > "$tmp/pc-boot.out"
bad "a boot of a per-call run that did not finish" "$tmp/pc-boot.out" "boot 2 of $boots did not finish"

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
