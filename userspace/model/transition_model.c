// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * transition_model.c - the transitions in progress and the tasks that hold
 * them back (transition.h), one picture whatever core fed it
 *
 * Each core's source fills them: klp's from its state file and events
 * (sources/klp/source_klp_transitions.c), the builtin's from sysfs and
 * /proc (sources/livepatch/livepatch_transitions.c).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "alloc.h"
#include "transition.h"
#include "transition_names.h"

const char *model_block_reason_name(int reason)
{
	static const char *const names[] = {
		[MODEL_BLOCK_UNKNOWN] = "unknown",
		[KLP_BLOCK_RUNNING] = "running",
		[KLP_BLOCK_UNRELIABLE] = "unreliable",
		[KLP_BLOCK_ON_STACK] = "on_stack",
	};

	return reason >= 0 && (size_t)reason < ARRAY_SIZE(names) ?
	       names[reason] : "unknown";
}

/* The action's name as klp:klp_transition prints it. */
const char *model_tr_action_name(int action)
{
	return klp_tr_action_name(action);
}

unsigned long long model_tr_realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec * MODEL_NSEC_PER_SEC + ts.tv_nsec;
}

struct model_tr *model_tr_find(struct model_trset *s, const char *core,
			       const char *patch, bool create)
{
	struct model_tr *tr;
	size_t i;

	for (i = 0; i < s->nr; i++)
		if (!strcmp(s->trs[i]->core, core) &&
		    !strncmp(s->trs[i]->patch, patch, KLP_NAME_LEN - 1))
			return s->trs[i];
	if (!create)
		return NULL;
	tr = memset(xrealloc(NULL, 1, sizeof(*tr)), 0, sizeof(*tr));
	tr->core = core;
	copy_name(tr->patch, sizeof(tr->patch), patch);
	s->trs = xrealloc(s->trs, s->nr + 1, sizeof(*s->trs));
	s->trs[s->nr++] = tr;
	return tr;
}

void model_tr_drop(struct model_trset *s, struct model_tr *tr)
{
	size_t i;

	for (i = 0; i < s->nr; i++) {
		if (s->trs[i] != tr)
			continue;
		memmove(&s->trs[i], &s->trs[i + 1],
			(s->nr - i - 1) * sizeof(*s->trs));
		s->nr--;
		break;
	}
	free(tr->tasks);
	hindex_free(&tr->task_index);
	free(tr);
}

/*
 * A task's key in task_index: its pid; the idle tasks all have pid 0, and
 * are told apart by their comm (swapper/N).
 */
static unsigned long long task_key(int pid, const char *comm)
{
	if (pid)
		return (unsigned int)pid;
	return hindex_fnv1a(HINDEX_FNV1A_INIT, comm,
			    strnlen(comm, KLP_COMM_LEN - 1));
}

static bool same_task(const struct model_task *t, int pid, const char *comm)
{
	return t->pid == pid &&
	       (pid || !strncmp(t->comm, comm, KLP_COMM_LEN - 1));
}

/*
 * The task's row, at most one per task and sweep: found through
 * task_index, so that a sweep that leaves 10^5 threads blocked costs
 * 10^5 lookups of a few slots, not 10^10 comparisons; the array grows by
 * half again each time it is full.
 */
void model_tr_add_task(struct model_tr *tr, int pid, const char *comm,
		       const char *func, int reason)
{
	unsigned long long key = task_key(pid, comm);
	struct hindex_iter it;
	struct model_task *t = NULL;
	size_t i;

	hindex_find(&tr->task_index, key, &it);
	while (!t && hindex_next(&it, &i))
		if (same_task(&tr->tasks[i], pid, comm))
			t = &tr->tasks[i];
	if (!t) {
		if (tr->nr_tasks == tr->cap_tasks) {
			tr->cap_tasks += tr->cap_tasks / 2 + 16;
			tr->tasks = xrealloc(tr->tasks, tr->cap_tasks,
					     sizeof(*tr->tasks));
		}
		if (hindex_add(&tr->task_index, key, tr->nr_tasks))
			die_oom();
		t = &tr->tasks[tr->nr_tasks++];
	}
	t->pid = pid;
	t->reason = reason;
	copy_name(t->comm, sizeof(t->comm), comm);
	copy_name(t->func, sizeof(t->func), func ? func : "");
}

/* No task holds it back (a new sweep's are to come); the room kept. */
void model_tr_clear_tasks(struct model_tr *tr)
{
	tr->nr_tasks = 0;
	hindex_clear(&tr->task_index);
}

/* Every transition of one core gone (its source read it whole again, or
 * the core went). */
void model_tr_drop_core(struct model_trset *s, const char *core)
{
	size_t i;

	for (i = 0; i < s->nr; ) {
		if (!strcmp(s->trs[i]->core, core))
			model_tr_drop(s, s->trs[i]);
		else
			i++;
	}
}

void model_tr_free(struct model_trset *s)
{
	while (s->nr)
		model_tr_drop(s, s->trs[0]);
	free(s->trs);
	s->trs = NULL;
}
