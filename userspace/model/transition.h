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
 * KT_BLOCK_UNKNOWN: a task the builtin has not switched whose stack holds
 * none of the patch's functions (/proc cannot say whether its stack was
 * unreliable, or the next sweep will switch it).
 */
#ifndef _KLP_TRANSITION_H
#define _KLP_TRANSITION_H

#include <stdbool.h>
#include <stddef.h>
#include <klp/uapi.h>
#include "hindex.h"

#define KT_NSEC_PER_SEC		1000000000ULL
#define KT_BLOCK_UNKNOWN	0
#define KT_TR_CORE_KLP		"klp"		/* kt_core_names[KT_CORE_KLP] */
#define KT_TR_CORE_LIVEPATCH	"livepatch"	/* kt_core_names[KT_CORE_LIVEPATCH] */

/* A task the last sweep could not switch. */
struct kt_task {
	int pid;
	int reason;			/* enum klp_block_reason, or KT_BLOCK_UNKNOWN */
	char comm[KLP_COMM_LEN];
	char func[KLP_FUNC_LEN];	/* the function on its stack; "" if none known */
};

struct kt_tr {
	const char *core;		/* KT_TR_CORE_KLP or KT_TR_CORE_LIVEPATCH */
	char patch[KLP_NAME_LEN];
	int target;			/* 1 enabling, 0 disabling */
	unsigned long long started_ns;	/* CLOCK_REALTIME */
	bool start_seen;		/* started_ns is when klptop first saw it */
	unsigned int sweep;		/* sweeps so far (klp; 0 for the builtin) */
	unsigned int pending;		/* tasks not switched yet */
	unsigned int total;		/* of tasks */
	unsigned int task_sweep;	/* the sweep the tasks are from */
	struct kt_task *tasks;		/* the tasks that hold it back */
	size_t nr_tasks;
	size_t cap_tasks;		/* of tasks, allocated */
	struct hindex task_index;	/* tasks' rows by pid (comm for pid 0) */
	bool seen;			/* by the current scan of its source */
};

struct kt_trset {
	struct kt_tr **trs;
	size_t nr;
};

const char *kt_block_reason_name(int reason);
const char *kt_tr_action_name(int action);
struct kt_tr *kt_tr_find(struct kt_trset *s, const char *core,
			 const char *patch, bool create);
void kt_tr_drop(struct kt_trset *s, struct kt_tr *tr);
void kt_tr_drop_core(struct kt_trset *s, const char *core);
void kt_tr_add_task(struct kt_tr *tr, int pid, const char *comm,
		    const char *func, int reason);
void kt_tr_clear_tasks(struct kt_tr *tr);
unsigned long long kt_tr_realtime_ns(void);
void kt_tr_free(struct kt_trset *s);

#endif /* _KLP_TRANSITION_H */
