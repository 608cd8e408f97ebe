#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# klp-cost: 439
# klp-rootfs: debian12
# klp-accel: tcg,thread=single
# klp-min-results: 65
# Single-threaded TCG, as 42-exporter: builtin patches are enabled while
# the other CPU runs (doc/testing.md).
# klp's Debian packages used as an administrator uses them, on a Debian 12
# system with systemd as PID 1: Debian's kernel boots a root filesystem of
# Debian's packages (scripts/rootfs.sh, built once under build/rootfs/),
# and run.sh has built this tree's packages (scripts/deb.sh: klp-tools, and
# klp-modules-<kver>, DKMS's build of klp-dkms for this kernel).  apt
# installs them offline, the exporter's dependencies from apt's cache;
# `systemctl enable --now klp-exporter`: the startup line is in the
# journal, the unit's sandbox is what it says; modprobe klp; two builtin
# patches stacked, whose calls are counted once kernel.perf_event_paranoid
# allows it (Debian's 3 does not: the journal says why); klp.ko goes and
# comes back under the running exporter; a klp patch beside the builtin's:
# curl scrapes show both cores with exactly the calls made; the running
# manager's `systemd-analyze security` scores the unit under 3; the
# textfile mode (a drop-in) writes its file and `systemctl stop` removes
# it; apt-get purge takes it all away.
. "$(dirname "$0")/../lib.sh"
ktap_start "klp's packages on Debian 12 with systemd: apt, systemctl, journal, curl"

[ "$(cat /proc/1/comm)" = systemd ] ||
	bail "PID 1 is systemd (run this group through selftests/run.sh, which boots scripts/rootfs.sh's root filesystem)"
ok "PID 1 is systemd"
diag "the system was up $(cut -d' ' -f1 /proc/uptime) s after the kernel started"
assert_eq "systemd says the system is running, no unit failed" "running " \
	"$(systemctl is-system-running) $(systemctl --failed --no-legend --plain | awk '{ print $1 }' | paste -sd' ')"

kver=$(uname -r)
debs=$KLP_TOP/build/deb
URL=http://127.0.0.1:9873/metrics
LP=/sys/kernel/livepatch
X=/usr/sbin/klp-exporter

# --- apt, offline -------------------------------------------------------------
tools_deb=$(ls "$debs"/klp-tools_*_amd64.deb 2>/dev/null | head -n 1)
mods_deb=$(ls "$debs"/klp-modules-"$kver"_*_amd64.deb 2>/dev/null | head -n 1)
[ -n "$tools_deb" ] && [ -n "$mods_deb" ] ||
	bail "build/deb/ has klp-tools and klp-modules-$kver (run.sh builds them: scripts/deb.sh -m $kver)"
check "klp-tools is not installed yet, nor libmicrohttpd12, which it alone needs" \
	eval '! dpkg -s klp-tools > /dev/null 2>&1 && ! dpkg -s libmicrohttpd12 > /dev/null 2>&1'
check "offline: no network card" eval '[ -z "$(ls /sys/class/net | grep -vx lo)" ]'
if apt-get install -y -q "$tools_deb" "$mods_deb" > /tmp/apt.log 2>&1; then
	ok "apt-get install klp-tools and klp-modules-$kver: the dependencies from apt's cache"
else
	not_ok "apt-get install klp-tools and klp-modules-$kver"
	sed 's/^/#   /' /tmp/apt.log | tail -n 20
	ktap_finish
fi
assert_eq "dpkg: both installed, and the dependencies apt pulled in" \
	"install ok installed install ok installed install ok installed" \
	"$(dpkg-query -W -f '${Status} ' klp-tools "klp-modules-$kver" libmicrohttpd12 | sed 's/ $//')"
check "... the tools in /usr/sbin, the unit in /lib/systemd/system, the rules, include/klp" \
	test -x /usr/sbin/klptop -a -x /usr/sbin/klp-trace -a -x $X \
	-a -f /lib/systemd/system/klp-exporter.service \
	-a -f /usr/share/klp/prometheus/klp.rules.yml -a -f /usr/include/klp/livepatch.h
assert_eq "... the unit installed disabled and not started (the administrator enables it)" \
	"disabled inactive" "$(systemctl is-enabled klp-exporter) $(systemctl is-active klp-exporter)"
assert_eq "modinfo klp: the package's module, built for this kernel" \
	"/lib/modules/$kver/updates/klp/klp.ko $kver" \
	"$(modinfo -F filename klp) $(modinfo -F vermagic klp | cut -d' ' -f1)"

