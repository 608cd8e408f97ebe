// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * klp-exporter_transitions.c - the transitions in progress of both cores
 * (transition.h) as gauges: which patch is in transition and since when,
 * how many tasks hold it back and why, and the first of them by name
 */
#include <stdio.h>
#include <string.h>
#include "klp-exporter.h"

#define EX_BLOCKED_TASKS	10	/* tasks named per transition */
#define EX_BLOCKED_TASKS_S	"10"

static bool in_transition(const struct model_trset *s, const struct model_patch *p)
{
	size_t i;

	for (i = 0; i < s->nr; i++)
		if (!strcmp(s->trs[i]->core, model_core_names[p->core]) &&
		    !strcmp(s->trs[i]->patch, p->name))
			return true;
	return false;
}

/* A gauge sample with labels core and patch (and reason, unless NULL). */
static void tr_sample(struct strbuf *b, const char *name,
		      const struct model_tr *tr, const char *reason)
{
	sb_puts(b, name);
	sb_puts(b, "{");
	if (reason)
		ex_put_labels(b, "core", tr->core, "patch", tr->patch, "reason",
			   reason, NULL);
	else
		ex_put_labels(b, "core", tr->core, "patch", tr->patch, NULL);
	sb_puts(b, "}");
}

/*
 * The first EX_BLOCKED_TASKS tasks that hold each transition back, named:
 * a few series while a transition runs, none once it ends.
 */
static void render_blocked_tasks(struct strbuf *b, enum ex_format fmt,
				 const struct model_trset *s)
{
	char pid[16];
	size_t i, j;

	ex_header(b, fmt, "klp_transition_blocked_task_info", "info",
	       "A task the transition's last sweep could not switch (the first " EX_BLOCKED_TASKS_S " of each)");
	for (i = 0; i < s->nr; i++) {
		const struct model_tr *tr = s->trs[i];

		for (j = 0; j < tr->nr_tasks && j < EX_BLOCKED_TASKS; j++) {
			const struct model_task *t = &tr->tasks[j];

			/* the idle tasks share pid 0: told apart by comm */
			snprintf(pid, sizeof(pid), "%d", t->pid);
			sb_puts(b, "klp_transition_blocked_task_info{");
			ex_put_labels(b, "core", tr->core, "patch", tr->patch,
				   "pid", pid, "comm", t->comm, "function",
				   t->func, "reason",
				   model_block_reason_name(t->reason), NULL);
			sb_puts(b, "}");
			ex_put_value(b, 1);
		}
	}
}

/*
 * The transitions in progress, of both cores (transition.h): every klp
 * patch has klp_transition_in_progress, 0 or 1; a builtin patch has it
 * while its transition runs.
 */
void ex_render_transitions(struct strbuf *b, enum ex_format fmt,
			   const struct model *m)
{
	const struct model_trset *s = &m->trs;
	unsigned long long now = model_tr_realtime_ns();
	static const int reasons[] = { KLP_BLOCK_RUNNING, KLP_BLOCK_UNRELIABLE,
				       KLP_BLOCK_ON_STACK, MODEL_BLOCK_UNKNOWN };
	size_t i, j, r, n;

	ex_header(b, fmt, "klp_transition_in_progress", "gauge",
	       "1 while a transition of the patch runs (tasks left to switch), else 0");
	for (i = 0; i < m->nr_patches; i++) {
		sb_puts(b, "klp_transition_in_progress{");
		ex_put_labels(b, "core", model_core_names[m->patches[i]->core],
			      "patch", m->patches[i]->name, NULL);
		sb_puts(b, "}");
		ex_put_value(b, in_transition(s, m->patches[i]));
	}
	for (i = 0; i < s->nr; i++) {
		const struct model_patch *p =
			model_patch_find((struct model *)m, s->trs[i]->patch, false);

		if (p && !strcmp(model_core_names[p->core], s->trs[i]->core))
			continue;	/* above */
		tr_sample(b, "klp_transition_in_progress", s->trs[i], NULL);
		ex_put_value(b, 1);
	}
	ex_header(b, fmt, "klp_transition_seconds", "gauge",
	       "How long the transition in progress has run (a builtin one: since first seen)");
	for (i = 0; i < s->nr; i++) {
		const struct model_tr *tr = s->trs[i];
		unsigned long long d = now > tr->started_ns && tr->started_ns ?
				       now - tr->started_ns : 0;

		tr_sample(b, "klp_transition_seconds", tr, NULL);
		sb_printf(b, " %llu.%09llu\n", d / MODEL_NSEC_PER_SEC,
			  d % MODEL_NSEC_PER_SEC);
	}
	ex_header(b, fmt, "klp_transition_blocked_tasks", "gauge",
	       "Tasks the transition's last sweep could not switch, by reason");
	for (i = 0; i < s->nr; i++) {
		const struct model_tr *tr = s->trs[i];

		for (r = 0; r < ARRAY_SIZE(reasons); r++) {
			for (j = n = 0; j < tr->nr_tasks; j++)
				n += tr->tasks[j].reason == reasons[r];
			tr_sample(b, "klp_transition_blocked_tasks", tr,
				  model_block_reason_name(reasons[r]));
			ex_put_value(b, n);
		}
	}
	render_blocked_tasks(b, fmt, s);
}
