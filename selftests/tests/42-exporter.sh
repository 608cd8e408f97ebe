#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# klp-cost: 280
# klp-host-prometheus: 9873
# klp-accel: tcg,thread=single
# klp-min-results: 112
# Single-threaded TCG, as 43-livepatch-source: the builtin livepatch's
# enables and disables rewrite call sites while the other CPU runs
# (doc/testing.md).
# klp-exporter in the guest, scraped every second by a real Prometheus on
# the host (run.sh starts it, loopback only; QEMU forwards a host port to
# the exporter's 9873), queried back over Prometheus' HTTP API: started
# before the klp core, with builtin livepatch patches loaded, it serves
# klp_up 0 and the builtin's series (core="livepatch": identity, enabled,
# winner and stack of two stacked patches, exact calls per function and
# winner, winner changes, README's fleet query by srcversion, a
# transition held by a kthread and its end; probes attached at start and
# on a change, not in a request; scrapes in a row share an update); a
# failed attach to the klp core keeps the builtin's series; then finds
# the klp core,
# and serves both cores side by side; the klp core is
# unloaded under it (its programs pin klp_events.ko, not klp.ko) and
# loaded again, the counters kept, the transition numbers going on; the
# patch's
# identity (srcversion, CVE) and enable time; per function and winner,
# exactly the calls the kernel loop made; the winner after a stack change,
# the winner changes, the transitions; klp's rules fire on this data;
# after lost events the state is read again and no counter went backwards.
. "$(dirname "$0")/../lib.sh"
ktap_start "klp-exporter: scraped by Prometheus on the host, exact counts"

[ -n "${KLP_PROM:-}" ] || bail "a Prometheus on the host (run this group through selftests/run.sh)"
work=/tmp/exporter
mkdir -p $work
XP=
X2=
X3=
trap 'kill ${XP:+"$XP"} ${X2:+"$X2"} ${X3:+"$X3"} 2>/dev/null' EXIT

# net_up: the virtio network card at QEMU's default guest address
net_up() {
	local ifc
	modprobe virtio_net || return 1
	wait_until 10 eval 'ls /sys/class/net | grep -qv "^lo$"' || return 1
	ifc=$(ls /sys/class/net | grep -v '^lo$' | head -n 1)
	ip link set "$ifc" up && ip addr add 10.0.2.15/24 dev "$ifc" &&
		ip route add default via 10.0.2.2
}

# prom QUERY: the instant vector's samples, "label=value,... value" sorted
# (labels other than __name__, instance and job); "query failed: ..." if
# Prometheus did not answer it
prom() {
	local r
	r=$(curl -s --max-time 20 --get --data-urlencode "query=$1" "http://$KLP_PROM/api/v1/query")
	if [ "$(jq -r .status <<< "$r" 2>/dev/null)" != success ]; then
		echo "query failed: ${r:-no answer}"
		return
	fi
	jq -r '.data.result[] | (.metric | del(.__name__, .instance, .job) |
		to_entries | map("\(.key)=\(.value)") | join(",")) + " " + .value[1]' <<< "$r" | LC_ALL=C sort
}
# prom_is QUERY WANT: prom QUERY prints exactly WANT
prom_is() { [ "$(prom "$1")" = "$2" ]; }
# prom_wait LABEL QUERY WANT: ok once Prometheus has WANT (60 s at most)
prom_wait() {
	if wait_until 60 prom_is "$2" "$3"; then
		ok "$1"
	else
		not_ok "$1"
		diag "  query:    $2"
		diag "  expected: '$3'"
		diag "  actual:   '$(prom "$2")'"
	fi
}

net_up || bail "the guest's network card is up (10.0.2.15)"
check "the host's Prometheus answers from the guest" \
	curl -sf --max-time 20 "http://$KLP_PROM/-/ready" -o /dev/null

# --- first without the klp core: the builtin livepatch alone ---------------
LP=/sys/kernel/livepatch
TC='function=klp_target_c,object=klp_test_target'
# lp_settled PATCH: no builtin transition of PATCH runs (or it is freed)
lp_settled() { [ ! -e $LP/$1 ] || [ "$(cat $LP/$1/transition 2>/dev/null)" = 0 ]; }
# builtin_calls N VALUE WHO COUNTED: N calls of klp_target_c get VALUE
# (WHO's); then Prometheus has COUNTED, the redirect counters
builtin_calls() {
	assert_eq "$1 calls of klp_target_c get $3's value" "$2" "$(target_call c "$1")"
	prom_wait "... counted exactly per (function, winner)" 'klp_func_redirects_total' "$4"
}
klp_insmod klp_test_target || bail "target loads"
check "builtin klp_test_builtin patches klp_target_c, no klp core loaded" \
	klp_insmod klp_test_builtin func=klp_target_c
