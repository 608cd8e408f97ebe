#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# klptop on a terminal is a top (userspace/tools/klptop/klptop_tty.c, klptop_keys.c,
# klptop_screen.c), driven without a kernel: a driver loads a state file
# into the model and runs klptop's screen, terminal and keys on a
# pseudo-terminal (klptop_pty.py, a small terminal of its own): the
# screen fits the terminal (no line wraps, nothing scrolls) and follows
# its size when it changes (SIGWINCH); the rows scroll by a row (arrows,
# j/k), a page (PgUp/PgDn) and to either end (Home/End), never past
# them; '/' filters by function or by patch (Enter applies, Esc clears);
# h lists the keys; the summary and the transitions take at most a third
# of the lines, saying how many more there are (a transition of many
# tasks leaves the rows their room on 12 lines, all of it shown on 48,
# the summary alone on 5); frames overwrite each other, nothing clears the
# screen, and nothing is left of what was there before (on a terminal
# larger than it says, too); q quits and gives the terminal back.  Without a terminal the
# screen is the lines it always was.  The key decoder, which reads what
# the terminal sends, has a bounded fuzz run under ASan and UBSan.
. "$(dirname "$0")/../lib.sh"
ktap_start "klptop: a top on a terminal"

command -v python3 > /dev/null || bail "python3 present"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/t.c" <<'EOC'
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "klptop.h"
#include "source_klp.h"

/* "fuzz N": N random buffers through the key decoder */
static int fuzz(long runs)
{
	int keys[64];
	char buf[64];
	size_t i, n, len;

	srand(1);
	while (runs-- > 0) {
		len = rand() % sizeof(buf);
		for (i = 0; i < len; i++)
			buf[i] = rand() % 4 ? "\033[O0123456789;~ABHFjk/q\r\b\177"[rand() % 26] : rand();
		n = kt_keys_decode(buf, len, keys, rand() % 64 + 1);
		for (i = 0; i < n; i++)
			if (keys[i] < -128 || keys[i] > KT_KEY_UNKNOWN) {
				printf("bad key %d\n", keys[i]);
				return 1;
			}
		if (n > len) {
			printf("%zu keys from %zu bytes\n", n, len);
			return 1;
		}
	}
	printf("fuzz ok\n");
	return 0;
}

/*
 * t STATE [-r ROWS]: klptop's screen of STATE (sorted by name, each
 * function's total its row number), on stdout; on a terminal, the keys
 * and resizes handled as klptop's loop does, until q
 */
int main(int argc, char **argv)
{
	struct kt_view v = { .rows = 20, .sort = KT_SORT_NAME };
	struct model m = { 0 };
	struct model_log lg = { 0 };
	struct kt_totals tot = { 0 };
	struct kt_tty t = { 0 };
	enum kt_action act;
	size_t i;

	if (argc > 2 && !strcmp(argv[1], "fuzz"))
		return fuzz(atol(argv[2]));
	if (argc > 3 && !strcmp(argv[2], "-r")) {
		v.rows = atoi(argv[3]);
		v.rows_given = true;
	}
	m.state_path = argv[1];
	if (klp_model_resync(&m))
		return 1;
	for (i = 0; i < m.nr_fns; i++)
		m.fns[i]->hits_total = i;
	if (!isatty(STDOUT_FILENO))
		v.noclear = true;
	else
		kt_tty_size(&t, &v.term_rows, &v.term_cols);
	kt_tty_setup(&t, v.term_rows);
	kt_print_screen(&v, &m, &lg, &tot);
	while (t.keys) {
		struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };

		if (kt_tty_resized()) {
			kt_tty_size(&t, &v.term_rows, &v.term_cols);
			kt_print_screen(&v, &m, &lg, &tot);
		}
		if (ppoll(&p, 1, NULL, &t.waitmask) < 0)
			continue;	/* SIGWINCH */
		if (p.revents & POLLIN) {
			act = kt_view_input(&v, &t, true);
			if (act == KT_ACT_QUIT)
				break;
			if (act == KT_ACT_REDRAW)
				kt_print_screen(&v, &m, &lg, &tot);
		}
		if (p.revents & (POLLHUP | POLLERR))
			break;
	}
	kt_tty_restore();
	model_free(&m);
	return 0;
}
EOC
# shellcheck disable=SC2086 # the lists of rooms are words
unit_build "$tmp" snapshot $UNIT_MODEL $UNIT_KLP $UNIT_KLPTOP klptop_tty klptop_keys