# --- the exporter under systemd --------------------------------------------------
# series NAME [LABEL=VALUE...]: the samples of metric NAME in one scrape
# that have those labels, "label=value,... value", labels sorted, samples
# sorted
series() {
	local line name labels value want
	curl -s --max-time 20 "$URL" | grep -E "^$1[{ ]" | while read -r line; do
		name=${line%% *}
		value=${line##* }
		labels=
		if [[ $name == *\{* ]]; then
			labels=${name#*\{}
			labels=$(tr , '\n' <<< "${labels%\}}" | tr -d '"' | LC_ALL=C sort | paste -sd,)
		fi
		for want in "${@:2}"; do
			[[ ",$labels," == *",$want,"* ]] || continue 2
		done
		echo "$labels $value"
	done | LC_ALL=C sort
}
series_is() { [ "$(series "${@:2}")" = "$1" ]; }
# series_wait LABEL WANT NAME [LABEL=VALUE...]: ok once a scrape has WANT
# (30 s at most)
series_wait() {
	local what=$1 want=$2
	shift 2
	if wait_until 30 series_is "$want" "$@"; then
		ok "$what"
	else
		not_ok "$what"
		diag "  series:   $*"
		diag "  expected: '$want'"
		diag "  actual:   '$(series "$@")'"
	fi
}
# journal: the unit's lines since its last start, as printed
journal() {
	journalctl -q -o cat -u klp-exporter --since "@$started" 2>/dev/null
}
# start_unit VERB: systemctl VERB klp-exporter, and the time it was asked
start_unit() {
	started=$(date +%s)
	systemctl "$@" klp-exporter
}
# scrapable: the exporter answers
scrapable() { curl -sf --max-time 5 "$URL" -o /dev/null; }

check "systemctl enable --now klp-exporter" start_unit enable --now
check "... it runs, enabled, and answers on $URL" \
	eval 'systemctl is-active -q klp-exporter && systemctl is-enabled -q klp-exporter && wait_until 30 scrapable'
started_line() { journal | grep -qxF "$1"; }
want="$($X --version): listening on $URL; cores found: livepatch"
if wait_until 10 started_line "$want"; then
	ok "the startup line is in the journal: '$want'"
else
	not_ok "the startup line is in the journal"
	diag "  expected: '$want'"
	diag "  journal:  '$(journal)'"
fi
series_wait "without klp.ko: klp_up 0" " 0" klp_up

pid=$(systemctl show -P MainPID klp-exporter)
# the sandbox: what ProtectKernelTunables= and ProtectKernelLogs= would do,
# but /proc/kallsyms, which the builtin source reads
ns() { nsenter -t "$pid" -m "$@"; }
check "the unit's sandbox: /proc/kallsyms readable, klp_ops in it" \
	eval 'ns grep -q " klp_ops$" /proc/kallsyms'
assert_eq "... /proc/kcore and /proc/kmsg inaccessible (empty), no /dev/kmsg" "0 0 no" \
	"$(ns cat /proc/kcore 2>/dev/null | wc -c) $(ns timeout 1 cat /proc/kmsg 2>/dev/null | wc -c) $(ns test -e /dev/kmsg && echo yes || echo no)"
# (each written its own value: nothing changes if the write goes through)
rw() { ns sh -c "cat $1 > $1" 2> /dev/null; }
check "... /proc/sys and /sys read-only" eval \
	'! rw /proc/sys/kernel/perf_event_paranoid && ! rw /sys/kernel/mm/ksm/sleep_millisecs'
assert_eq "... capabilities: CAP_BPF, CAP_PERFMON and CAP_SYSLOG, nothing else" \
	"$(printf '%016x' $(( 1 << 39 | 1 << 38 | 1 << 34 )))" "$(awk '$1 == "CapBnd:" { print $2 }' /proc/$pid/status)"

# --- klp.ko, two builtin patches --------------------------------------------
check "modprobe klp (klp_events with it)" eval 'modprobe klp && [ -d /sys/module/klp_events ]'
series_wait "klp_up 1: the exporter attached to the core" " 1" klp_up
klp_insmod klp_test_target || bail "klp_test_target loads"
check "builtin klp_test_builtin patches klp_target_c" klp_insmod klp_test_builtin func=klp_target_c
lp_settled() { [ ! -e $LP/$1 ] || [ "$(cat $LP/$1/transition 2>/dev/null)" = 0 ]; }
check "... its transition completes" wait_until 20 lp_settled klp_test_builtin
check "builtin klp_test_builtin2 stacks on it" klp_insmod klp_test_builtin2 func=klp_target_c
check "... its transition completes" wait_until 20 lp_settled klp_test_builtin2
b1src=$(cat /sys/module/klp_test_builtin/srcversion)
b2src=$(cat /sys/module/klp_test_builtin2/srcversion)
TA='function=klp_target_a,object=klp_test_target'
TB='function=klp_target_b,object=klp_test_target'
TC='function=klp_target_c,object=klp_test_target'
# (a builtin patch has no CVE field: its label is empty)
series_wait "the builtin's patches, with their identity" \
"core=livepatch,cve=,patch=klp_test_builtin,srcversion=$b1src 1
core=livepatch,cve=,patch=klp_test_builtin2,srcversion=$b2src 1" klp_patch_info
series_wait "... klp_test_builtin2 wins klp_target_c over klp_test_builtin" \
"core=livepatch,$TC,patch=klp_test_builtin 0
core=livepatch,$TC,patch=klp_test_builtin2 1" klp_func_winner

# Debian's kernels: kernel.perf_event_paranoid 3, where perf_event_open()
# needs CAP_SYS_ADMIN, which the unit does not give
assert_eq "Debian's kernel.perf_event_paranoid: 3" 3 "$(sysctl -n kernel.perf_event_paranoid)"
assert_eq "1000 calls of klp_target_c" 7100 "$(target_call c 1000)"
check "... not counted: the journal says why (its kprobe refused: Permission denied)" \
	eval 'journal | grep -q "cannot count the calls of klp_test_builtin2.s klp_target_c (a kprobe at 0x[0-9a-f]*): Permission denied"'

# as klp-exporter(8) says: perf_event_paranoid 2, and the exporter again
check "sysctl kernel.perf_event_paranoid=2; systemctl restart klp-exporter" \
	eval 'sysctl -q kernel.perf_event_paranoid=2 && start_unit restart && wait_until 30 scrapable'
pid=$(systemctl show -P MainPID klp-exporter)
want="$($X --version): listening on $URL; cores found: klp, livepatch"
check "the startup line of the restart: both cores found" wait_until 10 started_line "$want"
series_wait "... the stacks read again" "core=livepatch,$TC 2" klp_func_stack_depth
assert_eq "1500 calls of klp_target_c" 7100 "$(target_call c 1500)"
series_wait "... counted exactly, on klp_test_builtin2" \
	"core=livepatch,$TC,patch=klp_test_builtin2 1500" klp_func_redirects_total
check "... the journal has no refused kprobe" eval '! journal | grep -q "cannot count"'

# --- klp.ko unloaded and loaded again under the running exporter -------------
check "rmmod klp under the exporter (its programs pin klp_events, not the core)" rmmod klp
series_wait "... klp_up 0, still scraped" " 0" klp_up
assert_eq "200 calls of klp_target_c meanwhile" 7100 "$(target_call c 200)"
series_wait "... the builtin's patches stay, its calls counted" \
	"core=livepatch,$TC,patch=klp_test_builtin2 1700" klp_func_redirects_total
check "modprobe klp again" modprobe klp
series_wait "... klp_up 1" " 1" klp_up
series_wait "... the core found a second time since the restart" " 2" klp_exporter_core_attaches_total

# --- a klp patch beside the builtin's ----------------------------------------
check "klp patch klp_test_p1 (klp_target_a, klp_target_b)" klp_insmod klp_test_p1
p1src=$(cat /sys/module/klp_test_p1/srcversion)
series_wait "both cores' patches" \
"core=klp,cve=CVE-2099-0001,patch=klp_test_p1,srcversion=$p1src 1
core=livepatch,cve=,patch=klp_test_builtin,srcversion=$b1src 1
core=livepatch,cve=,patch=klp_test_builtin2,srcversion=$b2src 1" klp_patch_info
series_wait "... and their winners" \
"core=klp,$TA,patch=klp_test_p1 1
core=klp,$TB,patch=klp_test_p1 1
core=livepatch,$TC,patch=klp_test_builtin 0
core=livepatch,$TC,patch=klp_test_builtin2 1" klp_func_winner
assert_eq "3000 calls of klp_target_a, 500 of klp_target_b, 300 of klp_target_c" "1001 1002 7100" \
	"$(target_call a 3000) $(target_call b 500) $(target_call c 300)"
series_wait "both cores' calls counted exactly" \
"core=klp,$TA,patch=klp_test_p1 3000
core=klp,$TB,patch=klp_test_p1 500
core=livepatch,$TC,patch=klp_test_builtin2 2000" klp_func_redirects_total

check "the top builtin patch disabled" eval "echo 0 > $LP/klp_test_builtin2/enabled"
check "... its transition completes, the patch is freed" wait_until 20 eval "[ ! -e $LP/klp_test_builtin2 ]"
assert_eq "700 calls of klp_target_c get klp_test_builtin's value" 7000 "$(target_call c 700)"
series_wait "... counted on klp_test_builtin" \
	"core=livepatch,$TC,patch=klp_test_builtin 700" klp_func_redirects_total patch=klp_test_builtin
check "klp_test_builtin2 unloads" wait_until 5 rmmod klp_test_builtin2
assert_eq "the same exporter all along since the restart: no restart, no crash" "$pid 0" \
	"$(systemctl show -P MainPID klp-exporter) $(systemctl show -P NRestarts klp-exporter)"
series_wait "... no klp_exporter_lost_events_total, of either core" \
	"core=klp 0
core=livepatch 0" klp_exporter_lost_events_total
for m in errors unattributed_redirects; do
	series_wait "... no klp_exporter_${m}_total" " 0" "klp_exporter_${m}_total"
done

# --- the running manager's verdict ------------------------------------------
systemd-analyze security klp-exporter > /tmp/security 2>&1
score=$(sed -n 's/.*Overall exposure level for klp-exporter.service: \([0-9.]*\) .*/\1/p' /tmp/security)
diag "systemd-analyze security klp-exporter (the running manager): ${score:-no score}"
check "systemd-analyze security klp-exporter, by the running manager: under 3" \
	awk -v s="${score:-99}" 'BEGIN { exit !(s < 3) }'
[ "$_ktap_fail" = 0 ] || diag "$(grep -E '✗|Overall' /tmp/security)"

# --- the textfile, as the unit's header says: a drop-in -----------------------
tf=/var/lib/prometheus/node-exporter/klp.prom
mkdir -p /etc/systemd/system/klp-exporter.service.d /var/lib/prometheus/node-exporter
cat > /etc/systemd/system/klp-exporter.service.d/textfile.conf <<EOF
[Service]
ExecStart=
ExecStart=$X --no-http -t $tf -i 1
EOF
check "a drop-in for the textfile; systemctl daemon-reload and restart" \
	eval 'systemctl daemon-reload && start_unit restart'
check "... the textfile written" wait_until 30 test -s $tf
want="$($X --version): textfile $tf every 1 s; cores found: klp, livepatch"
check "... the startup line says so" wait_until 10 started_line "$want"
assert_eq "... mode 0644, both cores in it" "644 1 1" \
	"$(stat -c %a $tf) $(grep -c '^klp_up 1$' $tf) $(grep -c '^klp_patch_info{.*core="livepatch"' $tf)"
check "systemctl stop klp-exporter" systemctl stop klp-exporter
check "... the textfile removed" test ! -e $tf
assert_eq "... stopped cleanly" "inactive 0" \
	"$(systemctl is-active klp-exporter) $(systemctl show -P ExecMainStatus klp-exporter)"
rm -r /etc/systemd/system/klp-exporter.service.d
systemctl daemon-reload

# --- removal ----------------------------------------------------------------
check "apt-get purge klp-tools: the unit goes, and its enable link" \
	eval 'apt-get purge -y -q klp-tools > /tmp/apt.log 2>&1 && [ ! -e /lib/systemd/system/klp-exporter.service ] &&
	      [ ! -e /etc/systemd/system/multi-user.target.wants/klp-exporter.service ]'
# (klp_test_p1, registered, holds klp.ko in memory: not its file)
check "apt-get purge klp-modules-$kver: no klp.ko left on disk" \
	eval 'apt-get purge -y -q "klp-modules-$kver" >> /tmp/apt.log 2>&1 && ! modinfo klp > /dev/null 2>&1'
diag "the system up $(cut -d' ' -f1 /proc/uptime) s at the end"
# what the exporter said in this boot, for the record
journalctl -q -o cat -u klp-exporter -b | tail -n 20 | sed 's/^/# journal: /'
ktap_finish