check "... its transition completes" wait_until 20 lp_settled klp_test_builtin
b1src=$(cat /sys/module/klp_test_builtin/srcversion)

"$KLP_BIN/klp-exporter" -l 0.0.0.0:9873 2> $work/err &
XP=$!
prom_wait "Prometheus scrapes the exporter through the forwarded port" 'up{job="klp"}' " 1"
prom_wait "without the klp core: klp_up 0" 'klp_up' " 0"
prom_wait "... and the builtin patch: its module's srcversion, core livepatch (no cve)" \
	'klp_patch_info' "core=livepatch,patch=klp_test_builtin,srcversion=$b1src 1"
prom_wait "... enabled" 'klp_patch_enabled' "core=livepatch,patch=klp_test_builtin 1"
prom_wait "... winning klp_target_c, alone on its stack" \
	'klp_func_winner or klp_func_stack_depth' \
"core=livepatch,$TC 1
core=livepatch,$TC,patch=klp_test_builtin 1"
prom_wait "... not in transition" 'klp_transition_in_progress' "core=livepatch,patch=klp_test_builtin 0"
builtin_calls 1000 7000 klp_test_builtin "core=livepatch,$TC,patch=klp_test_builtin 1000"
prom_wait "a winner found at start is no change" 'klp_func_winner_changes_total' ""
# lp_reads: the exporter's full reads of the builtin's state so far (a
# scrape of its own, beside Prometheus')
lp_reads() {
	curl -s --max-time 20 http://127.0.0.1:9873/metrics |
		awk '$1 == "klp_exporter_livepatch_reads_total" { print $2 }'
}
r1=$(lp_reads)
for i in 1 2 3 4 5; do lp_reads > /dev/null; done
assert_same "scrapes with nothing changed read the builtin's counters, not its whole state" \
	"$r1" "$(lp_reads)"

# two builtin patches stacked: the last enabled wins
check "builtin klp_test_builtin2 stacks on klp_target_c" \
	klp_insmod klp_test_builtin2 func=klp_target_c
check "... its transition completes" wait_until 20 lp_settled klp_test_builtin2
b2src=$(cat /sys/module/klp_test_builtin2/srcversion)
prom_wait "the last enabled wins, the first below it; depth 2" \
	'klp_func_winner or klp_func_stack_depth' \
"core=livepatch,$TC 2
core=livepatch,$TC,patch=klp_test_builtin 0
core=livepatch,$TC,patch=klp_test_builtin2 1"
prom_wait "both patches' identity and enabled" 'klp_patch_info * on (patch) group_left klp_patch_enabled' \
"core=livepatch,patch=klp_test_builtin,srcversion=$b1src 1
core=livepatch,patch=klp_test_builtin2,srcversion=$b2src 1"
prom_wait "one winner change, seen while watching" 'klp_func_winner_changes_total' "core=livepatch,$TC 1"
builtin_calls 2000 7100 klp_test_builtin2 "core=livepatch,$TC,patch=klp_test_builtin 1000
core=livepatch,$TC,patch=klp_test_builtin2 2000"
# README's fleet query for a builtin patch, by its module's srcversion
fleet_lp="klp_patch_info{core=\"livepatch\",srcversion=\"$b1src\"} * on (instance, patch) group_left klp_patch_enabled == 1
  unless on (instance, patch) (klp_func_winner == 0)"
prom_wait "README's fleet query by srcversion: klp_test_builtin enabled but not winning, so no host" \
	"$fleet_lp" ""
prom_wait "... KlpPatchNotWinning pending for it" \
	'ALERTS{alertname="KlpPatchNotWinning"}' \
	"alertname=KlpPatchNotWinning,alertstate=pending,core=livepatch,$TC,patch=klp_test_builtin,severity=warning 1"

