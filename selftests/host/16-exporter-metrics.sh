#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# klp-exporter's totals and text (userspace/tools/klp-exporter/klp-exporter_metrics.c) on
# klptop's model and event applier, driven from state files and a script
# of the core's transition events (selftests/host/event_script.h): the
# redirect counters are kept per label set, so they add up across reads
# and resume where they were when a func goes and comes back, until its
# patch or function has been gone 600 s (then its series are dropped,
# the core gone or not, and start again from 0 if it comes back); a winner
# change is counted for each push or pop that moves a function's top
# (not one below it, not one the state file already held) and for each
# function a state reload after lost events finds with another winner;
# failed enables and every transition by patch and event; each core's
# lost events and redirects, labelled by core; label values
# escaped, each byte of no valid UTF-8 character U+FFFD and its hex (a blocked task's
# comm of stray bytes; 100,000 random values against Python's decoder,
# KLP_FUZZ_RUNS); no address in any series; with the core absent only klp_up 0
# and the counters; OpenMetrics and the 0.0.4 text format (which promtool
# checks) differ only where the formats do.
. "$(dirname "$0")/../lib.sh"
ktap_start "klp-exporter: totals and metrics text"

command -v promtool > /dev/null || bail "promtool present (scripts/deps.sh installs prometheus)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/t.c" <<'EOC'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "event_script.h"
#include "klp-exporter.h"
#include "source_klp.h"

static struct model m;
static struct model_log lg;
static struct ex_totals t;
static unsigned long long now = 1;	/* the prunes' clock */

