#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# klp-exporter as node_exporter-style citizen, without the core: one
# startup line on stderr (version, revision, where it listens, the
# textfile, the live patching cores found: klp, livepatch or none);
# klp_exporter_build_info with dkms.conf's version and the git revision
# built; client_golang's process metrics, each what /proc says of the
# process (CPU time, resident and virtual memory, start time, open and
# maximum fds), over HTTP only (a textfile and --once carry klp's series
# only: node_exporter has process_* of its own); with -t the textfile's
# interval and the time of its last write (in the file: that write);
# promtool accepts it all.  On SIGTERM
# and SIGINT the textfile is removed, but only the file it wrote: a file
# or a symlink put at its name since stays, and so does the file of an
# exporter killed (not a clean stop).  The /proc/self/stat parser gets
# lines with odd command names, cut lines, and a bounded fuzz run under
# ASan and UBSan.
. "$(dirname "$0")/../lib.sh"
ktap_start "klp-exporter: startup line, build_info, process metrics, textfile lifetime"

exporter_prereqs promtool

# --- the /proc/self/stat parser ---------------------------------------------
cat > "$tmp/t.c" <<'EOC'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "klp-exporter.h"
#include "procstat.h"

static void parse(const char *line)
{
	struct proc_stat st = { 0 };

	if (proc_stat_parse(line, &st))
		printf("refused\n");
	else
		printf("utime %llu stime %llu start %llu vsize %llu rss %llu\n",
		       st.utime, st.stime, st.starttime, st.vsize, st.rss);
}

/* each line of stdin parsed; "fuzz N": N mutations of a real line */
int main(int argc, char **argv)
{
	static const char real[] = "42 (klp-exporter) S 1 42 42 0 -1 4194560 219 0 0 0 3 5 0 0 20 0 1 0 12345 10510336 1226 18446744073709551615 1 1 0 0 0 0 0 4096 0 0 0 0 17 1 0 0 0 0 0 0 0 0 0 0 0 0 0\n";
	char line[1024];
	long runs;

	if (argc > 2 && !strcmp(argv[1], "fuzz")) {
		struct proc_stat st;

		srand(1);
		for (runs = atol(argv[2]); runs > 0; runs--) {
			size_t len = rand() % sizeof(real), i;

			memcpy(line, real, len);
			line[len] = '\0';
			for (i = rand() % 4; i > 0 && len; i--)
				line[rand() % len] = "()- 0123456789x\n"[rand() % 16];
			proc_stat_parse(line, &st);
		}
		printf("fuzz ok\n");
		return 0;
	}
	while (fgets(line, sizeof(line), stdin))
		parse(line);
	return 0;
}
EOC
# shellcheck disable=SC2086 # the lists of rooms are words
unit_build "$tmp" strbuf klp-exporter_self procstat_lib $UNIT_MODEL $UNIT_KLP $UNIT_EXPORTER
assert_eq "/proc/self/stat: the fields counted from the command's last ')'" \
"utime 3 stime 5 start 12345 vsize 10510336 rss 1226
utime 3 stime 5 start 12345 vsize 10510336 rss 1226
utime 7 stime 0 start 99 vsize 4096 rss 1
refused
refused
refused
refused" "$("$tmp/t" <<'EOF'
42 (klp-exporter) S 1 42 42 0 -1 4194560 219 0 0 0 3 5 0 0 20 0 1 0 12345 10510336 1226 18446744073709551615 1 1
42 (a) b (c) S 1 42 42 0 -1 4194560 219 0 0 0 3 5 0 0 20 0 1 0 12345 10510336 1226 0
7 ( ) R 1 7 7 0 -1 0 0 0 0 0 7 0 0 0 -2 -20 1 0 99 4096 1
42 (klp-exporter) S 1 42 42 0 -1 4194560 219 0 0 0 3 5 0 0 20 0 1 0 12345 10510336
42 (klp-exporter) S 1 42 42 0 -1 4194560 219 0 0 0 3 x 0 0 20 0 1 0 12345 10510336 1226
42 klp-exporter S 1 42 42 0 -1 4194560 219 0 0 0 3 5 0 0 20 0 1 0 12345 10510336 1226

EOF
)"
assert_eq "... 100000 mutated lines under ASan and UBSan" "fuzz ok" \
	"$("$tmp/t" fuzz "${KLP_FUZZ_RUNS:-100000}" 2>&1 | tail -n 3)"

