#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# klp-host-prometheus: 9873
# klp-timeout: 600
# klp-min-results: 44
# klp-exporter in the guest, scraped every second by a real Prometheus on
# the host (run.sh starts it, loopback only; QEMU forwards a host port to
# the exporter's 9873), queried back over Prometheus' HTTP API: started
# before the core it serves klp_up 0, then finds the core; the core is
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
trap '[ -n "$XP" ] && kill "$XP" 2>/dev/null' EXIT

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
		to_entries | map("\(.key)=\(.value)") | join(",")) + " " + .value[1]' <<< "$r" | sort
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

# first without the core
"$KLP_BIN/klp-exporter" -l 0.0.0.0:9873 2> $work/err &
XP=$!
prom_wait "Prometheus scrapes the exporter through the forwarded port" 'up{job="klp"}' " 1"
prom_wait "without the core: klp_up 0" 'klp_up' " 0"

# --- the core reloaded under the exporter -------------------------------
klp_insmod klp || bail "core loads"
prom_wait "the core loaded: klp_up 1" 'klp_up' " 1"
check "a patch with an empty cve is refused" eval '! klp_insmod klp_test_p3 cve='
prom_wait "... its failed registration counted" 'klp_transitions_total' \
	"event=register,patch=klp_test_p3 1"
seq1=$(cat /sys/kernel/debug/klp/seq)
check "rmmod klp while the exporter is attached (its programs pin klp_events, not the core)" \
	rmmod klp
prom_wait "the core gone: klp_up 0, still scraped" 'klp_up + up{job="klp"}' " 1"
prom_wait "... the counter kept" 'klp_transitions_total' "event=register,patch=klp_test_p3 1"
klp_insmod klp || bail "core loads again"
assert_eq "the transition numbers went on across the reload (not back to 0)" "$seq1 yes" \
	"$(cat /sys/kernel/debug/klp/seq) $([ "$seq1" -gt 0 ] && echo yes)"

t0=$(date +%s)
klp_insmod klp_test_target || bail "target loads"
klp_insmod klp_test_p1 || bail "p1 loads, enabled"
klp_insmod klp_test_p2 enable=0 || bail "p2 registers"
t1=$(date +%s)
prom_wait "the core back: klp_up 1" 'klp_up' " 1"
prom_wait "... the exporter found it twice" 'klp_exporter_core_attaches_total' " 2"
src1=$(cat /sys/module/klp_test_p1/srcversion)
src2=$(cat /sys/module/klp_test_p2/srcversion)
prom_wait "patch info: each patch's srcversion and CVE" 'klp_patch_info' \
"core=klp,cve=CVE-2099-0001,patch=klp_test_p1,srcversion=$src1 1
core=klp,cve=CVE-2099-0002,patch=klp_test_p2,srcversion=$src2 1"
prom_wait "enabled: p1 1, p2 0" 'klp_patch_enabled' "core=klp,patch=klp_test_p1 1
core=klp,patch=klp_test_p2 0"
ts=$(prom 'klp_patch_enabled_timestamp_seconds' | awk '{ print $1, int($2) }')
assert_eq "p1's enable time, between before and after its insmod" "patch=klp_test_p1 ok" \
	"$(awk -v a="$t0" -v b="$t1" '{ print $1, ($2 >= a && $2 <= b) ? "ok" : $2 " not in " a ".." b }' <<< "$ts")"

assert_eq "3000 calls of klp_target_a" 1001 "$(target_call a 3000)"
prom_wait "... exactly 3000 redirects to p1, nothing else" 'klp_func_redirects_total' \
	"core=klp,function=klp_target_a,object=klp_test_target,patch=klp_test_p1 3000"
prom_wait "winners: p1 on both functions" 'klp_func_winner' \
"core=klp,function=klp_target_a,object=klp_test_target,patch=klp_test_p1 1
core=klp,function=klp_target_b,object=klp_test_target,patch=klp_test_p1 1"

check "p2 enabled over p1" set_enabled klp_test_p2 1
assert_eq "2000 calls of klp_target_a, 500 of klp_target_b" "2001 2002" \
	"$(target_call a 2000) $(target_call b 500)"