/* one command per line of stdin; see the group's comment */
int main(void)
{
	char line[512], w[10][128];
	struct strbuf b = { 0 };
	int n;

	while (fgets(line, sizeof(line), stdin)) {
		struct klp_transition_event e;
		struct ex_winner *before;
		size_t nr, i;

		n = sscanf(line, "%127s %127s %127s %127s %127s %127s %127s %127s %127s %127s",
			   w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7], w[8], w[9]);
		if (n < 1)
			continue;
		if (!strcmp(w[0], "load")) {	/* load FILE: read, as at attach */
			free((char *)m.state_path);
			m.state_path = strdup(w[1]);
			if (klp_model_resync(&m))
				printf("resync failed\n");
		} else if (!strcmp(w[0], "state")) {	/* state FILE: read, as after lost events */
			free((char *)m.state_path);
			m.state_path = strdup(w[1]);
			nr = ex_winners_save(&m, &before);
			if (klp_model_resync(&m)) {
				printf("resync failed\n");
				free(before);
				continue;
			}
			ex_count_winner_changes(&t, &m, before, nr);
		} else if (!strcmp(w[0], "hits")) {	/* hits ID N [ID N ...] [unattributed N] */
			for (i = 0; i < KLP_MAX_HIT_KEYS; i++)
				if (m.by_id[i])
					m.by_id[i]->hits_interval = 0;
			unsigned long long un = 0;
			for (i = 1; i + 1 < (size_t)n; i += 2) {
				if (!strcmp(w[i], "unattributed"))
					un = strtoull(w[i + 1], NULL, 0);
				else
					m.by_id[atoi(w[i])]->hits_interval = strtoull(w[i + 1], NULL, 0);
			}
			ex_count_redirects(&t, &m, un);
		} else if (!strcmp(w[0], "down")) {	/* the klp core went: its part goes */
			klp_model_drop(&m);
		} else if (!strcmp(w[0], "lp")) {	/* lp [OBJ:FUNC:P1,P2 ...]: a read of the builtin's stacks, top first */
			nr = ex_winners_save(&m, &before);
			model_unsee(&m, MODEL_CORE_LIVEPATCH);
			for (i = 1; i < (size_t)n; i++) {
				char *obj = strtok(w[i], ":"), *fname = strtok(NULL, ":");
				char *pn = strtok(NULL, ",");
				struct model_fn *fn = model_fn_find(&m, obj, fname, true);

				for (; pn; pn = strtok(NULL, ",")) {
					struct model_patch *p = model_patch_find(&m, pn, true);
					struct model_func *f;

					p->core = MODEL_CORE_LIVEPATCH;
					p->enabled = p->seen = true;
					f = model_func_bind(&m, p, fn, 0);
					f->seen = true;
					model_stack_append(fn, f);
				}
			}
			model_sweep(&m, MODEL_CORE_LIVEPATCH);
			ex_count_winner_changes(&t, &m, before, nr);
		} else if (!strcmp(w[0], "lphits")) {	/* lphits OBJ FUNC PATCH N: the builtin's count */
			struct model_fn *fn = model_fn_find(&m, w[1], w[2], false);

			for (i = 0; fn && i < fn->nr_funcs; i++)
				fn->funcs[i]->hits_interval =
					strcmp(fn->funcs[i]->patch->name, w[3]) ? 0 :
					strtoull(w[4], NULL, 0);
			ex_count_redirects(&t, &m, 0);
			for (i = 0; fn && i < fn->nr_funcs; i++)
				fn->funcs[i]->hits_interval = 0;
		} else if (!strcmp(w[0], "uncounted")) {	/* uncounted OBJ FUNC PATCH: its probe failed */
			struct model_fn *fn = model_fn_find(&m, w[1], w[2], false);

			for (i = 0; fn && i < fn->nr_funcs; i++)
				if (!strcmp(fn->funcs[i]->patch->name, w[3]))
					fn->funcs[i]->uncounted = true;
			t.probe_failures++;
		} else if (!strcmp(w[0], "prune")) {	/* prune SECONDS: that much later, a prune */
			now += strtoull(w[1], NULL, 0) * MODEL_NSEC_PER_SEC;
			ex_totals_prune(&t, &m, now);
		} else if (!strcmp(w[0], "lost")) {	/* lost CORE EVENTS HITS: a source's losses */
			int c = !strcmp(w[1], "livepatch") ? MODEL_CORE_LIVEPATCH : MODEL_CORE_KLP;

			t.lost_events[c] += strtoull(w[2], NULL, 0);
			t.lost_hits[c] += strtoull(w[3], NULL, 0);
		} else if (!strcmp(w[0], "label")) {	/* label HEX: a value of those bytes, rendered */
			char v[64] = "";

			for (i = 0; i < sizeof(v) - 1 && 2 * i < strlen(w[1]) &&
				    sscanf(w[1] + 2 * i, "%2hhx", &v[i]) == 1; i++)
				;
			b.len = 0;
			ex_put_labels(&b, "comm", v, NULL);
			printf("%.*s\n", (int)b.len, b.s);
		} else if (!strcmp(w[0], "fuzzlabels")) {	/* fuzzlabels N: random values, HEX TAB rendered */
			static const char pick[] = "a\\\"\n\x80\xbf\xc0\xc2\xdf\xe0\xed\xa0\xef\xf0\xf4\x8f\xf5\xff\xbd";
			char v[24];
			long r;

			srand(1);
			for (r = atol(w[1]); r > 0; r--) {
				size_t len = rand() % sizeof(v);

				for (i = 0; i < len; i++)
					v[i] = rand() % 2 ? pick[rand() % (sizeof(pick) - 1)] : 1 + rand() % 255;
				v[len] = '\0';
				for (i = 0; v[i]; i++)
					printf("%02x", (unsigned char)v[i]);
				b.len = 0;
				ex_put_labels(&b, "comm", v, NULL);
				printf("\t%.*s\n", (int)b.len, b.s);
			}
		} else if (!strcmp(w[0], "render")) {	/* render text|om up|down [nocalls] */
			struct ex_view v = { .up = !strcmp(w[2], "up"), .model = &m, .totals = &t,
					     .no_calls = n > 3 && !strcmp(w[3], "nocalls") };

			b.len = 0;
			ex_render(&b, strcmp(w[1], "om") ? EX_TEXT : EX_OPENMETRICS, &v);
			fwrite(b.s, 1, b.len, stdout);
		} else if (!script_event(w, n, &e)) {
			ex_count_event(&t, &m, &e);
			klp_event_apply(&m, &lg, &e);
		}
	}
	model_free(&m);
	ex_totals_free(&t);
	free(b.s);
	return 0;
}
EOC
# shellcheck disable=SC2086 # the lists of rooms are words
unit_build "$tmp" snapshot $UNIT_MODEL $UNIT_KLP $UNIT_EXPORTER

