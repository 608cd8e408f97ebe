// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * source_klp_transitions.c - klp's own source of the transitions in
 * progress (transition.h): the transition and blocked lines of the core's
 * state file, and the klp:klp_transition and klp:klp_task_blocked events
 *
 * The state file gives the whole picture (the tasks its last sweep could
 * not switch); an event newer than the file moves it: START opens a
 * transition, SWEEP says how many tasks are left, each blocked task names
 * the sweep it is from (a newer sweep replaces the tasks of an older one),
 * COMPLETE and FORCED close it, REVERSED flips its target.
 */
#include <errno.h>
#include <time.h>
#include "source_klp.h"
#include "snapshot.h"

/**
 * klp_tr_from_snapshot() - klp's transition as its state file says
 * @s:    the transitions; klp's are replaced, the builtin's kept
 * @snap: the state file, parsed
 */
void klp_tr_from_snapshot(struct model_trset *s, const struct klp_snapshot *snap)
{
	const struct klp_snap_transition *st = snap->transition;
	struct model_tr *tr;
	size_t i;

	model_tr_drop_core(s, MODEL_TR_CORE_KLP);
	if (!st)
		return;
	tr = model_tr_find(s, MODEL_TR_CORE_KLP, st->patch, true);
	tr->target = st->target;
	tr->started_ns = st->started_ns;
	tr->sweep = tr->task_sweep = st->sweep;
	tr->pending = st->pending;
	tr->total = st->total;
	for (i = 0; i < st->nr_blocked; i++)
		model_tr_add_task(tr, st->blocked[i].pid, st->blocked[i].comm,
				  st->blocked[i].func, st->blocked[i].reason);
}

/* CLOCK_REALTIME of an event stamped with bpf_ktime_get_ns() */
static unsigned long long event_realtime(unsigned long long mono_ns)
{
	struct timespec ts;
	unsigned long long now;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = ts.tv_sec * MODEL_NSEC_PER_SEC + ts.tv_nsec;
	return model_tr_realtime_ns() - (now > mono_ns ? now - mono_ns : 0);
}

static int transition_event(struct model_trset *s,
			    const struct klp_transition_event *e)
{
	struct model_tr *tr;

	if (e->pending > e->total || e->depth > 1 || e->ret < KLP_TR_START ||
	    e->ret > KLP_TR_FORCED)
		return -EPROTO;
	tr = model_tr_find(s, MODEL_TR_CORE_KLP, e->patch, e->ret == KLP_TR_START);
	if (!tr)
		return -ENOENT;	/* one the model never saw start */
	switch (e->ret) {
	case KLP_TR_START:
		tr->started_ns = event_realtime(e->ts_ns);
		model_tr_clear_tasks(tr);
		tr->task_sweep = 0;
		break;
	case KLP_TR_COMPLETE:
	case KLP_TR_FORCED:
		model_tr_drop(s, tr);
		return 0;
	default:
		break;
	}
	if (!tr->started_ns)	/* a sweep of one begun before we looked */
		tr->started_ns = event_realtime(e->ts_ns);
	tr->target = e->depth;
	tr->sweep = e->id;
	tr->pending = e->pending;
	tr->total = e->total;
	/* a sweep that left nothing pending left no task blocked */
	if (e->ret == KLP_TR_SWEEP && !e->pending)
		model_tr_clear_tasks(tr);
	return 0;
}

static int blocked_event(struct model_trset *s,
			 const struct klp_transition_event *e)
{
	struct model_tr *tr = model_tr_find(s, MODEL_TR_CORE_KLP, e->patch, false);

	if (e->ret < KLP_BLOCK_RUNNING || e->ret > KLP_BLOCK_ON_STACK)
		return -EPROTO;
	if (!tr)
		return -ENOENT;
	if (e->id < tr->task_sweep)
		return 0;	/* an older sweep's, come late */
	if (e->id > tr->task_sweep) {
		model_tr_clear_tasks(tr);	/* the tasks of an older sweep */
		tr->task_sweep = e->id;
	}
	model_tr_add_task(tr, e->pid, e->comm, e->func, e->ret);
	return 0;
}

/**
 * klp_tr_event() - one klp:klp_transition or klp:klp_task_blocked event
 * @s:     the transitions
 * @e:     the event, its strings terminated (model_event_terminate())
 * @fresh: newer than the state file the model was read from
 *
 * Returns 0; -ENOENT for a transition the model never saw start (events
 * were lost, or came before the state file was read), -EPROTO for one
 * that contradicts itself (more tasks pending than there are, an action
 * or reason not in the contract): only the state file can tell then.
 */
int klp_tr_event(struct model_trset *s, const struct klp_transition_event *e,
		 bool fresh)
{
	if (!fresh)
		return 0;
	if (e->type == KLP_EV_TRANSITION)
		return transition_event(s, e);
	if (e->type == KLP_EV_TASK_BLOCKED)
		return blocked_event(s, e);
	return 0;
}
