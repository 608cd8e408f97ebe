/* SPDX-License-Identifier: GPL-2.0 */
/*
 * event_script.h - the core's transition events as lines of a test
 * script, for the host tests that drive klptop's event applier and
 * klp-exporter's counters (13-klptop-events, 16-exporter-metrics):
 *
 *   push|pop SEQ PATCH OBJECT FUNC ID DEPTH WINNER|- WINNER_ID CAUSE
 *   object SEQ PATCH OBJECT ACTION CAUSE
 *   enable_failed SEQ PATCH OBJECT FUNC ERR
 *   callback SEQ PATCH OBJECT WHICH CAUSE RET   (WHICH: enum klp_callback_kind)
 *   replaced SEQ PATCH BY
 *   register|unregister|enable|disable SEQ PATCH [RET]
 *   transition SEQ PATCH TARGET ACTION SWEEP PENDING TOTAL
 *   task_blocked SEQ PATCH SWEEP PID REASON FUNC|- COMM
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "source_klp.h"

static int script_cause(const char *s)
{
	int c;

	for (c = 1; model_cause_name(c); c++)
		if (!strcmp(model_cause_name(c), s))
			return c;
	return 0;
}

static unsigned int script_type(const char *s)
{
	unsigned int t;

	for (t = KLP_EV_PATCH_REGISTER; t <= KLP_EV_TASK_BLOCKED; t++)
		if (!strcmp(model_event_name(t), s))
			return t;
	return 0;
}

/* The event on line, split in n words w; 0, or -1 if it is none. */
static int script_event(char w[][128], int n, struct klp_transition_event *e)
{
	memset(e, 0, sizeof(*e));
	e->type = script_type(w[0]);
	if (!e->type || n < 3)
		return -1;
	e->seq = strtoull(w[1], NULL, 0);
	snprintf(e->patch, sizeof(e->patch), "%.63s", w[2]);
	switch (e->type) {
	case KLP_EV_FUNC_PUSH:
	case KLP_EV_FUNC_POP:
		snprintf(e->object, sizeof(e->object), "%.63s", w[3]);
		snprintf(e->func, sizeof(e->func), "%.127s", w[4]);
		e->id = atoi(w[5]);
		e->depth = atoi(w[6]);
		snprintf(e->winner, sizeof(e->winner), "%.63s",
			 strcmp(w[7], "-") ? w[7] : "");
		e->winner_id = atoi(w[8]);
		e->cause = script_cause(w[9]);
		e->old_addr = 0x1000;
		break;
	case KLP_EV_OBJECT:
		snprintf(e->object, sizeof(e->object), "%.63s", w[3]);
		e->ret = atoi(w[4]);
		e->cause = script_cause(w[5]);
		break;
	case KLP_EV_CALLBACK:
		snprintf(e->object, sizeof(e->object), "%.63s", w[3]);
		e->id = atoi(w[4]);
		e->cause = script_cause(w[5]);
		e->ret = atoi(w[6]);
		break;
	case KLP_EV_PATCH_REPLACED:
		snprintf(e->winner, sizeof(e->winner), "%.63s", w[3]);
		break;
	case KLP_EV_ENABLE_FAILED:
		snprintf(e->object, sizeof(e->object), "%.63s", w[3]);
		snprintf(e->func, sizeof(e->func), "%.127s", w[4]);
		e->ret = atoi(w[5]);
		break;
	case KLP_EV_TRANSITION:
		e->depth = atoi(w[3]);
		e->ret = atoi(w[4]);
		e->id = atoi(w[5]);
		e->pending = atoi(w[6]);
		e->total = atoi(w[7]);
		break;
	case KLP_EV_TASK_BLOCKED:
		e->id = atoi(w[3]);
		e->pid = atoi(w[4]);
		e->ret = atoi(w[5]);
		snprintf(e->func, sizeof(e->func), "%.127s",
			 strcmp(w[6], "-") ? w[6] : "");
		memcpy(e->comm, w[7], sizeof(e->comm));	/* as long as it is */
		break;
	default:
		e->ret = n > 3 ? atoi(w[3]) : 0;
		break;
	}
	return 0;
}