# p1 enabled, winning f and a"b\c; p2 registered, disabled, also on f
cat > "$tmp/s1" <<'EOS'
seq 10
patch p1 1
info p1 D18882B9E144041D3E7CD16 CVE-2099-0001,CVE-2099-0002 1764860000123456789
object p1 vmlinux 1
func p1 vmlinux f 3 1 1 0xffffffff81000010 0xffffffffc0001000
func p1 vmlinux a"b\c 4 1 1 0xffffffff81000020 0xffffffffc0001100
patch p2 0
info p2 - - 0
object p2 vmlinux 1
func p2 vmlinux f 7 0 0 0xffffffff81000010 0xffffffffc0002000
EOS
# later, after lost events: p2 unregistered and registered again (f now
# has id 9) and winning f; p1 enabled still, now also on g
cat > "$tmp/s2" <<'EOS'
seq 30
patch p1 1
info p1 D18882B9E144041D3E7CD16 CVE-2099-0001,CVE-2099-0002 1764860000123456789
object p1 vmlinux 1
func p1 vmlinux f 3 2 2 0xffffffff81000010 0xffffffffc0001000
func p1 vmlinux a"b\c 4 1 1 0xffffffff81000020 0xffffffffc0001100
func p1 vmlinux g 5 1 1 0xffffffff81000030 0xffffffffc0001200
patch p2 1
info p2 - CVE-2099-0007 1764861111000000001
object p2 vmlinux 1
func p2 vmlinux f 9 1 2 0xffffffff81000010 0xffffffffc0003000
EOS

