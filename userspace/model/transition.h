/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * transition.h - the transitions in progress and the tasks that hold them
 * back, one picture whatever core fed it (transition_model.c)
 *
 * A transition moves every task of the machine to a patch's target state
 * (enabled or disabled); it ends when the last task has switched.  Each
 * core's source fills the same records: klp's from the klp:klp_transition
 * and klp:klp_task_blocked events and the state file
 * (sources/klp/source_klp_transitions.c), the builtin's from its sysfs
 * and each task's /proc files, read every interval while a transition
 * runs (sources/livepatch/livepatch_transitions.c; doc/klptop.md says
 * what /proc can and cannot tell).
 *
 * Reasons are enum klp_block_reason (include/klp/uapi.h), plus
 * MODEL_BLOCK_UNKNOWN: a task the builtin has not switched whose stack holds
 * none of the patch's functions (/proc cannot say whether its stack was
 * unreliable, or the next sweep will switch it).
 */
#ifndef _KLP_TRANSITION_H
#define _KLP_TRANSITION_H

#include <stdbool.h>
#include <stddef.h>
#include <klp/uapi.h>
#include "hindex.h"

#define MODEL_NSEC_PER_SEC		1000000000ULL
#define MODEL_BLOCK_UNKNOWN	0
#define MODEL_TR_CORE_KLP		"klp"		/* model_core_names[MODEL_CORE_KLP] */
#define MODEL_TR_CORE_LIVEPATCH	"livepatch"	/* model_core_names[MODEL_CORE_LIVEPATCH] */

/* A task the last sweep could not switch. */
struct model_task {
	int pid;
	int reason;			/* enum klp_block_reason, or MODEL_BLOCK_UNKNOWN */
	char comm[KLP_COMM_LEN];
	char func[KLP_FUNC_LEN];	/* the function on its stack; "" if none known */
};

struct model_tr {
	const char *core;		/* MODEL_TR_CORE_KLP or MODEL_TR_CORE_LIVEPATCH */
	char patch[KLP_NAME_LEN];
	int target;			/* 1 enabling, 0 disabling */
	unsigned long long started_ns;	/* CLOCK_REALTIME */
	bool start_seen;		/* started_ns is when klptop first saw it */
	unsigned int sweep;		/* sweeps so far (klp; 0 for the builtin) */
	unsigned int pending;		/* tasks not switched yet */
	unsigned int total;		/* of tasks */
	unsigned int task_sweep;	/* the sweep the tasks are from */
	struct model_task *tasks;		/* the tasks that hold it back */
	size_t nr_tasks;
	size_t cap_tasks;		/* of tasks, allocated */
	struct hindex task_index;	/* tasks' rows by pid (comm for pid 0) */
	bool seen;			/* by the current scan of its source */
};

struct model_trset {
	struct model_tr **trs;
	size_t nr;
};

const char *model_block_reason_name(int reason);
const char *model_tr_action_name(int action);
struct model_tr *model_tr_find(struct model_trset *s, const char *core,
			       const char *patch, bool create);
void model_tr_drop(struct model_trset *s, struct model_tr *tr);
void model_tr_drop_core(struct model_trset *s, const char *core);
void model_tr_add_task(struct model_tr *tr, int pid, const char *comm,
		       const char *func, int reason);
void model_tr_clear_tasks(struct model_tr *tr);
unsigned long long model_tr_realtime_ns(void);
void model_tr_free(struct model_trset *s);

#endif /* _KLP_TRANSITION_H */
