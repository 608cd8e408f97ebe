#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# klp-cost: 120
# klp-accel: tcg,thread=single
# klptop's screen, read back from a real terminal: klptop runs in a tmux
# pane, capture-pane shows what a user sees.  The header totals, one row
# per patched function with its winner, the stack below it and its hits,
# the transition footer; the screen is cleared each refresh; s cycles the
# sort, p pauses, q quits.  Then -C, -r, -p and -f through a pipe.
# klp-min-results: 28
. "$(dirname "$0")/../lib.sh"
ktap_start "klptop: the screen, in a terminal"

export TERM=xterm
SOCK=/tmp/klptop-41.tmux
T=/tmp/klptop-41
mkdir -p "$T"

tm() {
	tmux -S "$SOCK" "$@"
}
trap 'tm kill-server 2>/dev/null' EXIT

screen() {	# screen [WINDOW]: the visible pane, without its empty bottom
	tm capture-pane -p -t "${1:-kt}" |
		awk 'NF { for (; blank > 0; blank--) print ""; print; next } { blank++ }'
}

# wait_screen PATTERN [WINDOW]: until an egrep PATTERN shows (at most ~30 s)
wait_screen() {
	local pattern=$1 window=${2:-}
	wait_until 30 eval 'screen "$window" | grep -qE -- "$pattern"'
}

header_time() {
	screen | grep -oE '^[0-9]{2}:[0-9]{2}:[0-9]{2} patches:' | head -n1
}

# wait_refreshes N: until the screen was redrawn N times (the N-th one's
# interval began after everything done so far, for N >= 2)
wait_refreshes() {
	local n t
	for ((n = 0; n < $1; n++)); do
		t=$(header_time)
		wait_until 20 eval '[ "$(header_time)" != "$t" ]' || return 1
	done
}

not_paused() {
	! screen | grep -q '\[paused\]'
}

# row FUNC: the screen row of FUNC, as "object function winner depth below hits rate total"
row() {
	screen | awk -v f="$1" '$3 == f { print $2, $3, $4, $5, $6, $7, $8, $9; exit }'
}

# order: the functions of the screen's rows, top down
# order [FILE]: the FUNCTION column, top to bottom, of FILE or else of the
# pane once it is drawn whole (rows and footer: a slow kernel can show the
# pane between klptop's clearing and its drawing)
order() {
	local s
	if [ -n "${1:-}" ]; then
		s=$(cat "$1")
	else
		for _ in $(seq 100); do
			s=$(screen)
			grep -q '^CORE ' <<< "$s" && grep -qE '^[0-9:]{8} patch ' <<< "$s" && break
			sleep 0.1
		done
	fi
	awk 'hdr && NF == 9 { printf "%s ", $3 } /^CORE / { hdr = 1 } hdr && NF == 0 { exit }' <<< "$s"
}

HEADER='^[0-9]{2}:[0-9]{2}:[0-9]{2} patches: ([0-9]+)  enabled: ([0-9]+)  disabled: ([0-9]+)  functions: ([0-9]+)  hits/s: [0-9.]+  sort: ([a-z]+)'

klp_insmod klp || bail "core loads"
klp_insmod klp_test_target || bail "target loads"
klp_insmod livepatch-sample || bail "sample patch loads"
klp_insmod klp_test_p1 || bail "p1 loads"

command -v tmux > /dev/null || bail "tmux is installed"
tm new-session -d -s kt -x 200 -y 50 \
	"$KLP_BIN/klptop 1; echo klptop-exit=\$?; sleep 600" || bail "tmux starts"
wait_screen "$HEADER" || bail "klptop draws its screen (pane: $(screen | head -n 5))"
ok "klptop runs in a tmux pane"

klp_insmod klp_test_p2 || bail "p2 loads"
# insmod reads /proc/cmdline too (kmod looks for module options there)
wait_refreshes 2 || not_ok "klptop refreshes"
reads=$(row cmdline_proc_show | cut -d' ' -f8)
target_call a 1000 > /dev/null
target_call b 5000 > /dev/null
for i in 1 2 3; do cat /proc/cmdline > /dev/null; done
wait_screen 'patch klp_test_p2 enabling: klp_target_b now -> klp_test_p2 \(depth 2\)' ||
	not_ok "footer shows p2's enable (pane: $(screen))"
wait_refreshes 2 || not_ok "klptop refreshes"
screen > "$T/screen1"
diag "the screen:"
sed 's/^/#   /' "$T/screen1"

assert_eq "header: 3 patches, 3 enabled, 0 disabled, 3 functions, sort rate" \
	"3 3 0 3 rate" "$(sed -nE "s#$HEADER.*#\1 \2 \3 \4 \5#p" "$T/screen1")"
check "column header" grep -qE '^CORE +OBJECT +FUNCTION +WINNER +DEPTH STACK BELOW +HITS +HITS/s +TOTAL$' "$T/screen1"
assert_eq "row klp_target_a: p2 wins over p1, 1000 calls in total" \
	"klp_test_target klp_target_a klp_test_p2 2 klp_test_p1 1000" \
	"$(row klp_target_a | cut -d' ' -f1-5,8)"
