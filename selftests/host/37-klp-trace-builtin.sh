#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# klp-trace's records of the builtin livepatch (userspace/tools/klp-trace/
# klp-trace_builtin_rec.c), without tracefs, under ASan and UBSan: the
# kprobe fetch args each probe gets (the offsets from BTF in them, the
# patch's module name by @klp_transition_patch or the argument, the target
# by @klp_target_state); the records each hit makes, in klp's names and
# vocabulary (as bpf/livepatch.bpf.c gives them to klptop): start,
# complete with the enable or disable after it, reversed with the target
# it flips to, forced, and a refused enable with its error, paired with
# its entry by pid whichever of the two is read first; text and JSON.
# Then a bounded fuzz run of random hits (any probe, pid, order, name
# bytes): the pairing stays bounded, every record is well formed and every
# JSON line parses.
. "$(dirname "$0")/../lib.sh"
ktap_start "klp-trace: the builtin livepatch's records"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/t.c" <<'EOC'
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "klp-trace_builtin.h"

static const char *const probes[LPT_NR] = {
	"init", "complete", "reverse", "force", "enable", "enable_ret",
};

static void print(const struct lpt_rec *r, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		printf("%llu %s:", r[i].ts, r[i].event);
		lpt_print_fields(stdout, false, &r[i]);
		printf("\n{\"event\":\"%s\"", r[i].event);
		lpt_print_fields(stdout, true, &r[i]);
		printf("}\n");
	}
}

/* "PROBE PID TS PATCH TARGET RET" lines on stdin ("-": no patch) */
static int script(void)
{
	struct lpt_decoder d = {};
	struct lpt_rec r[2];
	char line[256], name[32], patch[128];
	struct lpt_hit h;
	int i;

	while (fgets(line, sizeof(line), stdin)) {
		memset(&h, 0, sizeof(h));
		if (sscanf(line, "%31s %d %llu %127s %d %d", name, &h.pid,
			   &h.ts, patch, &h.target, &h.ret) != 6)
			return 2;
		for (i = 0; i < LPT_NR && strcmp(name, probes[i]); i++)
			;
		h.probe = i;
		h.patch = strcmp(patch, "-") ? patch : NULL;
		print(r, lpt_decode(&d, &h, r));
	}
	printf("pending %d\n", d.nr_pending);
	return 0;
}

static int fetch(void)
{
	struct lpt_offsets off = { .patch_mod = 16, .module_name = 24 };
	char buf[256];
	int i;

	for (i = 0; i < LPT_NR; i++) {
		if (lpt_fetch_args(buf, sizeof(buf), i, &off))
			return 1;
		printf("%s %s: %s\n", probes[i], lpt_functions[i], buf);
	}
	printf("small buffer: %d\n", lpt_fetch_args(buf, 20, LPT_INIT, &off));
	return 0;
}

/* random hits; JSON lines on stdout for jq, broken invariants on stderr */
static int fuzz(long n, unsigned int seed)
{
	struct lpt_decoder d = {};
	unsigned long long ts = 0;
	struct lpt_rec r[2];
	char patch[200];
	struct lpt_hit h;
	long i;
	int k, len, j;

	srand(seed);
	for (i = 0; i < n; i++) {
		len = rand() % (int)sizeof(patch);
		for (j = 0; j < len; j++)
			patch[j] = 1 + rand() % 255;
		patch[len] = '\0';
		h.probe = rand() % (LPT_NR + 1);	/* one out of range */
		h.pid = rand() % 8;
		ts += rand() % 5;
		h.ts = ts - rand() % 3;		/* a little out of order */
		h.patch = rand() % 4 ? patch : NULL;
		h.target = rand() % 3 - 1;
		h.ret = rand() % 3 ? 0 : -(rand() % 40);
		k = lpt_decode(&d, &h, r);
		if (k < 0 || k > 2 || d.nr_pending < 0 ||
		    d.nr_pending > LPT_MAX_PENDING) {
			fprintf(stderr, "hit %ld: %d records, %d pending\n", i,
				k, d.nr_pending);
			return 1;
		}
		for (j = 0; j < k; j++) {
			if (strnlen(r[j].patch, LPT_NAME_LEN) == LPT_NAME_LEN ||
			    (!strcmp(r[j].event, "klp_patch_enable") &&
			     r[j].target != 1)) {
				fprintf(stderr, "hit %ld: a bad record\n", i);
				return 1;
			}
			printf("{\"event\":\"%s\"", r[j].event);
			lpt_print_fields(stdout, true, &r[j]);
			printf("}\n");
			/* the text form too, under the sanitizers */
			lpt_print_fields(stderr, false, &r[j]);
			fputc('\n', stderr);
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "fetch"))
		return fetch();
	if (argc > 3 && !strcmp(argv[1], "fuzz"))
		return fuzz(atol(argv[2]), atoi(argv[3]));
	return script();
}
EOC
unit_build "$tmp" json strbuf_lib klp-trace_builtin_rec