# --- the startup line ---------------------------------------------------------
ver=$("$x" --version)
rev=$(git -C "$KLP_TOP" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
assert_eq "--version: dkms.conf's version and the git revision built" \
	"klp-exporter $(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$KLP_TOP/dkms.conf") (revision $rev)" "$ver"

# start ARGS...: the exporter in the background, $pid; its stderr in
# $tmp/err; waits for its startup line
start() {
	: > "$tmp/err"	# not the last start's line: the new one truncates it only once it runs
	"$x" "$@" 2> "$tmp/err" &
	pid=$!
	wait_until 10 grep -q 'cores found' "$tmp/err" || not_ok "klp-exporter $* says it started ($(cat "$tmp/err"))"
}
# stop SIGNAL: signal it, its exit status in $rc
stop() { kill "-$1" "$pid"; wait "$pid"; rc=$?; pid=; }

mkdir "$tmp/tf"
start -l 127.0.0.1:0 -t "$tmp/tf/klp.prom" -i 1
port=$(sed -n 's|.*http://127.0.0.1:\([0-9]*\)/metrics.*|\1|p' "$tmp/err")
assert_eq "one line at start: version, where it listens, the textfile, the cores (none here)" \
	"$ver: listening on http://127.0.0.1:$port/metrics; textfile $tmp/tf/klp.prom every 1 s; cores found: none" \
	"$(cat "$tmp/err")"

# --- its metrics ----------------------------------------------------------------
curl -s "http://127.0.0.1:$port/metrics" > "$tmp/m"
# metric NAME: its value in the last scrape
metric() { awk -v n="$1" '$1 == n { print $2 }' "$tmp/m"; }
check "promtool check metrics accepts the scrape" \
	eval 'promtool check metrics < "$tmp/m" > "$tmp/lint" 2>&1' || diag "$(cat "$tmp/lint")"
assert_eq "klp_exporter_build_info: the version and revision built, value 1" \
	"klp_exporter_build_info{version=\"$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$KLP_TOP/dkms.conf")\",revision=\"$rev\"} 1" \
	"$(grep '^klp_exporter_build_info' "$tmp/m")"
assert_eq "the process metrics, typed as client_golang types them" \
"process_cpu_seconds_total counter
process_resident_memory_bytes gauge
process_virtual_memory_bytes gauge
process_start_time_seconds gauge
process_open_fds gauge
process_max_fds gauge" "$(awk '$1 == "#" && $2 == "TYPE" && $3 ~ /^process_/ { print $3, $4 }' "$tmp/m")"
# what /proc says of the process: stat's fields, its fds, its limits
read -r -a st <<< "$(sed 's/.*) //' "/proc/$pid/stat")"	# st[0] is field 3
hz=$(getconf CLK_TCK)
btime=$(awk '$1 == "btime" { print $2 }' /proc/stat)
near() { awk -v a="$1" -v b="$2" -v d="$3" 'BEGIN { exit !(a - b <= d && b - a <= d) }'; }
check "process_start_time_seconds: /proc's btime + starttime (within 1 s)" \
	near "$(metric process_start_time_seconds)" "$(awk -v b="$btime" -v s="${st[19]}" -v h="$hz" 'BEGIN { printf "%.2f", b + s / h }')" 1
check "process_virtual_memory_bytes: /proc's vsize (within 1 MiB)" \
	near "$(metric process_virtual_memory_bytes)" "${st[20]}" 1048576
check "process_resident_memory_bytes: /proc's rss in bytes (within 1 MiB)" \
	near "$(metric process_resident_memory_bytes)" "$((st[21] * $(getconf PAGESIZE)))" 1048576
check "process_cpu_seconds_total: /proc's utime + stime (within 0.05 s)" \
	near "$(metric process_cpu_seconds_total)" "$(awk -v u="${st[11]}" -v s="${st[12]}" -v h="$hz" 'BEGIN { print (u + s) / h }')" 0.05
assert_eq "process_open_fds: /proc/PID/fd's entries, and the scrape's own connection" \
	"$(($(ls "/proc/$pid/fd" | wc -l) + 1))" "$(metric process_open_fds)"
assert_eq "process_max_fds: the soft RLIMIT_NOFILE" \
	"$(awk '/^Max open files/ { print $4 }' "/proc/$pid/limits")" "$(metric process_max_fds)"