assert_eq "row klp_target_b: p2 wins over p1, 5000 calls in total" \
	"klp_test_target klp_target_b klp_test_p2 2 klp_test_p1 5000" \
	"$(row klp_target_b | cut -d' ' -f1-5,8)"
assert_eq "row cmdline_proc_show: the sample patch, 3 more reads of /proc/cmdline" \
	"vmlinux cmdline_proc_show livepatch_sample 1 - $((reads + 3))" \
	"$(row cmdline_proc_show | cut -d' ' -f1-5,8)"
assert_eq "idle interval: rows sorted by total" \
	"klp_target_b klp_target_a cmdline_proc_show " "$(order "$T/screen1")"
check "footer: p2's enable on klp_target_a" \
	grep -qE '^[0-9:]{8} patch klp_test_p2 enabling: klp_target_a now -> klp_test_p2 \(depth 2\)$' "$T/screen1"
check "footer: p2's registration before it" \
	grep -qE '^[0-9:]{8} patch klp_test_p2 registered$' "$T/screen1"
assert_eq "the screen is cleared: one header on it after several refreshes" \
	1 "$(grep -cE "$HEADER" "$T/screen1")"

# --- keys --------------------------------------------------------------------

tm send-keys -t kt s
wait_screen 'sort: total' && ok "s: sort by total" || not_ok "s: sort by total"
tm send-keys -t kt s
wait_screen 'sort: name' && ok "s: sort by name" || not_ok "s: sort by name"
assert_eq "sorted by name: object, then function" \
	"klp_target_a klp_target_b cmdline_proc_show " "$(order)"
tm send-keys -t kt s
wait_screen 'sort: depth' && ok "s: sort by depth" || not_ok "s: sort by depth"
tm send-keys -t kt s
wait_screen 'sort: rate' && ok "s: back to sort by rate" || not_ok "s: back to sort by rate"

tm send-keys -t kt p
wait_screen '\[paused\]' && ok "p: paused" || not_ok "p: paused"
t=$(header_time)
set_enabled klp_test_p2 0 || not_ok "disable p2"
sleep 2.5
assert_same "paused: the screen stands still" "$t" "$(header_time)"
tm send-keys -t kt p
wait_screen 'patch klp_test_p2 disabling: klp_target_a now -> klp_test_p1 \(depth 1\)' &&
	ok "unpaused: the footer shows p2's disable" || not_ok "unpaused: the footer shows p2's disable"
check "unpaused: no [paused] mark" not_paused
assert_eq "after p2's disable: p1 wins klp_target_a, nothing below" \
	"klp_test_target klp_target_a klp_test_p1 1 -" "$(row klp_target_a | cut -d' ' -f1-5)"
assert_eq "header: 2 enabled, 1 disabled" "3 2 1 3" \
	"$(screen | sed -nE "s#$HEADER.*#\1 \2 \3 \4#p")"

tm send-keys -t kt q
wait_screen '^klptop-exit=0$' && ok "q: klptop quits, exit status 0" ||
	not_ok "q: klptop quits, exit status 0 (pane: $(screen | tail -n 5))"

# --- -C and -r in a terminal; -p and -f through a pipe ----------------------

tm new-window -d -t kt -n noclear "$KLP_BIN/klptop -C -r 1 1 2; echo klptop-exit=\$?; sleep 600"
wait_screen '^klptop-exit=0$' kt:noclear || not_ok "klptop -C -r 1 1 2 ends (pane: $(screen kt:noclear))"
screen kt:noclear > "$T/screen2"
assert_eq "-C: not cleared, both refreshes on the screen" 2 "$(grep -cE "$HEADER" "$T/screen2")"
assert_eq "-r 1: one row per refresh" 2 "$(grep -cE '^klp +(klp_test_target|vmlinux) ' "$T/screen2")"

"$KLP_BIN/klptop" -p livepatch_sample 1 1 > "$T/pipe1"
assert_eq "-p livepatch_sample: only cmdline_proc_show" "cmdline_proc_show" \
	"$(awk '/^CORE / { h = 1; next } h && NF == 9 { print $3 }' "$T/pipe1")"
check "not a tty: no escape sequences" bash -c "! grep -q $'\033' $T/pipe1"
"$KLP_BIN/klptop" -f 'klp_target_?' -s name 1 1 > "$T/pipe2"
assert_eq "-f 'klp_target_?': both test functions, by name" "klp_target_a klp_target_b" \
	"$(awk '/^CORE / { h = 1; next } h && NF == 9 { print $3 }' "$T/pipe2" | paste -sd' ')"
"$KLP_BIN/klptop" -S 1 1 > "$T/pipe3"
check "-S: the time line without the summary" grep -qxE '[0-9]{2}:[0-9]{2}:[0-9]{2}' "$T/pipe3"

ktap_finish