check "klp_test_builtin2 disabled" eval "echo 0 > $LP/klp_test_builtin2/enabled"
check "... its transition completes, the patch is freed" wait_until 20 eval "[ ! -e $LP/klp_test_builtin2 ]"
prom_wait "klp_test_builtin wins again, alone; the freed patch's gauges gone" \
	'klp_func_winner or klp_func_stack_depth or klp_patch_enabled' \
"core=livepatch,$TC 1
core=livepatch,$TC,patch=klp_test_builtin 1
core=livepatch,patch=klp_test_builtin 1"
prom_wait "... a second winner change" 'klp_func_winner_changes_total' "core=livepatch,$TC 2"
# the top one gone: the calls move to the next, klp_test_builtin2's kept
builtin_calls 500 7000 klp_test_builtin "core=livepatch,$TC,patch=klp_test_builtin 1500
core=livepatch,$TC,patch=klp_test_builtin2 2000"
prom_wait "README's fleet query by srcversion: klp_test_builtin enabled and winning, this host" \
	"$fleet_lp" "core=livepatch,patch=klp_test_builtin,srcversion=$b1src 1"
check "klp_test_builtin2 unloads" wait_until 5 rmmod klp_test_builtin2

# a builtin transition held by a kthread asleep in the function it patches
RELEASE=/sys/module/klp_test_sleeper/parameters/release
klp_insmod klp_test_sleeper || bail "the sleeper module loads"
PID=$(pgrep -x klp_sleeper)
[ -n "$PID" ] || bail "the klp_sleeper kthread runs"
check "the kthread sleeps in klp_sleeper_wait" \
	wait_until 10 grep -q '^\[<[0-9a-f]*>\] klp_sleeper_wait+' "/proc/$PID/stack"
# an exporter that nobody scrapes attaches its probes at start and when
# the builtin changes, not inside a request (bpftool lists its kprobes)
"$KLP_BIN/klp-exporter" -l 127.0.0.1:9875 2> $work/err3 &
X3=$!
kprobes3() { bpftool perf show 2>/dev/null | grep -c "^pid $X3 .*kprobe"; }
check "an exporter that nobody scrapes starts (its startup line)" \
	wait_until 30 grep -q "listening on" $work/err3
assert_eq "... its probe on klp_test_builtin's func attached already" 1 "$(kprobes3)"
check "builtin klp_test_builtin2 patches klp_sleeper_wait" \
	klp_insmod klp_test_builtin2 func=klp_sleeper_wait objname=klp_test_sleeper
check "... the unscraped exporter attaches a probe on its func too" \
	wait_until 10 eval '[ "$(kprobes3)" = 2 ]'
kill "$X3"
wait "$X3"
X3=
prom_wait "its transition in progress" 'klp_transition_in_progress' \
"core=livepatch,patch=klp_test_builtin 0
core=livepatch,patch=klp_test_builtin2 1"
prom_wait "... the kthread holds it: pid, comm, function, why" \
	"klp_transition_blocked_task_info{pid=\"$PID\"}" \
	"comm=klp_sleeper,core=livepatch,function=klp_sleeper_wait,patch=klp_test_builtin2,pid=$PID,reason=on_stack 1"
prom_wait "... the only task with the function on its stack" \
	'klp_transition_blocked_tasks{reason="on_stack"}' \
	"core=livepatch,patch=klp_test_builtin2,reason=on_stack 1"
prom_wait "... running for over 2 s" 'count(klp_transition_seconds{core="livepatch",patch="klp_test_builtin2"} > 2)' " 1"
# six scrapes in a row on one connection, while every update reads the
# builtin's state whole (a transition runs): they share updates
reads6=$(curl -s --max-time 60 $(printf 'http://127.0.0.1:9873/metrics %.0s' 1 2 3 4 5 6) |
	awk '$1 == "klp_exporter_livepatch_reads_total" { print $2 }')
check "six scrapes in a row during a transition share updates: fewer than six full reads" \
	eval '[ "$(wc -l <<< "$reads6")" = 6 ] && [ "$(sort -u <<< "$reads6" | wc -l)" -lt 6 ]'
[ "$_ktap_fail" = 0 ] || diag "the six scrapes' reads: $(echo $reads6)"
assert_eq "... still held: transition 1, the kthread unpatched" "1 0" \
	"$(cat $LP/klp_test_builtin2/transition) $(cat "/proc/$PID/patch_state")"
