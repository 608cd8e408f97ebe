#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Names and duplicates in the core's state file, through the state
# parser (userspace/sources/klp/snapshot_lib.c), klptop's model (model.c) and
# both outputs, klptop --json and klp-exporter's metrics text: a name as
# long as the core accepts (KLP_FUNC_MAX_LEN, 255) is held whole, so five
# functions sharing a 127-byte prefix stay five functions (cut to 127
# they merged into one, whose stack of four overflowed, and two gave the
# same klp_func_winner series twice); a func, a func id or a patch listed
# twice, or a longer name, is refused naming its line, and the model
# stays as it was.  The driver runs under ASan (selftests/lib.sh).
. "$(dirname "$0")/../lib.sh"
ktap_start "state file: whole names, no duplicates"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/t.c" <<'EOC'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "klp-exporter.h"
#include "klptop.h"
#include "source_klp.h"
#include "strbuf.h"

static struct model m;
static struct model_log lg;
static struct ex_totals tot;

/* each function: object, name, its length and its stack, winner first */
static void show(void)
{
	unsigned int j;
	size_t i;

	for (i = 0; i < m.nr_patches; i++)
		printf("patch %s\n", m.patches[i]->name);
	for (i = 0; i < m.nr_fns; i++) {
		printf("fn %s %s %zu:", m.fns[i]->object, m.fns[i]->name,
		       strlen(m.fns[i]->name));
		for (j = 0; j < m.fns[i]->depth; j++)
			printf(" %s:%u", m.fns[i]->stack[j]->patch->name,
			       m.fns[i]->stack[j]->id);
		printf("\n");
	}
	printf("resync %s\n", m.need_resync ? "yes" : "no");
}

/*
 * one command per line: "load FILE" (the state file, read now), "show",
 * "json", "metrics", or "push SEQ PATCH OBJECT FUNC ID DEPTH WINNER
 * WINNER_ID" (a transition event, names whole)
 */
int main(void)
{
	struct kt_view v = { .rows = 100 };
	struct ex_view ev = { .up = true, .model = &m, .totals = &tot };
	struct kt_totals kt = { 0 };
	struct strbuf json = { 0 }, b = { 0 };
	char *line = NULL, *w[10], *save, *tok;
	size_t size = 0;
	int n;

	setvbuf(stdout, NULL, _IOLBF, 0);	/* in order with stderr */
	while (getline(&line, &size, stdin) > 0) {
		n = 0;
		for (tok = strtok_r(line, " \n", &save); tok && n < 10;
		     tok = strtok_r(NULL, " \n", &save))
			w[n++] = tok;
		if (!n)
			continue;
		if (!strcmp(w[0], "load") && n == 2) {
			free((char *)m.state_path);
			m.state_path = strdup(w[1]);
			printf("resync %d\n", klp_model_resync(&m));
		} else if (!strcmp(w[0], "show")) {
			show();
		} else if (!strcmp(w[0], "json")) {
			kt_print_json(&v, &m, &lg, &kt, &json);
		} else if (!strcmp(w[0], "metrics")) {
			b.len = 0;
			ex_render(&b, EX_TEXT, &ev);
			fwrite(b.s, 1, b.len, stdout);
		} else if (!strcmp(w[0], "push") && n == 9) {
			struct klp_transition_event e = {
				.type = KLP_EV_FUNC_PUSH,
				.seq = strtoull(w[1], NULL, 0),
				.id = atoi(w[5]),
				.depth = atoi(w[6]),
				.winner_id = atoi(w[8]),
				.cause = KLP_CAUSE_ENABLE,
			};

			snprintf(e.patch, sizeof(e.patch), "%s", w[2]);
			snprintf(e.object, sizeof(e.object), "%s", w[3]);
			snprintf(e.func, sizeof(e.func), "%s", w[4]);
			snprintf(e.winner, sizeof(e.winner), "%s", w[7]);
			klp_event_apply(&m, &lg, &e);
		}
	}
	model_free(&m);
	ex_totals_free(&tot);
	free((char *)m.state_path);
	free(json.s);
	free(b.s);
	free(line);
	return 0;
}
EOC
# shellcheck disable=SC2086 # the lists of rooms are words
unit_build "$tmp" snapshot $UNIT_MODEL $UNIT_KLP $UNIT_KLPTOP $UNIT_EXPORTER

run() { "$tmp/t" 2>&1; }
# name CHAR N: CHAR N times
name() { printf "$1%.0s" $(seq "$2"); }
A=$(name a 127)		# the prefix five functions share
L255=$(name x 255)	# as long as the core accepts

