/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sweep.h - what transition.c and sweep.c share: the transition running
 * and the tasks' states in it
 */
#ifndef _KLP_SWEEP_H
#define _KLP_SWEEP_H

#include <linux/kprobes.h>
#include <linux/sched.h>
#include <linux/stop_machine.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <klp/uapi.h>
#include "transition.h"

#define KLP_STACK_ENTRIES	100	/* upstream's MAX_STACK_ENTRIES */
#define KLP_BLOCKED_SHOWN	16	/* blocked tasks kept for klp/state */
#define KLP_SIGNAL_DELAY	(15 * HZ)	/* upstream's: 15 sweeps a second apart */

/* A function's code: [start, end), and the function it replaces. */
struct klp_range {
	unsigned long start;
	unsigned long end;
	const char *name;
};

/* The code of each state: [1] the patched state's, [0] the unpatched. */
struct klp_ranges {
	struct rcu_head rcu;
	unsigned int nr[2];
	struct klp_range *r[2];
};

/**
 * struct klp_stop - a CPU stopper that looks at a task seen running
 * @work:	the stopper's work, queued without waiting for it
 * @task:	the task (a reference held until the stopper ran)
 * @entries:	the stopper's stack trace buffer
 * @busy:	queued and not run yet: one at a time per CPU
 */
struct klp_stop {
	struct cpu_stop_work work;
	struct task_struct *task;
	unsigned long entries[KLP_STACK_ENTRIES];
	atomic_t busy;
};

struct klp_blocked {
	pid_t pid;
	int reason;
	char comm[TASK_COMM_LEN];
	char func[KLP_FUNC_LEN];
};

/* The kernel functions a transition needs, found by name. */
struct klp_kfuncs {
	int (*save_reliable)(struct task_struct *tsk, unsigned long *store,
			     unsigned int size);
	int (*call_func)(struct task_struct *p, task_call_f func, void *arg);
	bool (*stop_one_cpu_nowait)(unsigned int cpu, cpu_stop_fn_t fn,
				    void *arg, struct cpu_stop_work *work_buf);
	int (*schedule_on_each_cpu)(work_func_t func);
	int (*wake_up_state)(struct task_struct *p, unsigned int state);
	struct task_struct *(*idle_task)(int cpu);
	struct callback_head *(*work_cancel)(struct task_struct *task,
					     bool (*match)(struct callback_head *,
							   void *),
					     void *data);
	rwlock_t *tasklist_lock;
};

/**
 * struct klp_transition - the transition running, if any (klp_mutex)
 * @patch:	its patch; NULL when none runs
 * @target:	KLP_ENABLED or KLP_DISABLED (tasks' bit: 1 or 0)
 * @nops:	an atomic replace (see klp_stacks_transition())
 * @sweep:	sweeps so far
 * @signal:	this sweep sends fake signals and wakes kthreads
 * @next_signal: jiffies of the next sweep that does
 * @pending:	tasks the last sweep left unswitched, of @total
 * @total:	tasks the last sweep saw, each CPU's idle task included
 * @started_ns:	CLOCK_REALTIME at the start
 * @map:	the tasks' states, published as klp_task_map
 * @ranges:	the code of each state (RCU: the task_work readers)
 * @entries:	the sweeper's stack trace buffer
 * @stops:	one CPU stopper per CPU for a task seen running there
 * @blocked:	the first tasks the last sweep could not switch
 * @nr_blocked:	how many of them are in @blocked
 * @unswitched: an estimate of @pending between sweeps: a task that
 *		switches itself counts it down, and the last one asks for a
 *		sweep at once
 * @works:	task_works and CPU stoppers of ours not run yet
 * @works_done:	woken when @works or @unswitched drops to 0
 * @sweep_work:	the next sweep (klp_sweep_delay())
 * @wq:		runs @sweep_work and the freeing of patches
 * @k:		kernel functions found by name
 * @tp_newtask: task_newtask, probed while klp.ko is loaded
 * @exchange:	a kprobe on exchange_tids(): an exec by a thread that is
 *		not its group's leader swaps its pid with the leader's
 */
struct klp_transition {
	struct klp_patch *patch;
	int target;
	bool nops;
	unsigned int sweep;
	bool signal;
	unsigned long next_signal;
	unsigned int pending;
	unsigned int total;
	u64 started_ns;
	struct klp_task_map *map;
	struct klp_ranges __rcu *ranges;
	unsigned long entries[KLP_STACK_ENTRIES];
	struct klp_stop *stops;
	struct klp_blocked blocked[KLP_BLOCKED_SHOWN];
	unsigned int nr_blocked;
	atomic_t unswitched;
	atomic_t works;
	wait_queue_head_t works_done;
	struct delayed_work sweep_work;
	struct workqueue_struct *wq;
	struct klp_kfuncs k;
	struct tracepoint *tp_newtask;
	struct kprobe exchange;
};

extern struct klp_transition klp_tr;

/* A task's state in map: true for the patched one. */
static inline bool klp_map_get(struct klp_task_map *map, struct task_struct *t)
{
	if (!t->pid)
		return map->idle[task_cpu(t)];
	return test_bit(t->pid, map->bits);
}

static inline void klp_map_set(struct klp_task_map *map,
			       struct task_struct *t, bool patched)
{
	if (!t->pid)
		WRITE_ONCE(map->idle[task_cpu(t)], patched);
	else
		assign_bit(t->pid, map->bits, patched);
}

/* sweep.c */
int klp_ranges_update(struct klp_transition *tr);
void klp_free_ranges_rcu(struct rcu_head *rcu);
void klp_cancel_task_works(struct klp_transition *tr);
void klp_sweep(struct klp_transition *tr);
unsigned long klp_sweep_delay(struct klp_transition *tr);

#endif /* _KLP_SWEEP_H */
