#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# klptop's model and klp's event applier (userspace/model/model.c,
# userspace/sources/klp/source_klp_events.c), driven from a state file and a
# script of the core's transition events: events the state file already
# holds (seq <= its seq) are logged but not applied again, the rest move
# the stacks in the core's order, every push and pop is logged at once with
# its cause (a failed enable shows its pushes and their rollback), and an
# event the model does not agree with asks for the state file again.  The
# JSON writer carries each transition's seq and cause.
. "$(dirname "$0")/../lib.sh"
ktap_start "klptop: model and event applier"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/t.c" <<'EOC'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "event_script.h"
#include "klptop.h"
#include "strbuf.h"

static struct model m;
static struct model_log lg;
static struct strbuf json_out;	/* reused from line to line, as klptop does */

static void show(void)
{
	size_t i;
	unsigned int j;

	for (i = 0; i < m.nr_patches; i++)
		printf("patch %s %s\n", m.patches[i]->name,
		       m.patches[i]->enabled ? "enabled" : "disabled");
	for (i = 0; i < m.nr_fns; i++) {
		printf("fn %s %s:", m.fns[i]->object, m.fns[i]->name);
		for (j = 0; j < m.fns[i]->depth; j++)
			printf(" %s:%u", m.fns[i]->stack[j]->patch->name,
			       m.fns[i]->stack[j]->id);
		printf("\n");
	}
	printf("resync %s\n", m.need_resync ? "yes" : "no");
	for (; lg.shown < lg.n; lg.shown++) {
		struct model_transition *t = &lg.ring[lg.shown % MODEL_LOG_LEN];
		const char *c = model_cause_name(t->cause);

		printf("log %llu %s %s: %s\n", t->seq, model_event_name(t->type),
		       c ? c : "-", t->text);
	}
}

/* one command per line of stdin; see the group's comment */
int main(void)
{
	struct kt_view v = { .rows = 20 };
	struct kt_totals tot = { 0 };
	char line[512], w[10][128];
	int n;

	while (fgets(line, sizeof(line), stdin)) {
		struct klp_transition_event e = { 0 };

		n = sscanf(line, "%127s %127s %127s %127s %127s %127s %127s %127s %127s %127s",
			   w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7], w[8], w[9]);
		if (n < 1)
			continue;
		if (!strcmp(w[0], "state")) {
			m.state_path = strdup(w[1]);
			printf("resync %d\n", klp_model_resync(&m));
			continue;
		}
		if (!strcmp(w[0], "show")) {
			show();
			continue;
		}
		if (!strcmp(w[0], "json")) {
			kt_print_json(&v, &m, &lg, &tot, &json_out);
			continue;
		}
		if (script_event(w, n, &e))
			continue;
		klp_event_apply(&m, &lg, &e);
	}
	model_free(&m);
	return 0;
}
EOC
# shellcheck disable=SC2086 # the lists of rooms are words
unit_build "$tmp" snapshot $UNIT_MODEL $UNIT_KLP $UNIT_KLPTOP

# p1 enabled on vmlinux's f and on mod's g; p2 registered, disabled; the
# state file holds the events up to seq 10
cat > "$tmp/state" <<'EOF'
seq 10
patch p1 1
object p1 vmlinux 1
func p1 vmlinux f 3 1 1 0xffffffff81000010 0xffffffffc0001000
object p1 mod 1
func p1 mod g 4 1 1 0xffffffffc0100000 0xffffffffc0001100
patch p2 0
object p2 vmlinux 1
func p2 vmlinux f 7 0 0 0xffffffff81000010 0xffffffffc0002000
stack vmlinux f 1 p1:3
stack mod g 1 p1:4
EOF