run() { "$tmp/t" <<< "load $tmp/s1
$1"; }
# series TEXT NAME: NAME's samples in TEXT, one per line
series() { grep -E "^$2(\{| )" <<< "$1"; }

out=$(run 'render text up')
assert_eq "patch info: srcversion and CVEs, empty labels for none" \
'klp_patch_info{patch="p1",srcversion="D18882B9E144041D3E7CD16",cve="CVE-2099-0001,CVE-2099-0002",core="klp"} 1
klp_patch_info{patch="p2",srcversion="",cve="",core="klp"} 1' "$(series "$out" klp_patch_info)"
assert_eq "enable timestamp: for the enabled patch, in seconds to the ns" \
	'klp_patch_enabled_timestamp_seconds{patch="p1",core="klp"} 1764860000.123456789' \
	"$(series "$out" klp_patch_enabled_timestamp_seconds)"
assert_eq "winners: the funcs on a stack, label values escaped" \
'klp_func_winner{object="vmlinux",function="a\"b\\c",patch="p1",core="klp"} 1
klp_func_winner{object="vmlinux",function="f",patch="p1",core="klp"} 1' "$(series "$out" klp_func_winner)"
check "no address in any series (hex or decimal)" \
	eval '! grep -v "^#" <<< "$out" | grep -qiE "ffffffff8100|ffffffffc000|1844674407157"'
check "promtool check metrics accepts the text" \
	eval 'promtool check metrics <<< "$out" > "$tmp/lint" 2>&1' || diag "$(cat "$tmp/lint")"

# p2 pushed over p1 on f and enabled; p1 then disabled (popped from
# below p2: f's winner stays), p2 disabled (f back to the original);
# p3's enable fails
script='hits 3 100
hits 3 5 4 2
push 11 p2 vmlinux f 7 2 p2 7 enable
enable 12 p2
hits 7 10
pop 13 p1 vmlinux f 3 1 p2 7 disable
pop 14 p2 vmlinux f 7 0 - 0 disable
enable 15 p3 -16
render text up'
out=$(run "$script")
assert_eq "redirects add up per function and winner across reads" \
'klp_func_redirects_total{object="vmlinux",function="a\"b\\c",patch="p1",core="klp"} 2
klp_func_redirects_total{object="vmlinux",function="f",patch="p1",core="klp"} 105
klp_func_redirects_total{object="vmlinux",function="f",patch="p2",core="klp"} 10' \
	"$(series "$out" klp_func_redirects_total)"
assert_eq "winner changes: p1 -> p2 and p2 -> original; not the pop below p2" \
	'klp_func_winner_changes_total{object="vmlinux",function="f",core="klp"} 2' \
	"$(series "$out" klp_func_winner_changes_total)"
assert_eq "transitions by patch and event" \
'klp_transitions_total{patch="p1",event="pop"} 1
klp_transitions_total{patch="p2",event="enable"} 1
klp_transitions_total{patch="p2",event="pop"} 1
klp_transitions_total{patch="p2",event="push"} 1
klp_transitions_total{patch="p3",event="enable"} 1' "$(series "$out" klp_transitions_total)"
assert_eq "a failed enable counted for its patch" 'klp_enable_failures_total{patch="p3"} 1' \
	"$(series "$out" klp_enable_failures_total)"

out=$(run 'pop 9 p1 vmlinux f 3 0 - 0 disable
push 10 p1 vmlinux f 3 1 p1 3 enable
render text up')
assert_eq "events the state file held: transitions counted, no winner change" \
	'0 2' "$(series "$out" klp_func_winner_changes_total | wc -l) $(series "$out" klp_transitions_total | awk '{ s += $2 } END { print s }')"

# p2 unregistered (its func leaves the model), then lost events: the
# state says p2 is back, f's func now id 9, winning f; p1 also on g
out=$(run "push 11 p2 vmlinux f 7 2 p2 7 enable
hits 7 10
pop 12 p2 vmlinux f 7 1 p1 3 disable
unregister 13 p2
state $tmp/s2
hits 9 1 5 4 unattributed 3
render text up")
assert_eq "a func gone and back under the same names: its counter resumes (10 + 1)" \
	'klp_func_redirects_total{object="vmlinux",function="f",patch="p2",core="klp"} 11' \
	"$(series "$out" klp_func_redirects_total | grep 'patch="p2"')"
assert_eq "... and g's calls to p1 under its own labels" \
'klp_func_redirects_total{object="vmlinux",function="g",patch="p1",core="klp"} 4' \
	"$(series "$out" klp_func_redirects_total | grep 'patch="p1"')"
assert_eq "... hits nobody could name counted apart" 'klp_exporter_unattributed_redirects_total 3' \
	"$(series "$out" klp_exporter_unattributed_redirects_total)"
# f: p1 -> p2 (push 11), p2 -> p1 (pop 12), p1 -> p2 (the reload); g
# appears with a winner (the reload); a"b\c stays p1's
assert_eq "a state reload counts each function whose winner it changed" \
'klp_func_winner_changes_total{object="vmlinux",function="f",core="klp"} 3
klp_func_winner_changes_total{object="vmlinux",function="g",core="klp"} 1' \
	"$(series "$out" klp_func_winner_changes_total)"
assert_eq "... and takes the new info (p2's cve, its enable time)" \
'klp_patch_info{patch="p2",srcversion="",cve="CVE-2099-0007",core="klp"} 1
klp_patch_enabled_timestamp_seconds{patch="p2",core="klp"} 1764861111.000000001' \
	"$(series "$out" 'klp_patch_(info|enabled_timestamp_seconds)' | grep 'patch="p2"')"

# p2 unregistered: its series (redirects, transitions) served 600 s on
# from the first prune that finds it gone, then dropped; p1's stay; p2
# back later: its counter starts again
gone="push 11 p2 vmlinux f 7 2 p2 7 enable
hits 7 10 3 1
pop 12 p2 vmlinux f 7 1 p1 3 disable
unregister 13 p2
prune 0
prune 599"
out=$(run "$gone
render text up")
assert_eq "a patch gone: its series still served 599 s after" \
'klp_func_redirects_total{object="vmlinux",function="f",patch="p2",core="klp"} 10
klp_transitions_total{patch="p2",event="pop"} 1
klp_transitions_total{patch="p2",event="push"} 1
klp_transitions_total{patch="p2",event="unregister"} 1' \
	"$(series "$out" 'klp_(func_redirects|transitions)_total' | grep 'patch="p2"')"
out=$(run "$gone
prune 1
render text up")
assert_eq "... dropped at 600 s; the function and func still there keep theirs" \
'klp_func_redirects_total{object="vmlinux",function="f",patch="p1",core="klp"} 1
klp_func_winner_changes_total{object="vmlinux",function="f",core="klp"} 2' \
	"$(series "$out" 'klp_(func_redirects|func_winner_changes|transitions)_total')"
out=$(run "$gone
prune 1
state $tmp/s2
hits 9 4
prune 3600
render text up")
check "... back after that: its counter starts again (4), promtool accepts the text" \
	eval 'series "$out" klp_func_redirects_total | grep -qx "klp_func_redirects_total{object=\"vmlinux\",function=\"f\",patch=\"p2\",core=\"klp\"} 4" &&
	      promtool check metrics <<< "$out" > "$tmp/lint" 2>&1' || diag "$(cat "$tmp/lint")"
out=$(run "hits 3 7
down
render text down")
assert_eq "the core absent: klp_up 0, no patch or func series" \
	"klp_up 0|0" "$(series "$out" klp_up)|$(grep -cE '^klp_(patch|func_winner|func_stack)[a-z_]*\{' <<< "$out")"
assert_eq "... the counters still there, as they were" \
	'klp_func_redirects_total{object="vmlinux",function="f",patch="p1",core="klp"} 7' \
	"$(series "$out" klp_func_redirects_total)"
check "... promtool check metrics accepts it" \
	eval 'promtool check metrics <<< "$out" > "$tmp/lint" 2>&1' || diag "$(cat "$tmp/lint")"

# the builtin livepatch's reads (source_livepatch.c) beside klp's: b1 on
# v, b2 stacked on it, read twice, b2 gone, b1 gone; u's winner b3 all
# along; then the klp core goes, the builtin's series stay
lp_script="lp vmlinux:u:b3 vmlinux:v:b1
lphits vmlinux v b1 5
lp vmlinux:u:b3 vmlinux:v:b2,b1
lphits vmlinux v b2 7
lp vmlinux:u:b3 vmlinux:v:b2,b1
lphits vmlinux v b2 1"
out=$(run "$lp_script
render text up")
assert_eq "the klp core up: both cores' winners side by side, the last enabled on top" \
'klp_func_winner{object="vmlinux",function="a\"b\\c",patch="p1",core="klp"} 1
klp_func_winner{object="vmlinux",function="f",patch="p1",core="klp"} 1
klp_func_winner{object="vmlinux",function="u",patch="b3",core="livepatch"} 1
klp_func_winner{object="vmlinux",function="v",patch="b2",core="livepatch"} 1
klp_func_winner{object="vmlinux",function="v",patch="b1",core="livepatch"} 0' \
	"$(series "$out" klp_func_winner)"
assert_eq "... builtin winner changes by patch name (its funcs have no id): v's two, u's one" \
'klp_func_winner_changes_total{object="vmlinux",function="u",core="livepatch"} 1
klp_func_winner_changes_total{object="vmlinux",function="v",core="livepatch"} 2' \
	"$(series "$out" klp_func_winner_changes_total)"
# a builtin func whose probe failed: its calls unknown, said by name
out=$(run "$lp_script
uncounted vmlinux v b2
render text")
assert_eq "a func whose probe failed: klp_func_uncounted names it, no other" \
'klp_func_uncounted{object="vmlinux",function="v",patch="b2",core="livepatch"} 1' \
	"$(series "$out" klp_func_uncounted)"
assert_eq "... and klp_exporter_probe_failures_total counts the failure" \
	"klp_exporter_probe_failures_total 1" "$(grep '^klp_exporter_probe_failures_total ' <<< "$out")"
check "... promtool check metrics accepts it" \
	eval 'promtool check metrics <<< "$out" > "$tmp/lint" 2>&1' || diag "$(cat "$tmp/lint")"
assert_eq "... the calls collector on: klp_exporter_collector_enabled says so" \
	'klp_exporter_collector_enabled{collector="calls"} 1' "$(series "$out" klp_exporter_collector_enabled)"
# --no-collector.calls: the calls' series are absent, the rest as it was
nocalls=$(run "$lp_script
uncounted vmlinux v b2
render text up nocalls")
calls_families='klp_func_redirects_total|klp_func_uncounted|klp_exporter_lost_redirects_total|klp_exporter_unattributed_redirects_total|klp_exporter_probe_failures_total'
assert_eq "--no-collector.calls: no series of the calls collector (their HELP and TYPE neither)" "" \
	"$(grep -E "^(# (HELP|TYPE) )?($calls_families)( |\{)" <<< "$nocalls")"
assert_eq "... klp_exporter_collector_enabled{collector=\"calls\"} 0" \
	'klp_exporter_collector_enabled{collector="calls"} 0' "$(series "$nocalls" klp_exporter_collector_enabled)"
assert_eq "... every other series as with it" \
	"$(grep -Ev "^(# (HELP|TYPE) )?($calls_families|klp_exporter_collector_enabled)( |\{)" <<< "$(run "$lp_script
uncounted vmlinux v b2
render text up")")" \
	"$(grep -Ev "^(# (HELP|TYPE) )?(klp_exporter_collector_enabled)( |\{)" <<< "$nocalls")"
check "... promtool check metrics accepts it" \
	eval 'promtool check metrics <<< "$nocalls" > "$tmp/lint" 2>&1' || diag "$(cat "$tmp/lint")"

out=$(run "$lp_script
lp vmlinux:u:b3 vmlinux:v:b1
lp vmlinux:u:b3
hits 3 2
down
lphits vmlinux u b3 4
render text down")
assert_eq "the klp core gone: klp_up 0, klp's gauges gone, the builtin's there" \
'klp_up 0
klp_patch_info{patch="b3",srcversion="",cve="",core="livepatch"} 1
klp_patch_enabled{patch="b3",core="livepatch"} 1
klp_func_winner{object="vmlinux",function="u",patch="b3",core="livepatch"} 1
klp_func_stack_depth{object="vmlinux",function="u",core="livepatch"} 1
klp_transition_in_progress{core="livepatch",patch="b3"} 0' \
	"$(grep -E '^klp_(up|patch_[a-z_]*|func_winner|func_stack_depth|transition_[a-z_]*)( |\{)' <<< "$out")"
assert_eq "... v's four winner changes (b2 off, b1 off), u's one" \
'klp_func_winner_changes_total{object="vmlinux",function="u",core="livepatch"} 1
klp_func_winner_changes_total{object="vmlinux",function="v",core="livepatch"} 4' \
	"$(series "$out" klp_func_winner_changes_total)"
assert_eq "... every redirect counter, of both cores, as it was" \
'klp_func_redirects_total{object="vmlinux",function="f",patch="p1",core="klp"} 2
klp_func_redirects_total{object="vmlinux",function="u",patch="b3",core="livepatch"} 4
klp_func_redirects_total{object="vmlinux",function="v",patch="b1",core="livepatch"} 5
klp_func_redirects_total{object="vmlinux",function="v",patch="b2",core="livepatch"} 8' \
	"$(series "$out" klp_func_redirects_total)"
check "... promtool check metrics accepts it" \
	eval 'promtool check metrics <<< "$out" > "$tmp/lint" 2>&1' || diag "$(cat "$tmp/lint")"

out=$(run "lost livepatch 3 5
lost klp 2 0
lost livepatch 1 0
render text up")
assert_eq "lost events and redirects of each core, labelled by core, 0 included" \
'klp_exporter_lost_events_total{core="klp"} 2
klp_exporter_lost_events_total{core="livepatch"} 4
klp_exporter_lost_redirects_total{core="klp"} 0
klp_exporter_lost_redirects_total{core="livepatch"} 5' \
	"$(series "$out" 'klp_exporter_lost_(events|redirects)_total')"

# label values of any bytes (a task's comm, set with prctl(PR_SET_NAME)):
# UTF-8 kept, each byte of no valid character U+FFFD and the byte in hex,
# a U+FFFD twice (no two values give one label), \\ \" \n escaped
r=$'\xef\xbf\xbd'	# U+FFFD
assert_eq "label values: valid UTF-8 kept; a stray, overlong, surrogate, too high or cut byte U+FFFD and its hex, each; U+FFFD twice" \
"comm=\"h"$'\xc3\xa9\xe2\x82\xac\xf0\x9f\x90\xa7'"\"
comm=\"a${r}FFb${r}C0${r}AFc\"
comm=\"${r}ED${r}A0${r}80${r}F4${r}90${r}80${r}80\"
comm=\"x${r}E2${r}82\\\\\\\"\\n\"
comm=\"$r$r${r}FF$r$r\"" \
	"$("$tmp/t" <<< 'label 68c3a9e282acf09f90a7
label 61ff62c0af63
label eda080f4908080
label 78e2825c220a
label efbfbdffefbfbd')"
# p1 in transition, held back by a task named with stray bytes
{ sed '/^patch p2/,$d' "$tmp/s1"; printf 'transition p1 1 3 1 50 1764860000000000000\nblocked 123 3 f sleep-\377\300\n'; } > "$tmp/s3"
out=$("$tmp/t" <<< "load $tmp/s3
render text up")
assert_eq "a task blocking a transition, its comm of stray bytes: U+FFFD and its hex for each" \
	'klp_transition_blocked_task_info{core="klp",patch="p1",pid="123",comm="sleep-'"${r}FF${r}C0"'",function="f",reason="on_stack"} 1' \
	"$(series "$out" klp_transition_blocked_task_info)"
check "... promtool check metrics accepts the whole text" \
	eval 'promtool check metrics <<< "$out" > "$tmp/lint" 2>&1' || diag "$(cat "$tmp/lint")"
# the escaper fuzzed: every value's text decodes as strict UTF-8 and,
# unescaped, is the value with each bad byte replaced (Python's decoder,
# resumed one byte after each error, is the reference; so no two values
# give one label)
"$tmp/t" <<< "fuzzlabels ${KLP_FUZZ_RUNS:-100000}" > "$tmp/fuzz" 2> "$tmp/fuzz.err" ||
	diag "$(head -c 2000 "$tmp/fuzz.err")"
assert_eq "label values: ${KLP_FUZZ_RUNS:-100000} random byte strings, each rendered as the reference says" \
	"${KLP_FUZZ_RUNS:-100000} ok" "$(python3 -c '
import codecs, re, sys
codecs.register_error("perbyte", lambda e: ("\0%02X" % e.object[e.start], e.start + 1))
n = 0
for line in open(sys.argv[1], "rb"):
    raw, _, text = line.rstrip(b"\n").partition(b"\t")
    want = bytes.fromhex(raw.decode()).decode("utf-8", "perbyte").replace(
        "\ufffd", "\ufffd\ufffd").replace("\0", "\ufffd")
    m = re.fullmatch(rb"comm=\"((?:[^\\\"\n]|\\[\\\"n])*)\"", text)
    got = m and re.sub(r"\\(.)", lambda c: "\n" if c[1] == "n" else c[1], m[1].decode("utf-8"))
    if got != want:
        sys.exit("%r rendered %r" % (raw, text))
    n += 1
print(n, "ok")' "$tmp/fuzz" 2>&1 | tail -n 3)"

out=$(run "$lp_script
hits 3 2
down
prune 0
prune 600
render text down")
assert_eq "the klp core gone 600 s: klp's series dropped, the builtin's there" \
'klp_func_redirects_total{object="vmlinux",function="v",patch="b1",core="livepatch"} 5
klp_func_redirects_total{object="vmlinux",function="v",patch="b2",core="livepatch"} 8' \
	"$(series "$out" klp_func_redirects_total)"

text=$(run "$script")
om=$(run "${script/render text up/render om up}")
assert_eq "OpenMetrics: the same samples" "$(grep -v '^#' <<< "$text")" "$(grep -v '^#' <<< "$om")"
assert_eq "... families: counters without _total, patch info an info" \
'# TYPE klp_patch info
# TYPE klp_func_redirects counter
# TYPE klp_exporter_errors counter' \
	"$(grep -E '^# TYPE (klp_patch|klp_func_redirects|klp_exporter_errors) ' <<< "$om")"
assert_eq "... ends with # EOF, which the text format has not" "# EOF|0" \
	"$(tail -n 1 <<< "$om")|$(grep -c '^# EOF' <<< "$text")"
ktap_finish
