#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# klp-exporter -t FILE in a directory others can write to (node_exporter's
# textfile directory): symlinks planted at FILE and at every name a
# temporary file could be given from what anyone can know (the pid, fixed
# suffixes) never make it write outside the directory: their target, a
# root-only file, is untouched; FILE becomes a regular file of the
# metrics, mode 0644 whatever the umask (node_exporter runs as its own
# user), renamed over at each write; no temporary file is left behind.
. "$(dirname "$0")/../lib.sh"
ktap_start "klp-exporter: the textfile, safe in a shared directory"

exporter_prereqs promtool

d=$tmp/textfile
mkdir -m 1777 "$d"
victim=$tmp/victim
echo "root's secret" > "$victim"
chmod 0600 "$victim"
before=$(stat -c '%a %s %Y %i' "$victim")

# names PID: FILE and the names a temporary file of process PID could be
# given from what anyone can know
names() {
	echo klp.prom "klp.prom.$1.tmp" "klp.prom.$1" klp.prom.tmp \
		.klp.prom.tmp ".klp.prom.$1.tmp" "klp.prom~" klp.prom.new
}
# The exporter is exec'd by the subshell that planted the links for its
# own pid, so every pid-named temporary file it could pick is taken.
(
	p=$BASHPID
	for n in $(names "$p"); do
		ln -s "$victim" "$d/$n"
	done
	umask 077
	exec "$x" --no-http -t "$d/klp.prom" -i 1
) 2> "$tmp/err" &
pid=$!
regular() { [ -f "$d/klp.prom" ] && [ ! -L "$d/klp.prom" ]; }
check "FILE, a planted symlink, is replaced by a regular file" wait_until 10 regular
ino=$(stat -c %i "$d/klp.prom" 2>/dev/null)
check "... and replaced again within 3 s (renamed over, -i 1)" \
	wait_until 3 eval '[ "$(stat -c %i "$d/klp.prom" 2>/dev/null)" != "$ino" ]'
assert_eq "the planted symlinks' target is untouched (content, mode, size, mtime, inode)" \
	"root's secret|$before" "$(cat "$victim")|$(stat -c '%a %s %Y %i' "$victim")"
assert_eq "FILE: mode 0644 under umask 077, owned by root" "644 root" \
	"$(stat -c '%a %U' "$d/klp.prom")"
check "... promtool check metrics accepts it" \
	eval 'promtool check metrics < "$d/klp.prom" > "$tmp/lint" 2>&1' || diag "$(cat "$tmp/lint")"
"$x" --once --format text > "$tmp/once"
check "... and it is what --once --format text prints (but the counters and the textfile's own)" \
	diff <(grep -v '_total \|klp_exporter_textfile_' "$d/klp.prom") \
	<(grep -v '_total ' "$tmp/once")
kill "$pid"
wait "$pid"
rc=$?
spid=$pid pid=
assert_eq "SIGTERM: exit 0, nothing on stderr but the startup line" \
	"0:$("$x" --version): textfile $d/klp.prom every 1 s; cores found: none" "$rc:$(cat "$tmp/err")"
assert_eq "no temporary file left, FILE removed (a clean stop): the other planted names only" \
	"$(names "$spid" | tr ' ' '\n' | grep -vx klp.prom | sort)" "$(ls -A "$d" | sort)"
assert_eq "... the planted symlinks still point at the victim, untouched" "root's secret" \
	"$(cat "$d/klp.prom.tmp")"
ktap_finish
