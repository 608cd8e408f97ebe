#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The transitions in progress and the tasks that hold them back, one model
# for both cores (userspace/model/transition_model.c, filled by
# sources/klp/source_klp_transitions.c and
# sources/livepatch/livepatch_transitions.c), driven without a kernel:
# - klp's source: the state file's transition and blocked lines (the
#   parser refuses what the contract rules out), then the klp_transition
#   and klp_task_blocked events newer than the file (a newer sweep's tasks
#   replace an older one's; reversed flips the target; complete and forced
#   close it; events the file already holds change nothing);
# - the builtin's source: a fake /sys/kernel/livepatch and /proc tree
#   (patch_state, stat, stack of each thread): switched/total, and each
#   task not switched with its reason (running, on_stack with the function,
#   unknown), enabling and disabling;
# - what klptop --json, the screen and klp-exporter make of it.
. "$(dirname "$0")/../lib.sh"
ktap_start "transitions: the model, klp's and the builtin's sources, JSON and metrics"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/t.c" <<'EOC'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "klp-exporter.h"
#include "klptop.h"
#include "livepatch_transitions.h"
#include "snapshot.h"
#include "source_klp.h"
#include "strbuf.h"

static struct model m;
static struct model_log lg;
static struct strbuf out;
static struct lp_glance glance;

static void show(void)
{
	size_t i, j;

	for (i = 0; i < m.trs.nr; i++) {
		const struct model_tr *tr = m.trs.trs[i];

		printf("tr %s %s target=%d sweep=%u pending=%u total=%u start=%s\n",
		       tr->core, tr->patch, tr->target, tr->sweep, tr->pending,
		       tr->total, !tr->started_ns ? "none" :
		       tr->start_seen ? "seen" : "given");
		for (j = 0; j < tr->nr_tasks; j++)
			printf("  task %d [%s] %s %s\n", tr->tasks[j].pid,
			       tr->tasks[j].comm,
			       model_block_reason_name(tr->tasks[j].reason),
			       tr->tasks[j].func[0] ? tr->tasks[j].func : "-");
	}
	if (!m.trs.nr)
		printf("no transition\n");
}

/* parse FILE: what klp_snapshot_read() says of it */
static void parse(const char *path)
{
	struct klp_snapshot snap;
	int err = klp_snapshot_read(&snap, path);

	if (err) {
		printf("error %d line %zu: %s\n", err, snap.bad_line, snap.bad_why);
		return;
	}
	printf("ok%s\n", snap.transition ? " transition" : "");
	klp_snapshot_free(&snap);
}

/*
 * event transition SEQ PATCH TARGET ACTION SWEEP PENDING TOTAL
 * event blocked SEQ PATCH SWEEP PID REASON FUNC|- COMM
 */
static void event(char w[][128])
{
	struct klp_transition_event e = { 0 };

	e.ts_ns = 1;
	e.seq = strtoull(w[2], NULL, 0);
	snprintf(e.patch, sizeof(e.patch), "%s", w[3]);
	if (!strcmp(w[1], "transition")) {
		e.type = KLP_EV_TRANSITION;
		e.depth = atoi(w[4]);
		e.ret = atoi(w[5]);
		e.id = atoi(w[6]);
		e.pending = atoi(w[7]);
		e.total = atoi(w[8]);
	} else {
		e.type = KLP_EV_TASK_BLOCKED;
		e.id = atoi(w[4]);
		e.pid = atoi(w[5]);
		e.ret = atoi(w[6]);
		snprintf(e.func, sizeof(e.func), "%s", strcmp(w[7], "-") ? w[7] : "");
		memcpy(e.comm, w[8], sizeof(e.comm));	/* unterminated if long */
	}
	klp_event_apply(&m, &lg, &e);
}