good="seq 5
patch p1 1
object p1 vmlinux 1
func p1 vmlinux f 3 1 1 0x10 0x20"
printf '%s\n' "$good" > "$tmp/good"
want_good="patch p1
fn vmlinux f 1: p1:3
resync no"

# --- five functions sharing a 127-byte prefix ------------------------------
{
	echo "seq 9"
	echo "patch p1 1"
	echo "object p1 vmlinux 1"
	for i in 1 2 3 4 5; do
		echo "func p1 vmlinux ${A}_$i $((10 + i)) 1 1 0x$((1000 + i)) 0x$((2000 + i))"
	done
} > "$tmp/prefix"
out=$(printf 'load %s\nshow\n' "$tmp/prefix" | run)
assert_eq "5 functions sharing a 127-byte prefix: 5 functions, whole names, each its own winner" \
	"resync 0
patch p1
$(for i in 1 2 3 4 5; do echo "fn vmlinux ${A}_$i 129: p1:$((10 + i))"; done)
resync no" "$out"
out=$(printf 'load %s\nmetrics\n' "$tmp/prefix" | run)
assert_eq "... 5 klp_func_winner series, one per function, none twice" \
	"$(for i in 1 2 3 4 5; do echo "klp_func_winner{object=\"vmlinux\",function=\"${A}_$i\",patch=\"p1\",core=\"klp\"} 1"; done)" \
	"$(grep '^klp_func_winner{' <<< "$out" | sort | uniq -c | awk '{ print ($1 == 1 ? "" : $1 "x ") $2, $3 }')"
out=$(printf 'load %s\njson\n' "$tmp/prefix" | run)
assert_eq "... 5 rows in klptop --json, by whole name" \
	"$(for i in 1 2 3 4 5; do echo "${A}_$i"; done)" \
	"$(grep '^{' <<< "$out" | jq -r '.rows[].function' 2>&1 | sort)"

# --- a name as long as the core accepts, and one longer ---------------------
printf '%s\n' "seq 7" "patch p1 1" "object p1 vmlinux 1" \
	"func p1 vmlinux $L255 3 0 0 0x10 0x20" > "$tmp/long"
out=$(printf 'load %s\npush 8 p1 vmlinux %s 3 1 p1 3\nshow\nmetrics\njson\n' \
	"$tmp/long" "$L255" | run)
assert_eq "a 255-character name: held whole, and its push moves that function" \
	"resync 0
patch p1
fn vmlinux $L255 255: p1:3
resync no" "$(grep -v '^[#k{]' <<< "$out")"
assert_eq "... whole in the metrics" \
	"klp_func_winner{object=\"vmlinux\",function=\"$L255\",patch=\"p1\",core=\"klp\"} 1" \
	"$(grep '^klp_func_winner{' <<< "$out")"
assert_eq "... and in klptop --json" "$L255" \
	"$(grep '^{' <<< "$out" | jq -r '.rows[].function' 2>&1)"

# bad FILE LINE: loading FILE after a good state is refused naming LINE,
# and the model is the good state's
bad() {
	local out
	out=$(printf 'load %s\nload %s\nshow\n' "$tmp/good" "$tmp/$1" | run)
	assert_eq "$3" "resync 0
t: $tmp/$1: line $2
resync -71
$want_good" "$out"
}
printf '%s\n' "$good" "func p1 vmlinux ${L255}y 4 0 0 0x10 0x20" > "$tmp/toolong"
bad toolong "5: a function name longer than 255 characters" \
	"a 256-character name: refused naming its line, the model unchanged"
printf '%s\n' "$good" "patch $(name p 64) 0" > "$tmp/longpatch"
bad longpatch "5: a patch name longer than 63 characters" \
	"a 64-character patch name: refused naming its line, the model unchanged"

# --- one func listed five times (each line alone is good) -------------------
{
	echo "seq 9"
	echo "patch p1 1"
	echo "object p1 vmlinux 1"
	for i in 1 2 3 4 5; do
		echo "func p1 vmlinux f $((10 + i)) $i 5 0x10 0x20"
	done
} > "$tmp/dup"
bad dup "5: func p1 vmlinux f again (first at line 4)" \
	"one func listed five times: refused naming the line, the model unchanged"
printf '%s\n' "$good" "patch p2 1" "object p2 vmlinux 1" \
	"func p2 vmlinux g 3 1 1 0x10 0x20" > "$tmp/dupid"
bad dupid "7: func id 3 again (first at line 4)" \
	"one func id on two funcs: refused naming the line, the model unchanged"
printf '%s\n' "$good" "patch p1 0" > "$tmp/duppatch"
bad duppatch "5: patch p1 again (first at line 2)" \
	"one patch listed twice: refused naming the line, the model unchanged"
ktap_finish
