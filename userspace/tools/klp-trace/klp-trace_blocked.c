// SPDX-License-Identifier: GPL-2.0
/*
 * klp-trace_blocked.c - the tasks that hold a builtin livepatch
 * transition back, as records in the names of klp's klp_task_blocked and
 * of klp_transition's sweep
 *
 * The builtin says nothing of its sweeps: every interval (-i, 1 s by
 * default) klp-trace reads its transitions as klptop does, from sysfs and
 * each task's /proc files (livepatch_transitions.c: the reasons running,
 * on_stack with the patched function named, or unknown, and what /proc
 * cannot tell), and prints, for each patch in transition, a
 * klp_task_blocked record per task not switched yet (once per task per
 * interval), then a klp_transition record with action=sweep and how many
 * of how many tasks are left.  klp-trace itself makes these records: they
 * carry its pid and CPU and the time of the read, and no sweep number.
 */
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "json.h"
#include "klp-trace.h"

/* " core=livepatch patch=P pid=N comm=C func=F reason=R" (JSON alike) */
static void print_task(FILE *out, bool json, const struct model_tr *tr,
		       const struct model_task *k)
{
	json_put_field(out, json, "core", CORE_LIVEPATCH);
	json_put_field(out, json, "patch", tr->patch);
	fprintf(out, json ? ",\"pid\":%d" : " pid=%d", k->pid);
	json_put_field(out, json, "comm", k->comm);
	json_put_field(out, json, "func", k->func);
	if (json)
		fprintf(out, ",\"reason\":%d,\"reason_sym\":\"%s\"", k->reason,
			model_block_reason_name(k->reason));
	else
		fprintf(out, " reason=%s", model_block_reason_name(k->reason));
}

/* One transition: its blocked tasks, then its progress. */
static int print_tr(struct klp_trace *t, const struct model_tr *tr,
		    unsigned long long ts, int cpu)
{
	struct lpt_rec r = {
		.event = "klp_transition",
		.target = tr->target,
		.action = KLP_TR_SWEEP,
		.pending = tr->pending,
		.total = tr->total,
		.ts = ts,
	};
	size_t i, len;
	char *text;
	FILE *out;

	for (i = 0; lp_wanted(t, "klp_task_blocked") && i < tr->nr_tasks; i++) {
		out = line_open(t, &text, &len, ts, cpu, getpid(),
				"klp_task_blocked", NULL);
		if (!out)
			return 1;
		print_task(out, t->env.json, tr, &tr->tasks[i]);
		if (line_close(t, out, &text, &len, false, 0))
			return 1;
	}
	if (!lp_wanted(t, r.event))
		return 0;
	snprintf(r.patch, sizeof(r.patch), "%s", tr->patch);
	out = line_open(t, &text, &len, ts, cpu, getpid(), r.event, NULL);
	if (!out)
		return 1;
	lpt_print_fields(out, t->env.json, &r);
	return line_close(t, out, &text, &len, false, 0);
}

/**
 * lpb_poll() - once an interval: the builtin's transitions, their blocked
 * tasks and progress as records
 * @t: klp-trace
 *
 * Return: 0, or non-zero when the trace must stop (out of memory, -c
 * reached).
 */
int lpb_poll(struct klp_trace *t)
{
	unsigned long long now = now_ns();
	int cpu = sched_getcpu();
	size_t i;
	int err;

	if (now < t->next_poll_ns)
		return 0;
	t->next_poll_ns = now + t->env.interval * 1000000000ULL;
	err = lp_sysfs_glance(&t->glance, NULL);
	lp_tr_builtin_scan(&t->trs, &t->glance, NULL);
	if (err)
		return 0;	/* no sysfs root now: nothing in transition */
	for (i = 0; i < t->trs.nr; i++)
		if (print_tr(t, t->trs.trs[i], now, cpu < 0 ? 0 : cpu))
			return 1;
	return 0;
}