int main(void)
{
	struct kt_view v = { .rows = 20 };
	struct kt_totals tot = { 0 };
	struct ex_totals ext = { 0 };
	char line[512], w[10][128];
	int n;

	while (fgets(line, sizeof(line), stdin)) {
		n = sscanf(line, "%127s %127s %127s %127s %127s %127s %127s %127s %127s",
			   w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7], w[8]);
		if (n < 1)
			continue;
		if (!strcmp(w[0], "state")) {
			m.state_path = strdup(w[1]);
			printf("resync %d\n", klp_model_resync(&m));
			free((char *)m.state_path);
		} else if (!strcmp(w[0], "parse")) {
			parse(w[1]);
		} else if (!strcmp(w[0], "event")) {
			event(w);
		} else if (!strcmp(w[0], "builtin")) {
			n = lp_sysfs_glance(&glance, w[1]);
			lp_tr_builtin_scan(&m.trs, &glance, w[2]);
			printf("scan %d\n", n);
		} else if (!strcmp(w[0], "resync?")) {
			printf("need resync %s\n", m.need_resync ? "yes" : "no");
			m.need_resync = false;
		} else if (!strcmp(w[0], "show")) {
			show();
		} else if (!strcmp(w[0], "log")) {
			for (; lg.shown < lg.n; lg.shown++)
				printf("log %s\n", lg.ring[lg.shown % MODEL_LOG_LEN].text);
		} else if (!strcmp(w[0], "filter")) {
			v.patch = strdup(w[1]);
		} else if (!strcmp(w[0], "json")) {
			v.realtime_off_ns = model_tr_realtime_ns();
			kt_print_json(&v, &m, &lg, &tot, &out);
		} else if (!strcmp(w[0], "screen")) {
			v.noclear = true;
			v.realtime_off_ns = model_tr_realtime_ns();
			kt_print_screen(&v, &m, &lg, &tot);
		} else if (!strcmp(w[0], "metrics")) {
			struct ex_view ev = { .up = true, .model = &m, .totals = &ext };

			out.len = 0;
			ex_render(&out, EX_TEXT, &ev);
			fwrite(out.s, 1, out.len, stdout);
		}
	}
	free((char *)v.patch);
	model_free(&m);
	lp_glance_free(&glance);
	ex_totals_free(&ext);
	sb_free(&out);
	return 0;
}
EOC
# shellcheck disable=SC2086 # the lists of rooms are words
unit_build "$tmp" snapshot $UNIT_MODEL $UNIT_KLP $UNIT_KLPTOP $UNIT_EXPORTER \
	livepatch_transitions livepatch_sysfs_lib readat_lib klptop_tty klptop_keys
run() { "$tmp/t" 2>&1; }

# --- the parser: transition and blocked lines -------------------------------
st() { printf 'seq 10\npatch p1 1\ninfo p1 - - 0\n%s\n' "$1" > "$tmp/st"; "$tmp/t" <<< "parse $tmp/st"; }
assert_eq "a transition with blocked tasks, a comm with spaces, idle tasks sharing pid 0" "ok transition" \
	"$(st $'transition p1 1 3 3 50 1764860000000000000\nblocked 12 3 f kworker/0:1 H x\nblocked 0 1 - swapper/0\nblocked 0 1 - swapper/1\nblocked 13 2 - a')"
assert_eq "no transition line: none" "ok" "$(st 'stack x')"
assert_eq "a second transition is refused" \
	"error -71 line 5: a second transition (first at line 4)" \
	"$(st $'transition p1 1 3 2 50 1\ntransition p1 0 3 2 50 1')"
assert_eq "a blocked task outside a transition is refused" \
	"error -71 line 4: a blocked task outside a transition" "$(st 'blocked 12 3 f k')"
assert_eq "an idle task (pid 0, by comm) blocked twice in one sweep is refused" \
	"error -71 line 6: task 0 swapper/1 again (first at line 5)" \
	"$(st $'transition p1 1 3 2 50 1\nblocked 0 1 - swapper/1\nblocked 0 1 - swapper/1')"
assert_eq "a task blocked twice in one sweep is refused" \
	"error -71 line 6: task 12 k again (first at line 5)" \
	"$(st $'transition p1 1 3 2 50 1\nblocked 12 3 f k\nblocked 12 1 - k')"
assert_eq "more tasks pending than there are is refused" \
	"error -71 line 4: 51 tasks pending of 50" "$(st 'transition p1 1 3 51 50 1')"
assert_eq "a transition of a patch not listed is refused" \
	"error -71 line 4: a transition of patch p9, not listed" "$(st 'transition p9 1 3 2 50 1')"
assert_eq "on_stack without a function is refused" \
	"error -71 line 5: a function on the stack, but none named" \
	"$(st $'transition p1 1 3 2 50 1\nblocked 12 3 - k')"
