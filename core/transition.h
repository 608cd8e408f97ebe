/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef _KLP_TRANSITION_H
#define _KLP_TRANSITION_H

#include <linux/bitops.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/smp.h>
#include <klp/livepatch.h>

struct seq_file;
struct work_struct;

/**
 * struct klp_task_map - the state of every task in a transition
 * @bits:	by pid: 1 for a task in the patched state of the transition
 *		patch, 0 in the unpatched one
 * @idle:	the same for each CPU's idle task (pid 0 on every CPU)
 * @work_bits:	by pid: a task_work of ours is queued on the task
 * @rcu:	freed after a grace period, without waiting for it
 *
 * klp cannot use the kernel's task->patch_state: it belongs to the
 * builtin livepatch.  A pid names one task at a time; the fork and exec
 * probes (transition.c) keep a new or renumbered task's bit.
 */
struct klp_task_map {
	unsigned long *bits;
	u8 *idle;
	unsigned long *work_bits;
	struct rcu_head rcu;
};

/* Published while a transition runs, for the ftrace handler (RCU). */
extern struct klp_task_map __rcu *klp_task_map;

/*
 * Is current in the patched state of the transition patch?  Only for a
 * stack the transition marked, so only while the map is published.
 */
static __always_inline bool klp_task_patched(void)
{
	struct klp_task_map *map = rcu_dereference_raw(klp_task_map);
	pid_t pid = current->pid;

	if (unlikely(!map))
		return true;
	if (!pid)
		return map->idle[raw_smp_processor_id()];
	return test_bit(pid, map->bits);
}

/* transition.c */
int klp_transition_init(struct klp_patch *patch, int target);
void klp_transition_abort(void);
int klp_transition_start(void);
int klp_transition_request(struct klp_patch *patch, int state);
int klp_transition_force(struct klp_patch *patch);
int klp_transition_going(struct klp_patch *patch);
void klp_transition_unmark(void);
bool klp_transition_running(void);
bool klp_in_transition(struct klp_patch *patch);
int klp_transition_target(struct klp_patch *patch);
void klp_transition_stacks_changed(void);
void klp_transition_show(struct seq_file *m);
void klp_queue_free(struct work_struct *work);
int klp_transition_setup(void);
void klp_transition_cleanup(void);

/* core.c: what completing a transition does to its patch */
int klp_transition_complete(struct klp_patch *patch, int target);

#endif /* _KLP_TRANSITION_H */