assert_eq "fetch args: the name in struct module through klp_patch.mod, the target from klp_target_state" \
'init klp_init_transition: patch=+24(+16($arg1)):string target=$arg2:s32
complete klp_complete_transition: patch=+24(+16(@klp_transition_patch)):string target=@klp_target_state:s32
reverse klp_reverse_transition: patch=+24(+16(@klp_transition_patch)):string target=@klp_target_state:s32
force klp_force_transition: patch=+24(+16(@klp_transition_patch)):string target=@klp_target_state:s32
enable klp_enable_patch: patch=+24(+16($arg1)):string
enable_ret klp_enable_patch: ret=$retval:s32
small buffer: -28' "$("$tmp/t" fetch)"

# a held enable reversed; a refused one; a forced one (as 43 drives them)
out=$("$tmp/t" <<'EOF'
enable 10 100 p2 0 0
init 10 101 p2 1 0
enable_ret 10 102 - 0 0
reverse 20 200 p2 1 0
complete 30 300 p2 0 0
enable 11 400 p3 0 0
enable_ret 11 401 - 0 -22
init 12 500 p2 1 0
force 20 600 p2 1 0
complete 30 700 p2 1 0
EOF
)
assert_eq "hits to records: start, reversed (the target it flips to), complete then disable, a refused enable with its error, forced, complete then enable" \
'101 klp_transition: core=livepatch patch=p2 target=1 action=start
{"event":"klp_transition","core":"livepatch","patch":"p2","target":1,"action":1,"action_sym":"start"}
200 klp_transition: core=livepatch patch=p2 target=0 action=reversed
{"event":"klp_transition","core":"livepatch","patch":"p2","target":0,"action":4,"action_sym":"reversed"}
300 klp_transition: core=livepatch patch=p2 target=0 action=complete
{"event":"klp_transition","core":"livepatch","patch":"p2","target":0,"action":3,"action_sym":"complete"}
300 klp_patch_disable: core=livepatch patch=p2 ret=0
{"event":"klp_patch_disable","core":"livepatch","patch":"p2","ret":0}
401 klp_patch_enable: core=livepatch patch=p3 ret=-22
{"event":"klp_patch_enable","core":"livepatch","patch":"p3","ret":-22}
500 klp_transition: core=livepatch patch=p2 target=1 action=start
{"event":"klp_transition","core":"livepatch","patch":"p2","target":1,"action":1,"action_sym":"start"}
600 klp_transition: core=livepatch patch=p2 target=1 action=forced
{"event":"klp_transition","core":"livepatch","patch":"p2","target":1,"action":5,"action_sym":"forced"}
700 klp_transition: core=livepatch patch=p2 target=1 action=complete
{"event":"klp_transition","core":"livepatch","patch":"p2","target":1,"action":3,"action_sym":"complete"}
700 klp_patch_enable: core=livepatch patch=p2 ret=0
{"event":"klp_patch_enable","core":"livepatch","patch":"p2","ret":0}
pending 0' "$out"

# the return read first (a buffer read before its entry's), by pid
out=$("$tmp/t" <<'EOF'
enable_ret 7 50 - 0 -16
enable 8 40 other 0 0
enable 7 45 p4 0 0
enable_ret 8 60 - 0 0
EOF
)
assert_eq "a return read before its entry waits for it; pids kept apart; a success prints nothing" \
'50 klp_patch_enable: core=livepatch patch=p4 ret=-16
{"event":"klp_patch_enable","core":"livepatch","patch":"p4","ret":-16}
pending 0' "$out"

out=$("$tmp/t" <<'EOF'
enable 7 45 p4 0 0
enable 7 46 p5 0 0
enable_ret 7 47 - 0 -2
enable 9 48 p9 0 0
EOF
)
assert_eq "an entry whose return never came is replaced by the pid's next; the pairing holds the one left" \
'47 klp_patch_enable: core=livepatch patch=p5 ret=-2
{"event":"klp_patch_enable","core":"livepatch","patch":"p5","ret":-2}
pending 1' "$out"

out=$(for i in $(seq 1 40); do echo "enable $i $i p$i 0 0"; done | "$tmp/t")
assert_eq "at most $((32)) halves held: the oldest go" "pending 32" "$out"

runs=${KLP_FUZZ_RUNS:-100000}
runs=$((runs < 200000 ? runs : 200000))
if "$tmp/t" fuzz "$runs" 1 > "$tmp/fuzz.json" 2> "$tmp/fuzz.err"; then
	ok "$runs random hits: no sanitizer report, no broken invariant"
else
	not_ok "$runs random hits: no sanitizer report, no broken invariant"
	grep -v '^ core=' "$tmp/fuzz.err" | head -n 30 | sed 's/^/#   /'
fi
check "... every JSON record parses ($(wc -l < "$tmp/fuzz.json") records)" \
	eval 'jq -e . "$tmp/fuzz.json" > /dev/null'
check "... every text record is one line led by its core" \
	eval '! grep -v "^ core=livepatch patch=" "$tmp/fuzz.err" | grep -q .'
ktap_finish