assert_eq "a comm longer than TASK_COMM_LEN is refused" \
	"error -71 line 5: a comm longer than 15 characters" \
	"$(st $'transition p1 1 3 2 50 1\nblocked 12 1 - 0123456789abcdef')"
for bad in 'transition p1 2 3 2 50 1' 'transition p1 1 3 2 50' 'transition p1 1 -3 2 50 1' \
	$'transition p1 1 3 2 50 1\nblocked 12 4 - k' $'transition p1 1 3 2 50 1\nblocked 12 3 f' \
	$'transition p1 1 3 2 50 1\nblocked x 3 f k' $'transition p1 1 3 2 50 1\nblocked' \
	$'transition p1 1 3 2 50 1\nblocked  12 3 f k'; do
	r=$(st "$bad")
	check "refused: $(tr '\n' '|' <<< "$bad")" grep -q '^error -71 line [45]' <<< "$r"
done

# --- klp's source: state file, then events ---------------------------------
cat > "$tmp/s1" <<'EOS'
seq 10
patch p1 1
info p1 - - 0
transition p1 1 3 2 50 1764860000000000000
blocked 12 3 f kworker/0:1 H
blocked 0 1 - swapper/1
patch p2 0
EOS
out=$(run <<EOS
state $tmp/s1
show
event blocked 9 p1 4 77 3 f old
event transition 10 p1 1 2 3 2 50
show
event blocked 11 p1 4 12 3 g kworker/0:1
event blocked 11 p1 4 0 1 - swapper/0
event blocked 11 p1 4 0 1 - swapper/0
event blocked 11 p1 3 99 3 f stale
event transition 12 p1 1 2 4 1 50
show
event transition 13 p1 0 4 4 1 50
show
event blocked 14 p1 5 12 1 - 0123456789abcdefXYZ
show
event transition 15 p1 0 3 5 0 50
show
event transition 16 p2 1 1 0 50 50
show
event transition 17 p2 1 5 0 50 50
show
log
EOS
)
assert_eq "the state file's transition, its blocked tasks; events it holds change nothing; a newer sweep replaces the tasks, a task (an idle one by comm) once per sweep; reversed flips the target; complete and forced close it" \
"resync 0
tr klp p1 target=1 sweep=3 pending=2 total=50 start=given
  task 12 [kworker/0:1 H] on_stack f
  task 0 [swapper/1] running -
tr klp p1 target=1 sweep=3 pending=2 total=50 start=given
  task 12 [kworker/0:1 H] on_stack f
  task 0 [swapper/1] running -
tr klp p1 target=1 sweep=4 pending=1 total=50 start=given
  task 12 [kworker/0:1] on_stack g
  task 0 [swapper/0] running -
tr klp p1 target=0 sweep=4 pending=1 total=50 start=given
  task 12 [kworker/0:1] on_stack g
  task 0 [swapper/0] running -
tr klp p1 target=0 sweep=4 pending=1 total=50 start=given
  task 12 [0123456789abcde] running -
no transition
tr klp p2 target=1 sweep=0 pending=50 total=50 start=given
no transition
log patch p1 disabling: transition reversed, 1 of 50 tasks pending
log patch p1 disabling: transition complete, 0 of 50 tasks pending
log patch p2 enabling: transition start, 50 of 50 tasks pending
log patch p2 enabling: transition forced, 50 of 50 tasks pending" "$out"

out=$(run <<EOS
state $tmp/s1
event transition 11 p2 1 2 1 0 50
resync?
event blocked 12 p2 1 5 3 f k
resync?
event transition 13 p1 1 2 4 51 50
resync?
event blocked 14 p1 4 5 9 f k
resync?
event transition 15 p1 1 9 4 1 50
resync?
event transition 16 p1 1 2 4 1 50
resync?
show
EOS
)
assert_eq "events the model cannot place (a transition never seen start, more pending than total, an action or reason outside the contract) ask for the state file and change nothing" \
"resync 0
need resync yes
need resync yes
need resync yes
need resync yes
need resync yes
need resync no
tr klp p1 target=1 sweep=4 pending=1 total=50 start=given
  task 12 [kworker/0:1 H] on_stack f
  task 0 [swapper/1] running -" "$out"