run() { "$tmp/t" <<< "state $tmp/state
$1"; }

assert_eq "the state file loaded: p1 wins f and g, p2 off the stacks" \
"resync 0
patch p1 enabled
patch p2 disabled
fn mod g: p1:4
fn vmlinux f: p1:3
resync no" "$(run show)"

# p1 disabled (9) and enabled again (10) before the state file was read:
# both are in it, so neither moves the model, even between the two
assert_eq "events the state file holds are logged, not applied again" \
"fn vmlinux f: p1:3
resync no
log 9 pop disable: patch p1 disabling: f now -> original (depth 0)
fn vmlinux f: p1:3
resync no
log 10 push enable: patch p1 enabling: f now -> p1 (depth 1)" \
	"$(run 'pop 9 p1 vmlinux f 3 0 - 0 disable
show
push 10 p1 vmlinux f 3 1 p1 3 enable
show' | grep -v '^patch\|^resync 0\|^fn mod')"

assert_eq "p2 enabled: pushed on f (it wins), then the enable, each logged at once" \
"patch p1 enabled
patch p2 enabled
fn mod g: p1:4
fn vmlinux f: p2:7 p1:3
resync no
log 11 push enable: patch p2 enabling: f now -> p2 (depth 2)
log 12 enable -: patch p2 enabled" \
	"$(run 'push 11 p2 vmlinux f 7 2 p2 7 enable
enable 12 p2
show' | tail -n +2)"

# p2 on f and h: pushed on f, refused on h, rolled back; the stacks are
# as before and the log says all of it, in the core's order
assert_eq "a failed enable: its push, the failure, the rollback, the error" \
"patch p1 enabled
patch p2 disabled
fn mod g: p1:4
fn vmlinux f: p1:3
resync no
log 11 push enable: patch p2 enabling: f now -> p2 (depth 2)
log 12 enable_failed -: patch p2 failed on vmlinux:h: Device or resource busy (-16)
log 13 pop rollback: patch p2 rolled back: f now -> p1 (depth 1)
log 14 enable -: patch p2 enable failed: Device or resource busy (-16)" \
	"$(run 'push 11 p2 vmlinux f 7 2 p2 7 enable
enable_failed 12 p2 vmlinux h -16
pop 13 p2 vmlinux f 7 1 p1 3 rollback
enable 14 p2 -16
show' | tail -n +2)"

assert_eq "a module going and coming: the pops and pushes say so, then the object" \
"fn mod g:
log 11 pop module_going: patch p1 reverting, module mod going: g now -> original (depth 0)
log 12 object module_going: patch p1 reverted, module mod going
fn mod g: p1:4
log 13 push module_coming: patch p1 applying to module mod: g now -> p1 (depth 1)
log 14 object module_coming: patch p1 applied to module mod" \
	"$(run 'pop 11 p1 mod g 4 0 - 0 module_going
object 12 p1 mod 2 module_going
show
push 13 p1 mod g 4 1 p1 4 module_coming
object 14 p1 mod 1 module_coming
show' | grep '^log\|^fn mod')"

assert_eq "p1 disabled: f back to the original, p1 off" \
"patch p1 disabled
fn vmlinux f:
log 12 disable -: patch p1 disabled" \
	"$(run 'pop 11 p1 vmlinux f 3 0 - 0 disable
disable 12 p1
show' | grep '^patch p1\|^fn vmlinux\|^log 12')"

assert_eq "an event the model does not agree with asks for the state file" \
	"resync yes" "$(run 'push 11 p2 vmlinux f 7 3 p2 7 enable
show' | grep '^resync [a-z]')"
assert_eq "a push of a patch the model does not know asks for it too" \
	"resync yes" "$(run 'push 11 p9 vmlinux f 9 2 p9 9 enable
show' | grep '^resync [a-z]')"
assert_eq "an unregistered patch goes, with its funcs" \
"patch p1 enabled
fn mod g: p1:4
fn vmlinux f: p1:3
resync no" "$(run 'unregister 11 p2
show' | grep -v '^log\|^resync 0')"

# p2, a replace patch: pushed on f over p1, then p1's pops (g back to the
# original) and p1 replaced
assert_eq "a replace: p1's pops say replaced, then p1 replaced by p2, disabled" \
"patch p1 disabled
patch p2 enabled
fn mod g:
fn vmlinux f: p2:7
resync no
log 11 push enable: patch p2 enabling: f now -> p2 (depth 2)
log 12 pop replace: patch p1 replaced: f now -> p2 (depth 1)
log 13 pop replace: patch p1 replaced: g now -> original (depth 0)
log 14 replaced replace: patch p1 replaced by p2
log 15 enable -: patch p2 enabled" \
	"$(run 'push 11 p2 vmlinux f 7 2 p2 7 enable
pop 12 p1 vmlinux f 3 1 p2 7 replace
pop 13 p1 mod g 4 0 - 0 replace
replaced 14 p1 p2
enable 15 p2
show' | tail -n +2)"
assert_eq "JSON: one replaced patch, g's winner the original (null)" "1 null" \
	"$(run 'pop 12 p1 vmlinux f 3 0 - 0 replace
pop 13 p1 mod g 4 0 - 0 replace
replaced 14 p1 p2
json' | tail -n 1 | jq -r '"\(.summary.replaced) \(.rows[] | select(.function == "g") | .winner)"')"
assert_eq "a replaced patch enabled again, then disabled: not counted replaced" 0 \
	"$(run 'replaced 14 p1 p2
enable 15 p1
disable 16 p1
json' | tail -n 1 | jq .summary.replaced)"
sed 's/^patch p1 1$/patch p1 0\nreplace p1 0 p2/' "$tmp/state" > "$tmp/state.replaced"
assert_eq "the state file's replace record counts" 1 \
	"$("$tmp/t" <<< "state $tmp/state.replaced
json" | tail -n 1 | jq .summary.replaced)"
assert_eq "callbacks are logged, a failure with its error" \
"log 11 callback module_coming: patch p1: pre_patch callback of mod
log 12 callback module_coming: patch p1: pre_patch callback of mod failed: No such device (-19)
log 13 callback disable: patch p1: post_unpatch callback of vmlinux" \
	"$(run 'callback 11 p1 mod 1 module_coming 0
callback 12 p1 mod 1 module_coming -19
callback 13 p1 vmlinux 4 disable 0
show' | grep '^log')"

json=$(run 'push 11 p2 vmlinux f 7 2 p2 7 enable
enable 12 p2
json' | tail -n 1)
assert_eq "JSON transitions carry the core's seq, the event and its cause" \
"11 push enable patch p2 enabling: f now -> p2 (depth 2)
12 enable null patch p2 enabled" \
	"$(jq -r '.transitions[] | "\(.seq) \(.event) \(.cause) \(.text)"' <<< "$json")"
assert_eq "JSON rows by name (no hits yet): mod's g, then vmlinux's f" \
	"g p1 4 | f p2,p1 7,3" \
	"$(jq -r '[.rows[] | "\(.function) \(.stack | join(",")) \(.ids | map(tostring) | join(","))"] | join(" | ")' <<< "$json")"
ktap_finish
