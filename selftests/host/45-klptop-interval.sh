#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# klptop's interval: HITS and HITS/s are the calls of the last interval,
# TOTAL those since it started, whichever sources are open.  The model
# starts each interval (model_interval_start(), called by klptop's
# refresh before any source counts); the sources add with
# model_func_add_hits() (klp's counter reader, the builtin's kprobe counts);
# kt_interval_totals() makes the rates; the screen shows them.  Driven
# without a kernel, as klptop's refresh runs them:
# - without klp's source (no klp.ko): a builtin patch's calls, 10 in the
#   first interval of 1 s, 3 in the next of 0.5 s: HITS 3, HITS/s 6.0,
#   TOTAL 13 (klptop showed 13 and 26.0: only klp's reader started an
#   interval);
# - with both: klp's counted calls and the builtin's, each per interval.
. "$(dirname "$0")/../lib.sh"
ktap_start "klptop: each interval's calls, with or without klp's source"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/t.c" <<'EOC'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "klptop.h"
#include "source_klp.h"

#define NCPUS 2

static struct model m;
static struct model_log lg;
static struct klp_counters c;
static unsigned long long map[NCPUS * KLP_MAX_HIT_KEYS];

/* The builtin's patch lp1 on vmlinux's cmdline_proc_show, as its sysfs
 * reader puts it in the model. */
static void builtin_patch(void)
{
	struct model_patch *p = model_patch_find(&m, "lp1", true);
	struct model_fn *fn = model_fn_find(&m, "vmlinux", "cmdline_proc_show", true);

	p->core = MODEL_CORE_LIVEPATCH;
	p->enabled = true;
	model_stack_push(fn, model_func_bind(&m, p, fn, 0));
}

/*
 * "state FILE" (klp's patches; then the builtin's), "start" (an
 * interval), "klp ID N" (N calls on klp's counter ID), "klpread" (klp's
 * counters read), "builtin N" (N calls of the builtin's func), "end SECS"
 * (the interval's totals and the screen)
 */
int main(void)
{
	struct kt_view v = { .rows = 20, .sort = KT_SORT_NAME, .nosummary = true };
	char line[256], w[3][128];
	struct kt_totals tot;
	struct model_fn *fn;
	int n;

	klp_counters_init(&c, map, NCPUS);
	while (fgets(line, sizeof(line), stdin)) {
		n = sscanf(line, "%127s %127s %127s", w[0], w[1], w[2]);
		if (n < 1)
			continue;
		if (!strcmp(w[0], "state")) {
			m.state_path = strdup(w[1]);
			if (klp_model_resync(&m))
				printf("resync failed\n");
			builtin_patch();
		} else if (!strcmp(w[0], "start")) {
			model_interval_start(&m);
		} else if (!strcmp(w[0], "klp") && n == 3) {
			map[atoi(w[1])] += atoll(w[2]);
		} else if (!strcmp(w[0], "klpread")) {
			if (klp_counters_update(&c, &m))
				printf("update failed\n");
		} else if (!strcmp(w[0], "builtin") && n == 2) {
			fn = model_fn_find(&m, "vmlinux", "cmdline_proc_show", false);
			model_func_add_hits(fn->funcs[0], atoll(w[1]));
		} else if (!strcmp(w[0], "end") && n == 2) {
			memset(&tot, 0, sizeof(tot));
			tot.elapsed = atof(w[1]);
			kt_interval_totals(&m, c.interval_unknown, &tot);
			printf("interval hits %llu rate %.1f\n", tot.hits, tot.rate);
			kt_print_screen(&v, &m, &lg, &tot);
		}
	}
	klp_counters_free(&c);
	model_free(&m);
	free((char *)m.state_path);
	return 0;
}
EOC
# shellcheck disable=SC2086 # the lists of rooms are words
unit_build "$tmp" snapshot $UNIT_MODEL $UNIT_KLP $UNIT_KLPTOP source_klp_counters \
	klptop_tty klptop_keys

printf 'seq 1\npatch p1 1\nobject p1 vmlinux 1\nfunc p1 vmlinux f 3 1 1 0xffffffff81000010 0xffffffffc0001000\n' \
	> "$tmp/s1"
# row NAME: "CORE HITS HITS/s TOTAL" of function NAME on the screens
row() { awk -v f="$1" '$3 == f { print $1, $(NF - 2), $(NF - 1), $NF }' <<< "$out"; }

# without klp's source: the builtin's calls alone, as klptop without klp.ko
out=$("$tmp/t" 2>&1 <<EOS
state $tmp/s1
start
builtin 10
end 1
start
builtin 3
end 0.5
start
end 2
EOS
)
assert_eq "without klp's source: the builtin's func, each interval's HITS and HITS/s, TOTAL since the start" \
"livepatch 10 10.0 10
livepatch 3 6.0 13
livepatch 0 0.0 13" "$(row cmdline_proc_show)"
assert_eq "... and the summary's sum of each interval" \
"interval hits 10 rate 10.0
interval hits 3 rate 6.0
interval hits 0 rate 0.0" "$(grep '^interval' <<< "$out")"

# both: klp's counters read into the same intervals
out=$("$tmp/t" 2>&1 <<EOS
state $tmp/s1
start
klp 3 5
klpread
builtin 10
end 1
start
klp 3 1
klpread
builtin 3
end 1
EOS
)
assert_eq "with klp's source too: each core's calls of each interval" \
"klp 5 5.0 5
klp 1 1.0 6
livepatch 10 10.0 10
livepatch 3 3.0 13" "$(row f; row cmdline_proc_show)"
assert_eq "... and their sum" $'interval hits 15 rate 15.0\ninterval hits 4 rate 4.0' \
	"$(grep '^interval' <<< "$out")"
ktap_finish