# --- the builtin's source: a fake sysfs and /proc ---------------------------
lp=$tmp/lp proc=$tmp/proc
mkdir -p "$lp/p1/vmlinux/cmdline_proc_show,1" "$lp/p1/vmlinux/version_proc_show,0" "$lp/p2"
echo 1 > "$lp/p1/enabled"; echo 1 > "$lp/p1/transition"; echo 1 > "$lp/p1/vmlinux/patched"
echo 1 > "$lp/p2/enabled"; echo 0 > "$lp/p2/transition"
# task TGID TID STATE STAT-COMM STAT-STATE [STACK...]
task() {
	local d=$proc/$1/task/$2
	mkdir -p "$d"
	echo "$3" > "$d/patch_state"
	echo "$2 ($4) $5 1 0 0 0 -1" > "$d/stat"
	shift 5
	printf '%s\n' "$@" > "$d/stack"
}
task 100 100 1 done S '[<0>] do_syscall_64+0x5/0x10'
task 200 200 0 'kthr a) b' D '[<0>] schedule+0x2c/0x80' '[<0>] cmdline_proc_show+0x15/0x30' '[<0>] kthread+0x1/0x2'
task 200 201 0 busy R '[<0>] cmdline_proc_show+0x15/0x30'
task 300 300 0 idle S '[<0>] schedule+0x2c/0x80' '[<0>] livepatch_cmdline_proc_show+0x5/0x10 [p1]'
task 400 400 -1 leaving S
mkdir -p "$proc/self"
out=$(run <<< "builtin $lp $proc
show")
# readdir's order is the file system's: compared sorted
assert_eq "enabling: switched 1 of 4 (-1: not in it), the rest each with its reason, on_stack naming the function" \
"  task 200 [kthr a) b] on_stack cmdline_proc_show
  task 201 [busy] running -
  task 300 [idle] unknown -
scan 0
tr livepatch p1 target=1 sweep=0 pending=3 total=4 start=seen" "$(sort <<< "$out")"
echo 0 > "$lp/p1/enabled"
echo 1 > "$proc/300/task/300/patch_state"
out=$(run <<< "builtin $lp $proc
show")
assert_eq "disabling: the patch's own module's function on the stack holds it" \
"  task 100 [done] unknown -
  task 300 [idle] on_stack livepatch_cmdline_proc_show
scan 0
tr livepatch p1 target=0 sweep=0 pending=2 total=4 start=seen" "$(sort <<< "$out")"
echo 0 > "$lp/p1/transition"
assert_eq "transition 0: none" $'scan 0\nno transition' "$(run <<< "builtin $lp $proc
show")"
assert_eq "no builtin livepatch (no sysfs root): none, no error" $'scan 0\nno transition' \
	"$(run <<< "builtin $tmp/none $proc
show")"

# --- what klptop --json, its screen and klp-exporter make of it -------------
echo 1 > "$lp/p1/transition"; echo 1 > "$lp/p1/enabled"
echo 0 > "$proc/300/task/300/patch_state"
out=$(run <<< "state $tmp/s1
builtin $lp $proc
json
screen
metrics")
json=$(grep '^{' <<< "$out")
check "klptop --json: one line that parses" python3 -c 'import json,sys; json.loads(sys.argv[1])' "$json"
assert_eq "klptop --json: each transition with core, target, switched/total, and its tasks" \
"klp p1 1 start 3 48/50 [(12, 'kworker/0:1 H', 'f', 'on_stack'), (0, 'swapper/1', None, 'running')]
livepatch p1 1 first_seen 0 1/4 [(200, 'kthr a) b', 'cmdline_proc_show', 'on_stack'), (201, 'busy', None, 'running'), (300, 'idle', None, 'unknown')]" \
"$(python3 -c '
import json, sys
for t in json.loads(sys.argv[1])["transitions_in_progress"]:
    assert t["switched"] + t["pending"] == t["total"] and t["elapsed"] >= 0
    print(t["core"], t["patch"], t["target"], t["elapsed_from"], t["sweep"],
          "%d/%d" % (t["switched"], t["total"]),
          sorted([(b["pid"], b["comm"], b["function"], b["reason"]) for b in t["blocked"]],
                 key=lambda b: (b[0] == 0, b[0])))' "$json")"
check "screen: the transition line" grep -q '^TRANSITION livepatch p1 enabling  [0-9.]*s (seen)  switched 1/4$' <<< "$out"
check "screen: the task holding it, with its function" \
	grep -qE '^ +200 kthr a\) b +on_stack +cmdline_proc_show$' <<< "$out"
assert_eq "metrics: in progress, by core and patch" \
'klp_transition_in_progress{core="klp",patch="p1"} 1
klp_transition_in_progress{core="klp",patch="p2"} 0
klp_transition_in_progress{core="livepatch",patch="p1"} 1' \
	"$(grep '^klp_transition_in_progress{' <<< "$out")"
assert_eq "metrics: the blocked tasks by reason" \
'klp_transition_blocked_tasks{core="klp",patch="p1",reason="on_stack"} 1
klp_transition_blocked_tasks{core="klp",patch="p1",reason="running"} 1
klp_transition_blocked_tasks{core="klp",patch="p1",reason="unknown"} 0
klp_transition_blocked_tasks{core="klp",patch="p1",reason="unreliable"} 0
klp_transition_blocked_tasks{core="livepatch",patch="p1",reason="on_stack"} 1
klp_transition_blocked_tasks{core="livepatch",patch="p1",reason="running"} 1
klp_transition_blocked_tasks{core="livepatch",patch="p1",reason="unknown"} 1
klp_transition_blocked_tasks{core="livepatch",patch="p1",reason="unreliable"} 0' \
	"$(grep '^klp_transition_blocked_tasks{' <<< "$out" | sort)"
assert_eq "metrics: each task that holds a transition, named (pid, comm, function, reason)" \
'klp_transition_blocked_task_info{core="klp",patch="p1",pid="0",comm="swapper/1",function="",reason="running"} 1
klp_transition_blocked_task_info{core="klp",patch="p1",pid="12",comm="kworker/0:1 H",function="f",reason="on_stack"} 1
klp_transition_blocked_task_info{core="livepatch",patch="p1",pid="200",comm="kthr a) b",function="cmdline_proc_show",reason="on_stack"} 1
klp_transition_blocked_task_info{core="livepatch",patch="p1",pid="201",comm="busy",function="",reason="running"} 1
klp_transition_blocked_task_info{core="livepatch",patch="p1",pid="300",comm="idle",function="",reason="unknown"} 1' \
	"$(grep '^klp_transition_blocked_task_info{' <<< "$out" | sort)"
secs=$(sed -n 's/^klp_transition_seconds{core="klp",patch="p1"} //p' <<< "$out")
check "metrics: the klp transition's age from its start in the state file ($secs s)" \
	awk -v s="$secs" -v now="$(date +%s)" 'BEGIN { exit !(s > now - 1764860000 - 5 && s < now - 1764860000 + 5) }'
check "metrics: the builtin's age from when it was first seen" \
	grep -qE '^klp_transition_seconds\{core="livepatch",patch="p1"\} 0\.' <<< "$out"
out=$(run <<< "state $tmp/s1
builtin $lp $proc
filter p[2-9]
json
screen")
assert_eq "klptop -p: only the transitions of the patches it names, in the JSON and on the screen" \
	"0 0" "$(grep '^{' <<< "$out" | jq '.transitions_in_progress | length') $(grep -c '^TRANSITION' <<< "$out")"
out=$(run <<< "state $tmp/s1
builtin $lp $proc
filter p1
json
screen")
assert_eq "... and all of those it names" \
	"2 2" "$(grep '^{' <<< "$out" | jq '.transitions_in_progress | length') $(grep -c '^TRANSITION' <<< "$out")"

# a comm is the task's choice: no escape sequence reaches the terminal
printf 'seq 1\npatch p1 1\ntransition p1 1 1 1 9 1\nblocked 66 1 - \033]0;pwn\a\n' > "$tmp/s2"
out=$(run <<< "state $tmp/s2
screen
json")
check "screen: a comm's control characters show as ?" grep -qE '^ +66 \?]0;pwn\? +running' <<< "$out"
check "... and none reaches the output raw" test "$(tr -d '\033\007' <<< "$out" | wc -c)" = "$(wc -c <<< "$out")"
check "JSON: the comm escaped" grep -qF '"comm":"\u001b]0;pwn\u0007"' <<< "$out"
if command -v promtool > /dev/null; then
	sed -n '/^# HELP/,$p' <<< "$out" > "$tmp/m.prom"
	check "metrics: promtool check metrics finds nothing wrong" promtool check metrics < "$tmp/m.prom"
fi
ktap_finish
