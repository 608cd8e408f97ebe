// SPDX-License-Identifier: GPL-2.0
/*
 * klp-trace_select.c - which cores klp-trace traces and which of their
 * events: the klp core's where its events are in tracefs, the builtin
 * livepatch's where its functions can be probed (klp-trace_builtin.c),
 * narrowed by --core and -e
 */
#include <stdio.h>
#include <string.h>

#include <tracefs.h>
#include <event-parse.h>

#include "klp-trace.h"
#include "livepatch_sysfs.h"

static int add_event(struct klp_trace *t, struct tep_event *event)
{
	int i;

	for (i = 0; i < t->nr_evs; i++)
		if (t->evs[i].event == event)
			return 0;
	if (t->nr_evs == MAX_EVENTS) {
		fprintf(stderr, "klp-trace: more than %d klp events\n", MAX_EVENTS);
		return -1;
	}
	if (ev_info_init(&t->evs[t->nr_evs], event)) {
		fprintf(stderr, "klp-trace: out of memory\n");
		return -1;
	}
	t->nr_evs++;
	return 0;
}

/* The builtin's records go by these names of klp's events. */
static bool lp_name(const char *name)
{
	return !strcmp(name, "klp_transition") ||
	       !strcmp(name, "klp_redirect") ||
	       !strcmp(name, "klp_task_blocked") ||
	       !strcmp(name, "klp_patch_enable") ||
	       !strcmp(name, "klp_patch_disable");
}

/* Whether the builtin's records named @name print (-e). */
bool lp_wanted(const struct klp_trace *t, const char *name)
{
	int i;

	if (!t->env.nr_events)
		return true;
	for (i = 0; i < t->env.nr_events; i++)
		if (!strcmp(t->env.events[i], name))
			return true;
	return false;
}

int select_events(struct klp_trace *t)
{
	struct tep_event **all, *event;
	bool lp_any = false;
	int i;

	for (i = 0; i < t->env.nr_events; i++) {
		if (t->env.no_redirect && !strcmp(t->env.events[i], KLP_REDIRECT))
			continue;
		lp_any |= lp_name(t->env.events[i]);
		event = t->klp_on ? tep_find_event_by_name(t->tep, KLP_SYSTEM,
							   t->env.events[i]) : NULL;
		if (!event && t->lp.on && lp_name(t->env.events[i]))
			continue;	/* the builtin's only */
		if (!event) {
			fprintf(stderr, "klp-trace: no event %s:%s (see %s/events/%s)\n",
				KLP_SYSTEM, t->env.events[i], tracefs_tracing_dir(),
				KLP_SYSTEM);
			return -1;
		}
		if (add_event(t, event))
			return -1;
	}
	if (t->env.nr_events && !lp_any)
		t->lp.on = false;	/* none of its records asked for */

	if (!t->env.nr_events && t->klp_on) {
		all = tep_list_events(t->tep, TEP_EVENT_SORT_ID);
		for (i = 0; all && all[i]; i++) {
			event = all[i];
			if (strcmp(event->system, KLP_SYSTEM))
				continue;
			if (t->env.no_redirect && !strcmp(event->name, KLP_REDIRECT))
				continue;
			if (add_event(t, event))
				return -1;
		}
	}

	if (!t->nr_evs && !t->lp.on) {
		fprintf(stderr, "klp-trace: no events selected\n");
		return -1;
	}
	return 0;
}

static void say_no_klp(void)
{
	fprintf(stderr, "klp-trace: no %s/events/%s: is the klp core loaded? (insmod core/klp.ko)\n",
		tracefs_tracing_dir(), KLP_SYSTEM);
}

/*
 * The cores to trace: klp where its events are, the builtin livepatch
 * where its functions can be probed.  Without the klp core and without
 * --core, the builtin alone only when it has a patch: klp-trace with
 * nothing at all to trace says what to load.
 */
int select_cores(struct klp_trace *t)
{
	const char *core = t->env.core;
	bool want_klp = !core || !strcmp(core, CORE_KLP);
	bool want_lp = !core || !strcmp(core, CORE_LIVEPATCH);

	t->klp_on = want_klp && ti_klp_events_exist();
	if (want_lp)
		t->lp.on = !lpt_check(&t->lp, core || !t->klp_on);
	if (want_klp && core && !t->klp_on) {
		say_no_klp();
		return -1;
	}
	if (want_lp && core && !t->lp.on)
		return -1;	/* it said why */
	if (core || t->klp_on)
		return 0;
	if (t->lp.on && lp_sysfs_has_patches()) {
		fprintf(stderr, "klp-trace: the klp core is not loaded: tracing the builtin livepatch's records only\n");
		return 0;
	}
	say_no_klp();
	if (t->lp.on)
		fprintf(stderr, "klp-trace: nor has the builtin livepatch a patch (--core livepatch traces its records anyway)\n");
	return -1;
}