echo 1 > "$RELEASE"
check "the kthread returned: the transition completes" wait_until 20 lp_settled klp_test_builtin2
prom_wait "its end: not in transition" 'klp_transition_in_progress' \
"core=livepatch,patch=klp_test_builtin 0
core=livepatch,patch=klp_test_builtin2 0"
prom_wait "... no task named, no time, no blocked count" \
	'count({__name__=~"klp_transition_(seconds|blocked_tasks|blocked_task_info)"})' ""
check "klp_test_builtin2 disabled, freed and unloaded" eval \
	"echo 0 > $LP/klp_test_builtin2/enabled && wait_until 20 eval '[ ! -e $LP/klp_test_builtin2 ]' && wait_until 5 rmmod klp_test_builtin2"
check "the sleeper unloads" rmmod klp_test_sleeper
prom_wait "klp_sleeper_wait's two winner changes (its enable, its disable)" \
	'klp_func_winner_changes_total{function="klp_sleeper_wait"}' \
	"core=livepatch,function=klp_sleeper_wait,object=klp_test_sleeper 2"
prom_wait "the builtin's counts exact, nothing lost, no error" \
	'sum(klp_func_redirects_total) + sum(klp_exporter_lost_events_total) + sum(klp_exporter_errors_total + klp_exporter_unattributed_redirects_total)' \
	" 3500"

# the module the builtin patches goes and comes back: its sysfs tree does
# not change, only the BPF side's count of changes (klp_module_going and
# klp_module_coming) says the stacks did
r1=$(lp_reads)
check "klp_test_target unloads under klp_test_builtin (the builtin unpatches it)" \
	rmmod klp_test_target
prom_wait "... klp_target_c on no stack: no winner, depth 0" \
	'klp_func_winner or klp_func_stack_depth' "core=livepatch,$TC 0"
klp_insmod klp_test_target || bail "target loads again"
prom_wait "... it came back: patched at its load, klp_test_builtin wins again" \
	'klp_func_winner or klp_func_stack_depth' \
"core=livepatch,$TC 1
core=livepatch,$TC,patch=klp_test_builtin 1"
assert_eq "100 calls of klp_target_c get klp_test_builtin's value" 7000 "$(target_call c 100)"
prom_wait "... counted on it, as before the module went" \
	'klp_func_redirects_total{function="klp_target_c"}' \
"core=livepatch,$TC,patch=klp_test_builtin 1600
core=livepatch,$TC,patch=klp_test_builtin2 2000"
check "... the builtin's state read again for each" eval "[ \"\$(lp_reads)\" -ge \$((r1 + 2)) ]"

