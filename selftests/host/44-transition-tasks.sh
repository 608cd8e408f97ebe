#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The tasks that hold a transition back, at the scale a patch on a common
# sleep path leaves (userspace/model/transition_model.c, model_tr_add_task(),
# run for each blocked task of every sweep: the builtin's scan of /proc
# each interval or scrape, klp's klp_task_blocked events):
# - 50,000 tasks (pids in a scattered order, two idle tasks sharing pid 0
#   told apart by their comm), then one in ten added again in the same
#   sweep: each task once, the one added again updated in place;
# - the array grows geometrically: at most 32 allocations for 50,000
#   tasks (one per task was quadratic in copies), and none at all for a
#   next sweep of as many (model_tr_clear_tasks() keeps the room);
# - the lookup is not a scan: the CPU time of 50,000 tasks against 5,000,
#   measured side by side in this one run (the least of three rounds of
#   each, interleaved), is under 30 times (linear ~10x; a scan of the
#   tasks added before is ~100x).  A ratio, never an absolute time.
. "$(dirname "$0")/../lib.sh"
ktap_start "transitions: 50,000 blocked tasks, each found in a few steps"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/t.c" <<'EOC'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
/* alloc_lib.c's xrealloc() under another name: the driver counts calls */
#define xrealloc kt_realloc_counted
#include "alloc_lib.c"
#undef xrealloc
#include "transition.h"

#define BIG	50000
#define SMALL	5000
#define ROUNDS	3

static unsigned long reallocs;

void *xrealloc(void *p, size_t n, size_t size);
void *xrealloc(void *p, size_t n, size_t size)
{
	reallocs++;
	return kt_realloc_counted(p, n, size);
}

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The i-th of n pids, 1..n in a scattered order (7919 is prime, not a
 * factor of n). */
static int pid_of(int i, int n)
{
	return (int)((long long)i * 7919 % n) + 1;
}

/* One sweep of n blocked tasks, one in ten added again; its CPU time. */
static double sweep(struct model_tr *tr, int n)
{
	char comm[KLP_COMM_LEN];
	double t0 = cpu_now();
	int i;

	model_tr_clear_tasks(tr);
	model_tr_add_task(tr, 0, "swapper/0", NULL, KLP_BLOCK_RUNNING);
	model_tr_add_task(tr, 0, "swapper/1", NULL, KLP_BLOCK_RUNNING);
	for (i = 0; i < n; i++) {
		snprintf(comm, sizeof(comm), "t%d", pid_of(i, n));
		model_tr_add_task(tr, pid_of(i, n), comm, "f", KLP_BLOCK_ON_STACK);
	}
	for (i = 0; i < n; i += 10)
		model_tr_add_task(tr, pid_of(i, n), "again", NULL,
			       KLP_BLOCK_RUNNING);
	model_tr_add_task(tr, 0, "swapper/1", "g", KLP_BLOCK_ON_STACK);
	return cpu_now() - t0;
}

/* Each pid once, the idle tasks by comm, the ones added again updated. */
static int check(const struct model_tr *tr, int n)
{
	char *seen = calloc(n + 1, 1);
	int bad = 0, again = 0, idle = 0;
	size_t j;

	for (j = 0; j < tr->nr_tasks; j++) {
		const struct model_task *t = &tr->tasks[j];

		if (!t->pid) {
			idle += !strcmp(t->comm, "swapper/0") ||
				(!strcmp(t->comm, "swapper/1") &&
				 !strcmp(t->func, "g"));
			continue;
		}
		if (t->pid > n || seen[t->pid]++)
			bad++;
		else if (t->reason == KLP_BLOCK_RUNNING &&
			 !strcmp(t->comm, "again") && !t->func[0])
			again++;
	}
	free(seen);
	printf("%d tasks: %zu rows, %d wrong, %d updated, %d idle\n",
	       n, tr->nr_tasks, bad, again, idle);
	return bad;
}

int main(void)
{
	struct model_trset s = { 0 };
	struct model_tr *big = model_tr_find(&s, MODEL_TR_CORE_LIVEPATCH, "big", true);
	struct model_tr *small = model_tr_find(&s, MODEL_TR_CORE_LIVEPATCH, "small", true);
	double tb = 1e9, ts = 1e9, t;
	int r;

	reallocs = 0;
	sweep(big, BIG);
	printf("allocations %lu\n", reallocs);
	check(big, BIG);
	reallocs = 0;
	sweep(big, BIG);
	printf("allocations again %lu\n", reallocs);
	check(big, BIG);
	sweep(small, SMALL);
	check(small, SMALL);
	for (r = 0; r < ROUNDS; r++) {
		t = sweep(small, SMALL);
		ts = t < ts ? t : ts;
		t = sweep(big, BIG);
		tb = t < tb ? t : tb;
	}
	printf("cpu %d %.6f %d %.6f\n", SMALL, ts, BIG, tb);
	printf("ratio %.1f\n", ts > 0 ? tb / ts : 1e9);
	model_tr_free(&s);
	return 0;
}
EOC
unit_build "$tmp" hindex transition_model
out=$("$tmp/t" 2>&1)
diag "$(grep '^cpu' <<< "$out")"
assert_eq "50,000 tasks, one in ten added again and two idle ones: each once, updated in place" \
	"50000 tasks: 50002 rows, 0 wrong, 5000 updated, 2 idle" \
	"$(grep '^50000 tasks' <<< "$out" | head -1)"
assert_eq "... and so in a next sweep of as many, and in one of 5,000" \
	$'50000 tasks: 50002 rows, 0 wrong, 5000 updated, 2 idle\n5000 tasks: 5002 rows, 0 wrong, 500 updated, 2 idle' \
	"$(grep 'tasks:' <<< "$out" | tail -2)"
n=$(sed -n 's/^allocations \([0-9]*\)$/\1/p' <<< "$out")
check "the array grows geometrically: $n allocations for 50,000 tasks (at most 32)" \
	test "${n:-99999}" -le 32
assert_eq "a next sweep of as many tasks allocates nothing" \
	"allocations again 0" "$(grep '^allocations again' <<< "$out")"
ratio=$(sed -n 's/^ratio //p' <<< "$out")
check "the cost of 50,000 tasks is under 30 times that of 5,000 (${ratio:-none}x; a scan is ~100x)" \
	awk -v r="${ratio:-1e9}" 'BEGIN { exit !(r < 30) }'
ktap_finish