# p1 patches f00..f29 of vmlinux, p2 f30..f39
{
	echo "seq 1"
	echo "patch p1 1"
	echo "object p1 vmlinux 1"
	for i in $(seq 0 29); do
		printf 'func p1 vmlinux f%02d %d 1 1 0xffffffff8100%04x 0xffffffffc000%04x\n' \
			"$i" "$((i + 1))" "$((i * 16))" "$((i * 16))"
	done
	echo "patch p2 1"
	echo "object p2 vmlinux 1"
	for i in $(seq 30 39); do
		printf 'func p2 vmlinux f%02d %d 1 1 0xffffffff8100%04x 0xffffffffc001%04x\n' \
			"$i" "$((i + 1))" "$((i * 16))" "$((i * 16))"
	done
	for i in $(seq 0 39); do
		printf 'stack vmlinux f%02d 1 p%d:%d\n' "$i" $((i < 30 ? 1 : 2)) "$((i + 1))"
	done
} > "$tmp/state"

# pty SIZE [DRIVER ARGS]: the steps on stdin, run on a terminal of SIZE
# (klptop_pty.py's options before it in PTY_OPTS)
pty() {
	local size=$1
	shift
	cat > "$tmp/script"
	# shellcheck disable=SC2086 # options are words
	timeout 60 python3 "$KLP_TOP/selftests/host/klptop_pty.py" ${PTY_OPTS:-} "$size" "$tmp/script" \
		-- "$tmp/t" "${STATE:-$tmp/state}" "$@" > "$tmp/out" 2>&1
	cat "$tmp/out"
}
# screen N: the Nth screen printed by pty (1 first)
screen() { awk -v n="$1" '/^--- screen$/ { s++; in_ = 1; next } /^---$/ { in_ = 0 } in_ && s == n' "$tmp/out"; }
# body N: the function names on the Nth screen, joined
body() { screen "$1" | awk '$2 == "vmlinux" { printf "%s ", $3 }' | sed 's/ $//'; }
status() { screen "$1" | sed -n 2p; }