assert_eq "klp_exporter_textfile_interval_seconds: -i" 1 "$(metric klp_exporter_textfile_interval_seconds)"
ts=$(awk '$1 == "klp_exporter_textfile_write_timestamp_seconds" { print $2 }' "$tmp/tf/klp.prom")
check "in the textfile, klp_exporter_textfile_write_timestamp_seconds is that write's time (its mtime, within 0.5 s)" \
	near "$ts" "$(stat -c %.9Y "$tmp/tf/klp.prom")" 0.5
check "... promtool check metrics accepts the textfile" \
	eval 'promtool check metrics < "$tmp/tf/klp.prom" > "$tmp/lint" 2>&1' || diag "$(cat "$tmp/lint")"
assert_eq "the textfile carries klp's series only: no process_* (node_exporter's own would collide), over HTTP all six" \
	"0|0|6" "$(grep -c '^process_' "$tmp/tf/klp.prom")|$("$x" --once --format text | grep -c '^process_')|$(grep -c '^# TYPE process_' "$tmp/m")"
sleep 1.5	# -i 1: written again since
curl -s "http://127.0.0.1:$port/metrics" > "$tmp/m2"
assert_eq "... and over HTTP it is the last write's, going forward" yes \
	"$(awk -v a="$(metric klp_exporter_textfile_write_timestamp_seconds)" '$1 == "klp_exporter_textfile_write_timestamp_seconds" { print ($2 > a ? "yes" : "no: " a " then " $2) }' "$tmp/m2")"

# --- the textfile's lifetime ---------------------------------------------------
stop TERM
assert_eq "SIGTERM: exit 0, the textfile removed, nothing else said" "0||1" \
	"$rc|$(ls -A "$tmp/tf")|$(wc -l < "$tmp/err")"
start --no-http -t "$tmp/tf/klp.prom" -i 1
assert_eq "--no-http: the startup line names the textfile only" \
	"$ver: textfile $tmp/tf/klp.prom every 1 s; cores found: none" "$(cat "$tmp/err")"
wait_until 10 test -s "$tmp/tf/klp.prom" || not_ok "the textfile is written"
stop INT
assert_eq "SIGINT: exit 0, the textfile removed" "0|" "$rc|$(ls -A "$tmp/tf")"

# someone else's file, then a symlink, at the name after the last write
# (-i 3600: no write comes after)
for other in file symlink; do
	start --no-http -t "$tmp/tf/klp.prom" -i 3600
	wait_until 10 test -s "$tmp/tf/klp.prom" || not_ok "the textfile is written"
	echo "someone's" > "$tmp/victim"
	if [ $other = file ]; then
		cp "$tmp/victim" "$tmp/tf/new" && mv "$tmp/tf/new" "$tmp/tf/klp.prom"
	else
		ln -sf "$tmp/victim" "$tmp/tf/klp.prom"
	fi
	stop TERM
	assert_eq "a $other put at the textfile's name since: SIGTERM leaves it, and what it points to" \
		"0|klp.prom|someone's|someone's" \
		"$rc|$(ls -A "$tmp/tf")|$(cat "$tmp/tf/klp.prom")|$(cat "$tmp/victim")"
	rm -f "$tmp/tf/klp.prom"
done
start --no-http -t "$tmp/tf/klp.prom" -i 1
wait_until 10 test -s "$tmp/tf/klp.prom" || not_ok "the textfile is written"
stop KILL 2> /dev/null
assert_eq "killed (no clean stop): the textfile stays, to go stale" "137|klp.prom" \
	"$rc|$(ls -A "$tmp/tf")"

# --- the cores it finds ---------------------------------------------------------
# in a mount namespace of its own, a /sys/kernel with only livepatch/
if unshare -m true 2> /dev/null; then
	out=$(unshare -m sh -c 'mount -t tmpfs none /sys/kernel && mkdir /sys/kernel/livepatch &&
		exec timeout -s TERM 2 "$1" -l 127.0.0.1:0' sh "$x" 2>&1)
	assert_eq "the builtin livepatch's /sys/kernel/livepatch: \"cores found: livepatch\"" \
		"cores found: livepatch" "$(grep 'cores found' <<< "$out" | sed 's/.*; //')"
else
	skip "cores found: livepatch (no mount namespace here)"
fi
ktap_finish