prom_wait "winners: p2 on top of both, p1 below" 'klp_func_winner' \
"core=klp,function=klp_target_a,object=klp_test_target,patch=klp_test_p1 0
core=klp,function=klp_target_a,object=klp_test_target,patch=klp_test_p2 1
core=klp,function=klp_target_b,object=klp_test_target,patch=klp_test_p1 0
core=klp,function=klp_target_b,object=klp_test_target,patch=klp_test_p2 1"
prom_wait "stack depths 2" 'klp_func_stack_depth' \
"core=klp,function=klp_target_a,object=klp_test_target 2
core=klp,function=klp_target_b,object=klp_test_target 2"
prom_wait "exact redirects per function and winner" 'klp_func_redirects_total' \
"core=klp,function=klp_target_a,object=klp_test_target,patch=klp_test_p1 3000
core=klp,function=klp_target_a,object=klp_test_target,patch=klp_test_p2 2000
core=klp,function=klp_target_b,object=klp_test_target,patch=klp_test_p2 500"
# p1's enable (over the original) and p2's: the exporter was attached
prom_wait "two winner changes on each function" 'klp_func_winner_changes_total' \
"function=klp_target_a,object=klp_test_target 2
function=klp_target_b,object=klp_test_target 2"
prom_wait "p2's transitions: a register, two pushes, one enable" \
	'klp_transitions_total{patch="klp_test_p2",event!~"transition|task_blocked"}' \
"event=enable,patch=klp_test_p2 1
event=push,patch=klp_test_p2 2
event=register,patch=klp_test_p2 1"
prom_wait "the rules: KlpWinnerChanged fires for both functions" \
	'ALERTS{alertname="KlpWinnerChanged",alertstate="firing"}' \
"alertname=KlpWinnerChanged,alertstate=firing,function=klp_target_a,object=klp_test_target,severity=info 1
alertname=KlpWinnerChanged,alertstate=firing,function=klp_target_b,object=klp_test_target,severity=info 1"
prom_wait "... KlpPatchNotWinning pending for p1 (10 minutes before it fires)" \
	'count by (alertstate, patch) (ALERTS{alertname="KlpPatchNotWinning"})' \
	"alertstate=pending,patch=klp_test_p1 2"

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
prom_wait "... three winner changes on each function now" 'klp_func_winner_changes_total' \
"function=klp_target_a,object=klp_test_target 3
function=klp_target_b,object=klp_test_target 3"
prom_wait "... and once p2 is disabled, this host" "$fleet" \
	"core=klp,cve=CVE-2099-0001,patch=klp_test_p1,srcversion=$src1 1"
prom_wait "all redirects: exactly the 6500 calls" 'sum(klp_func_redirects_total)' " 6500"
prom_wait "the exporter lost nothing and met no error" \
	'klp_exporter_lost_events_total + klp_exporter_errors_total + klp_exporter_unattributed_redirects_total' " 0"

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
lost_events() { [ "$(prom klp_exporter_lost_events_total | awk '{ print int($NF) }')" -gt "$1" ]; }
check "events lost: the exporter counts them (over 100: 1200 events, a ring of 256 KiB)" \
	wait_until 60 lost_events 100
prom_wait "... and the winners are the state's: p2 on both" 'klp_func_winner == 1' \
"core=klp,function=klp_target_a,object=klp_test_target,patch=klp_test_p2 1
core=klp,function=klp_target_b,object=klp_test_target,patch=klp_test_p2 1"
assert_eq "700 calls of klp_target_a" 2001 "$(target_call a 700)"
prom_wait "... counted exactly on p2 (2000 + 700), p1's as it was" \
	'klp_func_redirects_total{function="klp_target_a"}' \
"core=klp,function=klp_target_a,object=klp_test_target,patch=klp_test_p1 4000
core=klp,function=klp_target_a,object=klp_test_target,patch=klp_test_p2 2700"
check "... the winner changes went on growing (over 3 on each function)" \
	eval '[ "$(prom "min(klp_func_winner_changes_total)" | awk "{ print int(\$NF) }")" -gt 3 ]'
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