# --- a failed attach to the klp core keeps the builtin's part ----------
# A second exporter, scraped here only, has 8 file descriptors to spare
# when the core loads (its builtin reads need fewer, the klp source's
# programs and maps more): its attach fails (EMFILE, as a real limit
# would make it), said once; the builtin's series stay and go on
# counting exactly; with descriptors again it attaches.
"$KLP_BIN/klp-exporter" -l 127.0.0.1:9874 2> $work/err2 &
X2=$!
x2() { curl -s --max-time 20 http://127.0.0.1:9874/metrics; }
# x2_lp: the second exporter's gauges of the builtin's patch, sorted
x2_lp() {
	x2 | grep -E '^klp_(patch_info|patch_enabled|func_winner|func_stack_depth)\{' |
		grep 'core="livepatch"' | LC_ALL=C sort
}
# x2_value NAME [PATTERN]: the value of NAME's one sample matching PATTERN
x2_value() { x2 | grep -E "^$1[{ ]" | grep -e "${2:-}" | awk '{ print $NF }'; }
x2_calls() { x2_value klp_func_redirects_total 'patch="klp_test_builtin"'; }
check "a second exporter reads the builtin's patch" \
	wait_until 30 eval 'x2_lp | grep -q "^klp_func_winner{.*klp_test_builtin.* 1$"'
lp_base=$(x2_lp)
# klp_events first: each module's load is a builtin change it reads
klp_events_load || bail "klp_events (the tracepoints) loads"
wait_until 5 eval '[ "$(x2_value klp_exporter_livepatch_reads_total)" -ge 2 ]'
fds=$(ls "/proc/$X2/fd" | sort -n | tail -n 1)
check "... its descriptors limited to 8 more than it holds (prlimit)" \
	prlimit --pid "$X2" --nofile=$((fds + 9)):
klp_insmod klp || bail "core loads"
check "the second exporter's attach fails, counted once" \
	wait_until 20 eval '[ "$(x2_value klp_exporter_errors_total)" = 1 ]'
check "... for want of descriptors, said on its stderr" grep -q "Too many open files" $work/err2
assert_eq "... klp_up 0, no attach counted" "0 0" \
	"$(x2_value klp_up) $(x2_value klp_exporter_core_attaches_total)"
assert_eq "100 calls of klp_target_c get klp_test_builtin's value" 7000 "$(target_call c 100)"
assert_same "... the builtin's patch, winner and stack as before the failed attach" \
	"$lp_base" "$(x2_lp)"
# (a scrape within half a second of the last update shares it)
wait_until 5 eval '[ "$(x2_calls)" = 100 ]'
assert_eq "... its calls counted exactly" 100 "$(x2_calls)"
assert_eq "... said once, not at each try since (one a second)" 1 \
	"$(grep -c '^klp-exporter: cannot .*Too many open files' $work/err2)"
check "the second exporter's descriptors given back" prlimit --pid "$X2" --nofile=1024:
check "... it attaches: klp_up 1" wait_until 20 eval '[ "$(x2_value klp_up)" = 1 ]'
assert_eq "... once, the one failure counted, the builtin's series as they were" \
	"1 1 $lp_base 100" \
	"$(x2_value klp_exporter_core_attaches_total) $(x2_value klp_exporter_errors_total) $(x2_lp) $(x2_calls)"
[ "$_ktap_fail" = 0 ] ||
	diag "$(x2 | grep -E '^(process_max_fds|klp_exporter_[a-z_]*_total) ')"
kill "$X2"
wait "$X2"
assert_eq "... and exits 0 on SIGTERM" 0 "$?"
X2=
[ "$_ktap_fail" = 0 ] || diag "$(cat $work/err2)"

# --- the core reloaded under the exporter -------------------------------
prom_wait "the core loaded: klp_up 1" 'klp_up' " 1"
check "a patch with an empty cve is refused" eval '! klp_insmod klp_test_p3 cve='
prom_wait "... its failed registration counted" 'klp_transitions_total' \
	"event=register,patch=klp_test_p3 1"
seq1=$(cat /sys/kernel/debug/klp/seq)
check "rmmod klp while the exporter is attached (its programs pin klp_events, not the core)" \
	rmmod klp
prom_wait "the core gone: klp_up 0, still scraped" 'klp_up + up{job="klp"}' " 1"
prom_wait "... the counter kept" 'klp_transitions_total' "event=register,patch=klp_test_p3 1"
prom_wait "... the builtin patch's series stay" 'klp_patch_info or klp_func_winner' \
"core=livepatch,$TC,patch=klp_test_builtin 1
core=livepatch,patch=klp_test_builtin,srcversion=$b1src 1"
klp_insmod klp || bail "core loads again"
assert_eq "the transition numbers went on across the reload (not back to 0)" "$seq1 yes" \
	"$(cat /sys/kernel/debug/klp/seq) $([ "$seq1" -gt 0 ] && echo yes)"

t0=$(date +%s)
klp_insmod klp_test_p1 || bail "p1 loads, enabled"
klp_insmod klp_test_p2 enable=0 || bail "p2 registers"
t1=$(date +%s)
prom_wait "the core back: klp_up 1" 'klp_up' " 1"
prom_wait "... the exporter found it twice" 'klp_exporter_core_attaches_total' " 2"
src1=$(cat /sys/module/klp_test_p1/srcversion)
src2=$(cat /sys/module/klp_test_p2/srcversion)
prom_wait "patch info: each patch's srcversion and CVE, beside the builtin's" 'klp_patch_info' \
"core=klp,cve=CVE-2099-0001,patch=klp_test_p1,srcversion=$src1 1
core=klp,cve=CVE-2099-0002,patch=klp_test_p2,srcversion=$src2 1
core=livepatch,patch=klp_test_builtin,srcversion=$b1src 1"
prom_wait "enabled: p1 1, p2 0, the builtin's 1" 'klp_patch_enabled' "core=klp,patch=klp_test_p1 1
core=klp,patch=klp_test_p2 0
core=livepatch,patch=klp_test_builtin 1"
ts=$(prom 'klp_patch_enabled_timestamp_seconds' | awk '{ print $1, int($2) }')
assert_eq "p1's enable time, between before and after its insmod" "core=klp,patch=klp_test_p1 ok" \
	"$(awk -v a="$t0" -v b="$t1" '{ print $1, ($2 >= a && $2 <= b) ? "ok" : $2 " not in " a ".." b }' <<< "$ts")"

assert_eq "3000 calls of klp_target_a" 1001 "$(target_call a 3000)"
prom_wait "... exactly 3000 redirects to p1, nothing else" 'klp_func_redirects_total{core="klp"}' \
	"core=klp,function=klp_target_a,object=klp_test_target,patch=klp_test_p1 3000"
prom_wait "winners: p1 on both functions, the builtin's beside them" 'klp_func_winner' \
"core=klp,function=klp_target_a,object=klp_test_target,patch=klp_test_p1 1
core=klp,function=klp_target_b,object=klp_test_target,patch=klp_test_p1 1
core=livepatch,$TC,patch=klp_test_builtin 1"

check "p2 enabled over p1" set_enabled klp_test_p2 1
assert_eq "2000 calls of klp_target_a, 500 of klp_target_b" "2001 2002" \
	"$(target_call a 2000) $(target_call b 500)"
prom_wait "winners: p2 on top of both, p1 below" 'klp_func_winner{core="klp"}' \
"core=klp,function=klp_target_a,object=klp_test_target,patch=klp_test_p1 0
core=klp,function=klp_target_a,object=klp_test_target,patch=klp_test_p2 1
core=klp,function=klp_target_b,object=klp_test_target,patch=klp_test_p1 0
core=klp,function=klp_target_b,object=klp_test_target,patch=klp_test_p2 1"
prom_wait "stack depths 2" 'klp_func_stack_depth{core="klp"}' \
"core=klp,function=klp_target_a,object=klp_test_target 2
core=klp,function=klp_target_b,object=klp_test_target 2"
prom_wait "exact redirects per function and winner" 'klp_func_redirects_total{core="klp"}' \
"core=klp,function=klp_target_a,object=klp_test_target,patch=klp_test_p1 3000
core=klp,function=klp_target_a,object=klp_test_target,patch=klp_test_p2 2000
core=klp,function=klp_target_b,object=klp_test_target,patch=klp_test_p2 500"
# p1's enable (over the original) and p2's: the exporter was attached
prom_wait "two winner changes on each function" 'klp_func_winner_changes_total{core="klp"}' \
"core=klp,function=klp_target_a,object=klp_test_target 2
core=klp,function=klp_target_b,object=klp_test_target 2"
prom_wait "p2's transitions: a register, two pushes, one enable" \
	'klp_transitions_total{patch="klp_test_p2",event!~"transition|task_blocked"}' \
"event=enable,patch=klp_test_p2 1
event=push,patch=klp_test_p2 2
event=register,patch=klp_test_p2 1"
prom_wait "the rules: KlpWinnerChanged fires for both functions, and for the builtin's two" \
	'ALERTS{alertname="KlpWinnerChanged",alertstate="firing"}' \
"alertname=KlpWinnerChanged,alertstate=firing,core=klp,function=klp_target_a,object=klp_test_target,severity=info 1
alertname=KlpWinnerChanged,alertstate=firing,core=klp,function=klp_target_b,object=klp_test_target,severity=info 1
alertname=KlpWinnerChanged,alertstate=firing,core=livepatch,function=klp_sleeper_wait,object=klp_test_sleeper,severity=info 1
alertname=KlpWinnerChanged,alertstate=firing,core=livepatch,$TC,severity=info 1"
prom_wait "... KlpPatchNotWinning pending for p1 (10 minutes before it fires), not the builtin's now" \
	'count by (alertstate, core, patch) (ALERTS{alertname="KlpPatchNotWinning"})' \
	"alertstate=pending,core=klp,patch=klp_test_p1 2"

# README's fleet query: where is CVE-2099-0001's fix enabled and winning
# every function it patches?
fleet='klp_patch_info{cve=~".*CVE-2099-0001.*"} * on (instance, patch) group_left klp_patch_enabled == 1
  unless on (instance, patch) (klp_func_winner == 0)'
prom_wait "README's fleet query: p1 enabled but not winning, so no host" "$fleet" ""

check "p2 disabled" set_enabled klp_test_p2 0
assert_eq "1000 calls of klp_target_a" 1001 "$(target_call a 1000)"
prom_wait "p1 wins again, its count goes on (3000 + 1000)" \
	'klp_func_redirects_total{function="klp_target_a"}' \
"core=klp,function=klp_target_a,object=klp_test_target,patch=klp_test_p1 4000
core=klp,function=klp_target_a,object=klp_test_target,patch=klp_test_p2 2000"
prom_wait "... three winner changes on each function now" 'klp_func_winner_changes_total{core="klp"}' \
"core=klp,function=klp_target_a,object=klp_test_target 3
core=klp,function=klp_target_b,object=klp_test_target 3"
prom_wait "... and once p2 is disabled, this host" "$fleet" \
	"core=klp,cve=CVE-2099-0001,patch=klp_test_p1,srcversion=$src1 1"
prom_wait "all of klp's redirects: exactly the 6500 calls" 'sum(klp_func_redirects_total{core="klp"})' " 6500"
assert_eq "300 calls of klp_target_c, beside klp's patches" 7000 "$(target_call c 300)"
prom_wait "... exactly counted on klp_test_builtin (1600 + 100 + 300), klp's and klp_test_builtin2's as they were" \
	'sum by (core, patch) (klp_func_redirects_total)' \
"core=klp,patch=klp_test_p1 4000
core=klp,patch=klp_test_p2 2500
core=livepatch,patch=klp_test_builtin 2000
core=livepatch,patch=klp_test_builtin2 2000"
prom_wait "README's fleet query by srcversion still finds this host, the klp core beside" \
	"$fleet_lp" "core=livepatch,patch=klp_test_builtin,srcversion=$b1src 1"
prom_wait "the exporter lost nothing and met no error" \
	'sum(klp_exporter_lost_events_total) + sum(klp_exporter_errors_total + klp_exporter_unattributed_redirects_total)' " 0"

# --- lost events: the state read again, no counter backwards ---------------
# Stopped, the exporter drains nothing: 200 enable/disable rounds of p2 (6
# events each) overflow its ring buffer; p2 is then left enabled.
kill -STOP "$XP"
for ((i = 0; i < 200; i++)); do
	set_enabled klp_test_p2 1 && set_enabled klp_test_p2 0 || { not_ok "p2 round $i"; break; }
done
check "p2 enabled last" set_enabled klp_test_p2 1
kill -CONT "$XP"
# lost_events N: Prometheus has the exporter's lost events above N
lost_events() { [ "$(prom 'klp_exporter_lost_events_total{core="klp"}' | awk '{ print int($NF) }')" -gt "$1" ]; }
check "events lost: the exporter counts them (over 100: 1200 events, a ring of 256 KiB)" \
	wait_until 60 lost_events 100
prom_wait "... and the winners are the state's: p2 on both" 'klp_func_winner{core="klp"} == 1' \
"core=klp,function=klp_target_a,object=klp_test_target,patch=klp_test_p2 1
core=klp,function=klp_target_b,object=klp_test_target,patch=klp_test_p2 1"
assert_eq "700 calls of klp_target_a" 2001 "$(target_call a 700)"
prom_wait "... counted exactly on p2 (2000 + 700), p1's as it was" \
	'klp_func_redirects_total{function="klp_target_a"}' \
"core=klp,function=klp_target_a,object=klp_test_target,patch=klp_test_p1 4000
core=klp,function=klp_target_a,object=klp_test_target,patch=klp_test_p2 2700"
check "... the winner changes went on growing (over 3 on each function)" \
	eval '[ "$(prom "min(klp_func_winner_changes_total{core=\"klp\"})" | awk "{ print int(\$NF) }")" -gt 3 ]'
prom_wait "over the whole run, no counter ever went backwards (PromQL resets())" \
	'sum(resets(klp_func_redirects_total[15m])) + sum(resets(klp_func_winner_changes_total[15m]))
	 + sum(resets(klp_transitions_total[15m]))' " 0"

kill "$XP"
wait "$XP"
assert_eq "SIGTERM: the exporter exits 0" 0 "$?"
XP=
assert_eq "... having said only its startup line (where it listens, the builtin livepatch found), that it attached, and when the core went" \
"$("$KLP_BIN/klp-exporter" --version): listening on http://0.0.0.0:9873/metrics; cores found: livepatch
klp-exporter: attached to the klp core
klp-exporter: the klp core went away: klp_up 0 until it is back" "$(cat $work/err)"
ktap_finish