pty 24x80 <<'EOF'
check
screen
resize 12x50
check
screen
keys jjj
wait rows 4-11
settle
screen
keys \x1b[6~
wait rows 12-19
settle
screen
keys G
wait rows 33-40
settle
screen
keys \x1b[B
screen
keys \x1b[H
keys \x1b[A
keys \x1b[5~
wait rows 1-8
settle
screen
keys q
EOF
assert_eq "24x80: the screen fits (nothing wrapped, nothing scrolled)" fits "$(sed -n 1p "$tmp/out")"
assert_eq "... summary, status, title, 20 rows, the foot: 24 rows" \
"rows 1-20 of 40  h: help|CORE OBJECT FUNCTION WINNER DEPTH|f00 f01 f02 f03 f04 f05 f06 f07 f08 f09 f10 f11 f12 f13 f14 f15 f16 f17 f18 f19|24" \
	"$(status 1)|$(screen 1 | sed -n 3p | awk '{ print $1, $2, $3, $4, $5 }')|$(body 1)|$(screen 1 | wc -l)"
assert_eq "resized to 12x50 (SIGWINCH): it fits again" fits \
	"$(grep -m2 '^fits\|^wrapped\|^scrolled' "$tmp/out" | tail -n 1)"
assert_eq "... 8 rows now, lines cut at 50 columns, nothing left of the old frame" \
"rows 1-8 of 40  h: help|f00 f01 f02 f03 f04 f05 f06 f07|50|" \
	"$(status 2)|$(body 2)|$(screen 2 | awk '{ if (length > m) m = length } END { print m }')|$(screen 2 | sed -n 12p)"
assert_eq "j three times: three rows down" "rows 4-11 of 40  h: help|f03" \
	"$(status 3)|$(body 3 | cut -d' ' -f1)"
assert_eq "PgDn: a page down" "rows 12-19 of 40  h: help|f11" "$(status 4)|$(body 4 | cut -d' ' -f1)"
assert_eq "G: the last page, not past it" "rows 33-40 of 40  h: help|f32 f33 f34 f35 f36 f37 f38 f39" \
	"$(status 5)|$(body 5)"
assert_eq "Down at the end: stays" "$(screen 5)" "$(screen 6)"
assert_eq "Home, Up, PgUp at the top: the first row" "rows 1-8 of 40  h: help|f00" \
	"$(status 7)|$(body 7 | cut -d' ' -f1)"
assert_eq "q: exit 0, nothing cleared the screen (frames overwrite)" "exit 0|clears 0" \
	"$(tail -n 2 "$tmp/out" | paste -sd'|')"

pty 16x100 <<'EOF'
keys /f1
screen
keys \r
screen
keys /p2\r
screen
keys /xyz\r
screen
keys /f2
keys \x1b
screen
keys h
screen
check
keys x
screen
keys q
EOF
assert_eq "/: the search typed shows on the status line, the rows not yet filtered" \
	"/f1_   Enter: apply, Esc: clear|12" "$(status 1)|$(body 1 | wc -w)"
assert_eq "Enter: the functions whose name contains f1" \
	"rows 1-10 of 10  filter: f1  h: help|f10 f11 f12 f13 f14 f15 f16 f17 f18 f19" \
	"$(status 2)|$(body 2)"
assert_eq "/p2: the functions of patch p2" \
	"rows 1-10 of 10  filter: p2  h: help|f30 f31 f32 f33 f34 f35 f36 f37 f38 f39" \
	"$(status 3)|$(body 3)"
assert_eq "a filter nothing matches: no rows, said" "rows 0-0 of 0  filter: xyz  h: help|" \
	"$(status 4)|$(body 4)"
assert_eq "Esc while typing a search: the search and the filter cleared, every row back" \
	"rows 1-12 of 40  h: help" "$(status 5)"
check "h: the help lists the keys (quit, scroll, filter) and fits" \
	eval 'screen 6 | grep -q "^q  *quit" && screen 6 | grep -q "^PgDn Space  *scroll down a page" &&
	      screen 6 | grep -q "^/ TEXT Enter" && screen 6 | grep -q "^Esc  *clear the filter" &&
	      grep -qx fits "$tmp/out"'
assert_eq "... any key returns to the rows" "rows 1-12 of 40  h: help" "$(status 7)"

pty 30x120 -r 5 <<'EOF'
screen
keys q
EOF
assert_eq "-r 5 on a terminal: 5 rows, though there is room for more" \
	"rows 1-5 of 40  h: help|f00 f01 f02 f03 f04" "$(status 1)|$(body 1)"

# A terminal that does not know its size (a serial console nobody told:
# klptop takes 24x80), 30x120 in fact and full of what was printed
# before: each row klptop draws is erased first, also where its line,
# cut at 80 columns, ends at the last column it knows of, and the last
# erases the rest of the screen: nothing of the old text is left
PTY_OPTS="--fill --told 0x0" LINES='' COLUMNS='' pty 30x120 <<'EOF'
screen
keys q
EOF
assert_eq "told no size, on a 30x120 screen of '#': 24 lines of at most 80 columns drawn, no '#' left" \
	"rows 1-20 of 40  h: help|0|0" "$(status 1)|$(screen 1 | awk 'length > 80' | wc -l)|$(screen 1 | grep -c '#')"

# a name with escape sequences (names come from modules) cannot drive
# the terminal: shown with '?' for each unprintable byte
sed 's/ f05 / f05\x1b[2J\x1b]0;x\x07 /' "$tmp/state" > "$tmp/state.esc"
STATE=$tmp/state.esc pty 24x80 <<'EOF'
screen
keys q
EOF
assert_eq "a function name with ESC [ 2 J and a title sequence: shown as ?, nothing cleared" \
	"f05?[2J?]0;x?|clears 0" "$(body 1 | cut -d' ' -f6)|$(tail -n 1 "$tmp/out")"

# a transition held back by 16 tasks: 14 lines of head (the summary, the
# transition, its column header, 10 tasks, "... and 6 more"); the head
# takes at most a third of the terminal, its last line saying what is
# left out, so that the rows always have lines of their own
{
	cat "$tmp/state"
	echo "transition p1 1 3 16 50 1764860000000000000"
	for i in $(seq 1 16); do echo "blocked $((100 + i)) 1 - task$i"; done
} > "$tmp/state.tr"
# head N: the Nth screen's lines above its status line
head_of() { screen "$1" | awk '/^rows [0-9]/ { exit } { print }'; }
STATE=$tmp/state.tr pty 12x80 <<'EOF'
check
screen
resize 48x100
check
screen
resize 5x80
check
screen
keys q
EOF
assert_eq "12x80 with a transition of 16 tasks: it fits" "fits fits fits" \
	"$(grep '^fits\|^wrapped\|^scrolled' "$tmp/out" | paste -sd' ')"
assert_eq "... a head of 4 lines (a third), its last saying how many are left out; 5 rows (the least the foot leaves)" \
"$(printf '%s\n' 'TRANSITION klp p1 enabling' '  PID COMM REASON FUNCTION' '  ... and 11 more lines')|rows 1-5 of 40  h: help|f00 f01 f02 f03 f04" \
	"$(head_of 1 | sed 1d | sed 's/  [0-9.]*s  switched.*//; s/  */ /g; s/^ /  /')|$(screen 1 | grep '^rows')|$(body 1)"
assert_eq "48x100: the whole head (14 lines), nothing said left out" "14 0 1" \
	"$(head_of 2 | wc -l) $(head_of 2 | grep -c 'more lines') $(head_of 2 | grep -c '^  \.\.\. and 6 more$')"
assert_eq "5x80: the summary alone above the status line, then 2 rows" "1|rows 1-2 of 40  h: help|f00 f01" \
	"$(head_of 3 | wc -l)|$(screen 3 | grep '^rows')|$(body 3)"

# without a terminal: summary, title, the first -r rows, a blank line
"$tmp/t" "$tmp/state" > "$tmp/plain"
out=$(sed 's/^[0-9:]*//' "$tmp/plain")
assert_eq "not a terminal: the lines klptop always printed, no escape sequence" \
"$(printf ' patches: 2  enabled: 2  disabled: 0  functions: 40  hits/s: 0.0  sort: name\n')
CORE      OBJECT  FUNCTION WINNER DEPTH STACK BELOW       HITS     HITS/s        TOTAL
klp       vmlinux f00      p1         1 -                    0        0.0            0
klp       vmlinux f01      p1         1 -                    0        0.0            1" \
	"$(head -n 4 <<< "$out")"
assert_eq "... 20 rows (-r's default), then a blank line, nothing else" "23 1 0" \
	"$(wc -l < "$tmp/plain") $(tail -n 1 "$tmp/plain" | wc -c) $(grep -c $'\033' "$tmp/plain")"

assert_eq "the key decoder: 200000 random inputs under ASan and UBSan" "fuzz ok" \
	"$("$tmp/t" fuzz "${KLP_FUZZ_RUNS:-200000}" 2>&1 | tail -n 3)"
ktap_finish
