// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sweep.c - how the tasks of a transition switch (transition.c has the
 * transition's life)
 *
 * The code of each state of the functions the transition changes, as
 * sorted address ranges; one task's check of its reliable stack trace
 * against the code of the state it leaves; a CPU stopper for a task seen
 * running; a user task's own task_work on its way to user mode; the
 * sweep over every task and each CPU's idle task.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/task_work.h>
#include "core.h"
#include "fault.h"
#include "patch.h"
#include "sweep.h"
#include "klp_trace.h"

/* --- the code of each state ---------------------------------------------- */

static int klp_range_cmp(const void *a, const void *b)
{
	const struct klp_range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

struct klp_ranges_fill {
	struct klp_ranges *r;
	unsigned int n;		/* functions walked */
};

/* A state's code of a function: its func's new_func, or the original. */
static void klp_range_of(struct klp_range *range, const struct klp_change *c,
			 struct klp_func *func)
{
	range->start = func ? (unsigned long)func->new_func : c->old_addr;
	range->end = range->start + (func ? func->new_size : c->old_size);
	range->name = c->name;
}

static void klp_ranges_add(void *data, const struct klp_change *change)
{
	struct klp_ranges_fill *fill = data;
	struct klp_ranges *r = fill->r;

	if (r) {
		klp_range_of(&r->r[1][fill->n], change, change->with);
		klp_range_of(&r->r[0][fill->n], change, change->without);
	}
	fill->n++;
}

static void klp_free_ranges(struct klp_ranges *r)
{
	kvfree(r->r[0]);
	kvfree(r->r[1]);
	kfree(r);
}

/**
 * klp_free_ranges_rcu() - free a transition's code ranges after a grace period
 * @rcu:	their rcu_head
 */
void klp_free_ranges_rcu(struct rcu_head *rcu)
{
	klp_free_ranges(container_of(rcu, struct klp_ranges, rcu));
}

/**
 * klp_ranges_update() - publish the code of each state the transition changes
 * @tr:		the transition
 *
 * A task's stack is checked against the code of the state it leaves:
 * each function the transition may change (klp_stacks_walk_changed()),
 * whole, as kallsyms sized it when its object was resolved.
 *
 * Return: 0, or -ENOMEM with the ranges published before left in place
 */
int klp_ranges_update(struct klp_transition *tr)
{
	struct klp_ranges_fill fill = { };
	struct klp_ranges *r, *old;
	unsigned int n;

	klp_stacks_walk_changed(tr->patch, klp_ranges_add, &fill);
	n = fill.n;
	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return -ENOMEM;
	r->r[0] = kvcalloc(n ?: 1, sizeof(struct klp_range), GFP_KERNEL);
	r->r[1] = kvcalloc(n ?: 1, sizeof(struct klp_range), GFP_KERNEL);
	if (!r->r[0] || !r->r[1]) {
		klp_free_ranges(r);
		return -ENOMEM;
	}
	fill.r = r;
	fill.n = 0;
	klp_stacks_walk_changed(tr->patch, klp_ranges_add, &fill);
	r->nr[0] = fill.n;
	r->nr[1] = fill.n;
	sort(r->r[0], fill.n, sizeof(struct klp_range), klp_range_cmp, NULL);
	sort(r->r[1], fill.n, sizeof(struct klp_range), klp_range_cmp, NULL);

	old = rcu_replace_pointer(tr->ranges, r, lockdep_is_held(&klp_mutex));
	if (old)
		call_rcu(&old->rcu, klp_free_ranges_rcu);
	return 0;
}

/* The function whose code holds one of the addresses, or NULL. */
static const char *klp_ranges_find(struct klp_ranges *r, int state,
				   unsigned long *entries, unsigned int nr)
{
	const struct klp_range *range = r->r[state];
	unsigned int i, lo, hi, mid;

	for (i = 0; i < nr; i++) {
		lo = 0;
		hi = r->nr[state];
		/* the last range starting at or below the address */
		while (hi - lo > 1) {
			mid = lo + (hi - lo) / 2;
			if (range[mid].start <= entries[i])
				lo = mid;
			else
				hi = mid;
		}
		if (hi > lo && entries[i] >= range[lo].start &&
		    entries[i] < range[lo].end)
			return range[lo].name;
	}
	return NULL;
}

/* --- one task ------------------------------------------------------------ */

struct klp_check {
	struct klp_transition *tr;
	unsigned long *entries;
	unsigned int max;
	const char *func;	/* out: the function that holds the task */
};

/*
 * Switch t to the target state if none of the code of its state is on
 * its stack.  Called with t unable to run (task_call_func(), or a CPU
 * stopper), or for current.
 *
 * Return: 0 (switched, or was), or an enum klp_block_reason
 */
static int klp_check_and_switch(struct task_struct *t, void *arg)
{
	struct klp_check *c = arg;
	struct klp_transition *tr = c->tr;
	struct klp_task_map *map = rcu_dereference_raw(klp_task_map);
	int target = READ_ONCE(tr->target);
	struct klp_ranges *r;
	bool patched;
	int nr;

	if (!map)
		return 0;
	patched = klp_map_get(map, t);
	if (patched == target)
		return 0;
	if (t != current && READ_ONCE(t->on_cpu))
		return KLP_BLOCK_RUNNING;

	nr = klp_fault_unreliable(t) ? -EINVAL :
	     tr->k.save_reliable(t, c->entries, c->max);
	if (nr < 0)
		return KLP_BLOCK_UNRELIABLE;

	rcu_read_lock();
	r = rcu_dereference(tr->ranges);
	c->func = r ? klp_ranges_find(r, patched, c->entries, nr) : NULL;
	rcu_read_unlock();
	if (!r)
		return KLP_BLOCK_UNRELIABLE;	/* out of memory: cannot tell */
	if (c->func)
		return KLP_BLOCK_ON_STACK;

	klp_map_set(map, t, target);
	return 0;
}

static int klp_try_task(struct klp_transition *tr, struct task_struct *t,
			struct klp_check *c)
{
	c->func = NULL;
	if (klp_map_get(tr->map, t) == tr->target)
		return 0;
	return tr->k.call_func(t, klp_check_and_switch, c);
}

/*
 * The last task a sweep left switched itself: sweep at once, and wake
 * the write that waits for it (klp_transition_start()).
 */
static void klp_sweep_now(struct klp_transition *tr)
{
	mod_delayed_work(tr->wq, &tr->sweep_work, 0);
	wake_up(&tr->works_done);
}

/*
 * A CPU stopper, on the CPU where a sweep saw the task running: it took
 * that CPU from whatever ran there, so the task, if it is still there, is
 * off the CPU at a preemption point and its stack can be read.  The sweep
 * does not wait for it (klp_mutex stays free even if that CPU never
 * reschedules); a switch it makes counts down @unswitched like a
 * task_work's.  tasklist_lock keeps exchange_tids() from renumbering the
 * task between the read of its state and the write.
 */
static int klp_stop_fn(void *arg)
{
	struct klp_stop *stop = arg;
	struct klp_transition *tr = &klp_tr;
	struct klp_check c = {
		.tr = tr, .entries = stop->entries, .max = KLP_STACK_ENTRIES,
	};
	struct task_struct *t = stop->task;
	struct klp_task_map *map;

	rcu_read_lock();
	read_lock(tr->k.tasklist_lock);
	map = rcu_dereference(klp_task_map);
	if (map && klp_map_get(map, t) != READ_ONCE(tr->target) &&
	    !tr->k.call_func(t, klp_check_and_switch, &c) &&
	    atomic_dec_and_test(&tr->unswitched))
		klp_sweep_now(tr);
	read_unlock(tr->k.tasklist_lock);
	put_task_struct(t);
	atomic_set_release(&stop->busy, 0);
	if (atomic_dec_and_test(&tr->works))
		wake_up(&tr->works_done);
	rcu_read_unlock();
	return 0;
}

/* Queue a stopper for t on its CPU, unless one is queued there already. */
static void klp_queue_stop(struct klp_transition *tr, struct task_struct *t)
{
	unsigned int cpu = task_cpu(t);
	struct klp_stop *stop = &tr->stops[cpu];

	if (atomic_cmpxchg(&stop->busy, 0, 1))
		return;
	get_task_struct(t);
	stop->task = t;
	atomic_inc(&tr->works);
	if (tr->k.stop_one_cpu_nowait(cpu, klp_stop_fn, stop, &stop->work))
		return;
	/* that CPU is going offline: the next sweep looks again */
	atomic_dec(&tr->works);
	put_task_struct(t);
	atomic_set(&stop->busy, 0);
}

/* The task_work of a user task: switch itself on its way to user mode. */
static void klp_task_work_fn(struct callback_head *cb)
{
	struct klp_transition *tr = &klp_tr;
	unsigned long entries[KLP_STACK_ENTRIES];
	struct klp_check c = {
		.tr = tr, .entries = entries, .max = ARRAY_SIZE(entries),
	};
	struct klp_task_map *map;

	kfree(cb);
	rcu_read_lock();
	map = rcu_dereference(klp_task_map);
	if (map && current->pid) {
		clear_bit(current->pid, map->work_bits);
		if (klp_map_get(map, current) != READ_ONCE(tr->target) &&
		    !klp_check_and_switch(current, &c) &&
		    atomic_dec_and_test(&tr->unswitched))
			klp_sweep_now(tr);
	}
	if (atomic_dec_and_test(&tr->works))
		wake_up(&tr->works_done);
	rcu_read_unlock();
}

static bool klp_task_work_match(struct callback_head *cb, void *data)
{
	return cb->func == klp_task_work_fn;
}

/* Queue the task_work on a user task (with a fake signal: @notify). */
static void klp_queue_task_work(struct klp_transition *tr,
				struct task_struct *t, bool notify)
{
	struct callback_head *cb;

	if (!notify && test_and_set_bit(t->pid, tr->map->work_bits))
		return;
	cb = kmalloc(sizeof(*cb), GFP_ATOMIC);
	if (!cb)
		goto out;
	init_task_work(cb, klp_task_work_fn);
	atomic_inc(&tr->works);
	if (!task_work_add(t, cb, notify ? TWA_SIGNAL : TWA_RESUME)) {
		if (!notify)
			kick_process(t);
		return;
	}
	atomic_dec(&tr->works);	/* exiting */
	kfree(cb);
out:
	clear_bit(t->pid, tr->map->work_bits);
}

/**
 * klp_cancel_task_works() - drop the task_works not run yet
 * @tr:		the transition, over
 */
void klp_cancel_task_works(struct klp_transition *tr)
{
	struct task_struct *g, *t;
	struct callback_head *cb;

	if (!atomic_read(&tr->works))
		return;
	read_lock(tr->k.tasklist_lock);
	for_each_process_thread(g, t) {
		while ((cb = tr->k.work_cancel(t, klp_task_work_match, NULL))) {
			kfree(cb);
			atomic_dec(&tr->works);
		}
	}
	read_unlock(tr->k.tasklist_lock);
}

/* A task the sweep could not switch: say so, and help it along. */
static void klp_task_blocked(struct klp_transition *tr, struct task_struct *t,
			     int reason, const char *func)
{
	struct klp_blocked *b;
	bool signal = tr->signal;

	tr->pending++;
	trace_klp_task_blocked(klp_next_seq(), klp_patch_name(tr->patch),
			       tr->sweep, t->pid, t->comm, func ?: "", reason);
	if (tr->nr_blocked < KLP_BLOCKED_SHOWN) {
		b = &tr->blocked[tr->nr_blocked++];
		b->pid = t->pid;
		b->reason = reason;
		strscpy(b->comm, t->comm, sizeof(b->comm));
		strscpy(b->func, func ?: "", sizeof(b->func));
	}

	if (!t->pid)
		return;
	if (!(t->flags & PF_KTHREAD))
		klp_queue_task_work(tr, t, signal);
	else if (signal)
		tr->k.wake_up_state(t, TASK_INTERRUPTIBLE);
}

/* --- sweeps -------------------------------------------------------------- */

/* Switch t, or say it is blocked (and, if it runs, send it a stopper). */
static void klp_sweep_task(struct klp_transition *tr, struct task_struct *t,
			   struct klp_check *c)
{
	int ret;

	tr->total++;
	ret = klp_try_task(tr, t, c);
	if (!ret)
		return;
	klp_task_blocked(tr, t, ret, c->func);
	if (ret == KLP_BLOCK_RUNNING)
		klp_queue_stop(tr, t);
}

/**
 * klp_sweep() - try to switch every task once
 * @tr:		the transition
 *
 * Each task not running whose stack holds none of the code of its state
 * switches; the others are klp:klp_task_blocked events, and helped along
 * (a task_work, a fake signal, a wake-up, or, for one seen running, a CPU
 * stopper that looks at it again without the sweep waiting).  Ends with
 * the sweep's klp:klp_transition record.
 */
void klp_sweep(struct klp_transition *tr)
{
	struct klp_check c = {
		.tr = tr, .entries = tr->entries, .max = KLP_STACK_ENTRIES,
	};
	struct task_struct *g, *t;
	int cpu;

	tr->sweep++;
	tr->signal = time_after_eq(jiffies, tr->next_signal);
	if (tr->signal)
		tr->next_signal = jiffies + KLP_SIGNAL_DELAY;
	tr->pending = 0;
	tr->total = 0;
	tr->nr_blocked = 0;
	if (!rcu_access_pointer(tr->ranges) && klp_ranges_update(tr))
		pr_warn_ratelimited("'%s': out of memory for the transition's code ranges: no task switches\n",
				    klp_patch_name(tr->patch));

	read_lock(tr->k.tasklist_lock);
	for_each_process_thread(g, t)
		klp_sweep_task(tr, t, &c);
	read_unlock(tr->k.tasklist_lock);

	/* no CPU comes up (its idle task running bring-up code) meanwhile */
	cpus_read_lock();
	for_each_possible_cpu(cpu) {
		t = tr->k.idle_task(cpu);
		if (!cpu_online(cpu)) {
			tr->total++;
			/* parked: runs nothing of the patch */
			klp_map_set(tr->map, t, tr->target);
			continue;
		}
		klp_sweep_task(tr, t, &c);
	}
	cpus_read_unlock();

	atomic_set(&tr->unswitched, tr->pending);
	trace_klp_transition(klp_next_seq(), klp_patch_name(tr->patch),
			     tr->target, KLP_TR_SWEEP, tr->sweep, tr->pending,
			     tr->total);
}

/**
 * klp_sweep_delay() - when the next sweep runs
 * @tr:		the transition
 *
 * Return: 10 ms after the first sweeps, doubling up to a second (jiffies)
 */
unsigned long klp_sweep_delay(struct klp_transition *tr)
{
	unsigned int shift = min(tr->sweep, 7U);

	return min_t(unsigned long, HZ, msecs_to_jiffies(10) << shift);
}
