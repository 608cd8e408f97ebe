// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * transition.c - the consistency model: each task switches on its own
 *
 * Enabling or disabling a patch is a transition: every task of the
 * machine moves from one state of the patch to the other when none of the
 * functions the transition changes is on its stack, so no task ever runs
 * a mix of the patch's old and new functions (upstream's model since
 * 4.12, Documentation/livepatch/livepatch.rst).  While it runs, the
 * func_stacks it changes are marked (patch.c) and the ftrace handler
 * sends each task where its state says; the state of every task is a bit
 * of struct klp_task_map, by pid, since task->patch_state and the
 * builtin's switch points (TIF_PATCH_PENDING, the idle loop) belong to
 * the kernel's builtin livepatch.
 *
 * A task switches
 *  - in a sweep (three in the write that starts the transition, 10 ms
 *    apart, then after 10 ms, doubling up to every second): a task that
 *    is not running and whose reliable stack trace holds none of the
 *    changed functions;
 *  - a task seen running (the idle tasks too): in a CPU stopper on its
 *    CPU, which takes it off the CPU at a point where its stack can be
 *    read (a preemption point: in user mode, or cond_resched());
 *  - a user task asleep in the kernel: itself, from a task_work at its
 *    next return to user mode (queued at its first failed sweep);
 *    the last task to switch asks for a sweep at once;
 *    every KLP_SIGNAL_DELAY (15 s) the task_work comes with a fake
 *    signal (TWA_SIGNAL) that interrupts a sleep in a syscall, and
 *    sleeping kthreads are woken, as upstream does;
 *  - a new task takes its parent's state (the sched_process_fork probe);
 *    exec, which can give a thread its leader's pid, moves the bit.
 * Each sweep is a klp:klp_transition record; each task it could not
 * switch a klp:klp_task_blocked event saying why.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/stop_machine.h>
#include <linux/task_work.h>
#include <linux/timekeeping.h>
#include <linux/tracepoint.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>
#include "core.h"
#include "patch.h"
#include "symbols.h"
#include "transition.h"
#include "tramp.h"
#include "klp_trace.h"

#define KLP_STACK_ENTRIES	64
#define KLP_BLOCKED_SHOWN	16	/* blocked tasks kept for klp/state */
#define KLP_SIGNAL_DELAY	(15 * HZ)	/* upstream's: 15 sweeps a second apart */
#define KLP_FIRST_SWEEPS	3	/* in the write, 10 ms apart */
#define KLP_FORCE_SHOWN		64	/* tasks force names in the log */

struct klp_task_map __rcu *klp_task_map;

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

struct klp_blocked {
	pid_t pid;
	int reason;
	char comm[TASK_COMM_LEN];
	char func[KLP_FUNC_LEN];
};

/* The kernel functions a transition needs, found by name. */
struct klp_kfuncs {
	int (*size_offset)(unsigned long addr, unsigned long *size,
			   unsigned long *offset);
	int (*save_reliable)(struct task_struct *tsk, unsigned long *store,
			     unsigned int size);
	int (*call_func)(struct task_struct *p, task_call_f func, void *arg);
	int (*stop_one_cpu)(unsigned int cpu, cpu_stop_fn_t fn, void *arg);
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
 * @running:	kthreads and idle tasks seen running, for the stoppers
 * @blocked:	the first tasks the last sweep could not switch
 * @nr_blocked:	how many of them are in @blocked
 * @unswitched: an estimate of @pending between sweeps: a task that
 *		switches itself counts it down, and the last one asks for a
 *		sweep at once
 * @works:	task_works of ours not run yet
 * @works_done:	woken when @works drops to 0
 * @sweep_work:	the next sweep (klp_sweep_delay())
 * @wq:		runs @sweep_work and the freeing of patches
 * @k:		kernel functions found by name
 * @tp_fork:	sched_process_fork, probed while klp.ko is loaded
 * @tp_exec:	sched_process_exec, likewise
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
	struct task_struct **running;
	struct klp_blocked blocked[KLP_BLOCKED_SHOWN];
	unsigned int nr_blocked;
	atomic_t unswitched;
	atomic_t works;
	wait_queue_head_t works_done;
	struct delayed_work sweep_work;
	struct workqueue_struct *wq;
	struct klp_kfuncs k;
	struct tracepoint *tp_fork;
	struct tracepoint *tp_exec;
};

static struct klp_transition klp_tr;

/* A task's state in map: true for the patched one. */
static bool klp_map_get(struct klp_task_map *map, struct task_struct *t)
{
	if (!t->pid)
		return map->idle[task_cpu(t)];
	return test_bit(t->pid, map->bits);
}

static void klp_map_set(struct klp_task_map *map, struct task_struct *t,
			bool patched)
{
	if (!t->pid)
		WRITE_ONCE(map->idle[task_cpu(t)], patched);
	else
		assign_bit(t->pid, map->bits, patched);
}

/* --- the code of each state ---------------------------------------------- */

static int klp_range_cmp(const void *a, const void *b)
{
	const struct klp_range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

struct klp_ranges_fill {
	struct klp_ranges *r;
	unsigned int n;		/* stacks walked */
};

static void klp_range_of(struct klp_range *range, unsigned long addr,
			 const char *name)
{
	unsigned long size = 0, offset;

	if (!klp_tr.k.size_offset(addr, &size, &offset) || !size)
		size = 1;	/* never: patched code has a symbol */
	range->start = addr - offset;
	range->end = addr - offset + size;
	range->name = name;
}

static void klp_ranges_add(void *data, unsigned long old_addr,
			   struct klp_func *with, struct klp_func *without,
			   const char *name)
{
	struct klp_ranges_fill *fill = data;
	struct klp_ranges *r = fill->r;

	if (r) {
		klp_range_of(&r->r[1][fill->n],
			     with ? (unsigned long)with->new_func : old_addr, name);
		klp_range_of(&r->r[0][fill->n],
			     without ? (unsigned long)without->new_func : old_addr,
			     name);
	}
	fill->n++;
}

static void klp_free_ranges(struct klp_ranges *r)
{
	kvfree(r->r[0]);
	kvfree(r->r[1]);
	kfree(r);
}

static void klp_free_ranges_rcu(struct rcu_head *rcu)
{
	klp_free_ranges(container_of(rcu, struct klp_ranges, rcu));
}

/*
 * Publish the code of each state of the stacks marked now; a task's
 * stack is checked against the code of the state it leaves.
 */
static int klp_ranges_update(struct klp_transition *tr)
{
	struct klp_ranges_fill fill = { };
	struct klp_ranges *r, *old;
	unsigned int n;

	klp_stacks_walk_marked(klp_ranges_add, &fill);
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
	klp_stacks_walk_marked(klp_ranges_add, &fill);
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

	nr = tr->k.save_reliable(t, c->entries, c->max);
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

struct klp_stop {
	struct task_struct *task;
	struct klp_check *check;
	int ret;
};

/* On the task's CPU, which the stopper took from it. */
static int klp_stop_switch(void *arg)
{
	struct klp_stop *s = arg;

	s->ret = klp_try_task(s->check->tr, s->task, s->check);
	return 0;
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
			mod_delayed_work(tr->wq, &tr->sweep_work, 0);
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

/* Drop the task_works not run yet (the transition is over). */
static void klp_cancel_task_works(struct klp_transition *tr)
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

/* Switch t, or keep it for a stopper if it runs, or say it is blocked. */
static void klp_sweep_task(struct klp_transition *tr, struct task_struct *t,
			   struct klp_check *c, unsigned int *nr_run)
{
	int ret;

	tr->total++;
	ret = klp_try_task(tr, t, c);
	if (ret == KLP_BLOCK_RUNNING && *nr_run < nr_cpu_ids) {
		get_task_struct(t);
		tr->running[(*nr_run)++] = t;
	} else if (ret) {
		klp_task_blocked(tr, t, ret, c->func);
	}
}

static void klp_sweep(struct klp_transition *tr)
{
	struct klp_check c = {
		.tr = tr, .entries = tr->entries, .max = KLP_STACK_ENTRIES,
	};
	unsigned int nr_run = 0, i;
	struct task_struct *g, *t;
	struct klp_stop stop;
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
		klp_sweep_task(tr, t, &c, &nr_run);
	read_unlock(tr->k.tasklist_lock);

	for_each_possible_cpu(cpu) {
		t = tr->k.idle_task(cpu);
		if (!cpu_online(cpu)) {
			tr->total++;
			/* parked: runs nothing of the patch */
			klp_map_set(tr->map, t, tr->target);
			continue;
		}
		klp_sweep_task(tr, t, &c, &nr_run);
	}

	/* Each one seen running: take its CPU from it, and look again. */
	for (i = 0; i < nr_run; i++) {
		t = tr->running[i];
		stop.task = t;
		stop.check = &c;
		stop.ret = KLP_BLOCK_RUNNING;
		if (tr->k.stop_one_cpu(task_cpu(t), klp_stop_switch, &stop))
			stop.ret = KLP_BLOCK_RUNNING;
		if (stop.ret)
			klp_task_blocked(tr, t, stop.ret, c.func);
		put_task_struct(t);
	}

	atomic_set(&tr->unswitched, tr->pending);
	trace_klp_transition(klp_next_seq(), klp_patch_name(tr->patch),
			     tr->target, KLP_TR_SWEEP, tr->sweep, tr->pending,
			     tr->total);
}

/* 10 ms after the first sweeps, doubling up to a second. */
static unsigned long klp_sweep_delay(struct klp_transition *tr)
{
	unsigned int shift = min(tr->sweep, 7U);

	return min_t(unsigned long, HZ, msecs_to_jiffies(10) << shift);
}

static void klp_free_map(struct klp_task_map *map)
{
	if (!map)
		return;
	vfree(map->bits);
	vfree(map->work_bits);
	kfree(map->idle);
	kfree(map);
}

static void klp_free_map_rcu(struct rcu_head *rcu)
{
	klp_free_map(container_of(rcu, struct klp_task_map, rcu));
}

/*
 * Unpublish the map and free what the transition held once no reader
 * can hold it: no grace period is waited for here (an enable or disable
 * costs ftrace's waits alone, 24-batch).
 */
static void klp_transition_teardown(struct klp_transition *tr)
{
	struct klp_ranges *r;

	cancel_delayed_work(&tr->sweep_work);
	rcu_assign_pointer(klp_task_map, NULL);
	r = rcu_replace_pointer(tr->ranges, NULL, lockdep_is_held(&klp_mutex));
	klp_cancel_task_works(tr);
	if (r)
		call_rcu(&r->rcu, klp_free_ranges_rcu);
	if (tr->map)
		call_rcu(&tr->map->rcu, klp_free_map_rcu);
	tr->map = NULL;
	tr->patch = NULL;
	tr->nr_blocked = 0;
}

static int klp_transition_finish(struct klp_transition *tr, int action)
{
	struct klp_patch *patch = tr->patch;
	int target = tr->target;
	char name[MODULE_NAME_LEN];
	int ret;

	/* the patch may be freed, after klp_mutex, once complete */
	strscpy(name, klp_patch_name(patch), sizeof(name));

	trace_klp_transition(klp_next_seq(), klp_patch_name(patch), target,
			     action, tr->sweep, tr->pending, tr->total);
	pr_notice("'%s': completing %s transition%s\n", klp_patch_name(patch),
		  target ? "patching" : "unpatching",
		  action == KLP_TR_FORCED ? " (forced)" : "");
	/* every task runs the target's code: the stacks can become it */
	ret = klp_transition_complete(patch, target);
	klp_stacks_transition(NULL, false);
	klp_transition_teardown(tr);
	pr_notice("'%s': %s complete\n", name,
		  target ? "patching" : "unpatching");
	return ret;
}

/* Sweep; complete, or try again in a second. */
static void klp_transition_try(struct klp_transition *tr)
{
	klp_sweep(tr);
	if (!tr->pending)
		klp_transition_finish(tr, KLP_TR_COMPLETE);
	else
		mod_delayed_work(tr->wq, &tr->sweep_work, klp_sweep_delay(tr));
}

static void klp_sweep_work_fn(struct work_struct *work)
{
	struct klp_transition *tr = container_of(to_delayed_work(work),
						 struct klp_transition,
						 sweep_work);

	mutex_lock(&klp_mutex);
	if (tr->patch)
		klp_transition_try(tr);
	mutex_unlock(&klp_mutex);
}

/* --- the transition's life ----------------------------------------------- */

/**
 * klp_transition_init() - begin a transition of patch toward target
 * @patch:	a patch to enable (its funcs not pushed yet) or disable
 * @target:	KLP_ENABLED or KLP_DISABLED
 *
 * Every task starts in the state it runs now (the opposite of @target),
 * and from now on every push marks its stack: a func the transition
 * pushes reaches no task before that task switches.  Follow with
 * klp_transition_start(), or klp_transition_abort() if the funcs could
 * not be pushed.
 *
 * Return: 0, or -ENOMEM with nothing changed
 */
int klp_transition_init(struct klp_patch *patch, int target)
{
	struct klp_transition *tr = &klp_tr;
	struct klp_task_map *map;
	struct task_struct *g, *t;
	unsigned int total = 0;

	lockdep_assert_held(&klp_mutex);

	if (WARN_ON(tr->patch))
		return -EBUSY;
	map = kzalloc(sizeof(*map), GFP_KERNEL);
	if (map) {
		map->bits = vmalloc(BITS_TO_LONGS(PID_MAX_LIMIT) * sizeof(long));
		map->work_bits = vzalloc(BITS_TO_LONGS(PID_MAX_LIMIT) *
					 sizeof(long));
		map->idle = kcalloc(nr_cpu_ids, sizeof(u8), GFP_KERNEL);
	}
	if (!map || !map->bits || !map->work_bits || !map->idle) {
		klp_free_map(map);
		return -ENOMEM;
	}
	memset(map->bits, target ? 0 : 0xff,
	       BITS_TO_LONGS(PID_MAX_LIMIT) * sizeof(long));
	memset(map->idle, !target, nr_cpu_ids);
	tr->map = map;

	tr->patch = patch;
	tr->target = target;
	tr->nops = patch->replace && target == KLP_ENABLED;
	tr->sweep = 0;
	tr->next_signal = jiffies + KLP_SIGNAL_DELAY;
	tr->started_ns = ktime_get_real_ns();
	rcu_read_lock();
	for_each_process_thread(g, t)
		total++;
	rcu_read_unlock();
	tr->total = total + num_possible_cpus();
	tr->pending = tr->total;
	rcu_assign_pointer(klp_task_map, tr->map);
	klp_stacks_transition(patch, tr->nops);
	pr_notice("'%s': initializing %s transition\n", klp_patch_name(patch),
		  target ? "patching" : "unpatching");
	return 0;
}

/**
 * klp_transition_abort() - end a transition no task switched in
 *
 * The funcs of the patch could not be pushed (klp_patch_objects() failed
 * and published nothing): nothing to switch back.
 */
void klp_transition_abort(void)
{
	struct klp_transition *tr = &klp_tr;

	lockdep_assert_held(&klp_mutex);

	if (!tr->patch)
		return;
	pr_notice("'%s': canceling %s transition, going to unpatch\n",
		  klp_patch_name(tr->patch),
		  tr->target ? "patching" : "unpatching");
	pr_notice("'%s': completing unpatching transition\n",
		  klp_patch_name(tr->patch));
	klp_stacks_transition(NULL, false);
	klp_transition_teardown(tr);
}

/**
 * klp_transition_start() - switch every task it can, now and later
 *
 * The funcs are pushed (or, to disable, still on their stacks and
 * marked).  Emits klp:klp_transition start.  Tasks not switched within a
 * few sweeps of 10 ms switch in the sweeps that follow, or in their own
 * task_work.
 *
 * Return: 0, or the error of a transition that completed here and left
 * its patch as it was (a disable whose ftrace update failed)
 */
int klp_transition_start(void)
{
	struct klp_transition *tr = &klp_tr;
	int i;

	lockdep_assert_held(&klp_mutex);

	trace_klp_transition(klp_next_seq(), klp_patch_name(tr->patch),
			     tr->target, KLP_TR_START, 0, tr->pending,
			     tr->total);
	pr_notice("'%s': starting %s transition\n", klp_patch_name(tr->patch),
		  tr->target ? "patching" : "unpatching");
	for (i = 1; ; i++) {
		klp_sweep(tr);
		if (!tr->pending || i == KLP_FIRST_SWEEPS)
			break;
		usleep_range(10000, 11000);
	}
	if (!tr->pending)
		return klp_transition_finish(tr, KLP_TR_COMPLETE);
	mod_delayed_work(tr->wq, &tr->sweep_work, klp_sweep_delay(tr));
	return 0;
}

/* Flip the target: the tasks switched so far go back. */
static void klp_transition_reverse(struct klp_transition *tr)
{
	WRITE_ONCE(tr->target, !tr->target);
	/* no task_work still decides with the old target */
	synchronize_rcu();
	pr_notice("'%s': reversing transition from %s\n",
		  klp_patch_name(tr->patch),
		  tr->target ? "unpatching to patching" :
			       "patching to unpatching");
	trace_klp_transition(klp_next_seq(), klp_patch_name(tr->patch),
			     tr->target, KLP_TR_REVERSED, tr->sweep,
			     tr->total - tr->pending, tr->total);
	cancel_delayed_work(&tr->sweep_work);
	pr_notice("'%s': starting %s transition\n", klp_patch_name(tr->patch),
		  tr->target ? "patching" : "unpatching");
	klp_transition_try(tr);
}

/**
 * klp_transition_request() - enable or disable a patch while one is in transition
 * @patch:	the patch written to
 * @state:	the state asked for
 *
 * Writing the other state of the transition's patch reverses it
 * (upstream); anything else waits for the transition to end.
 *
 * Return: 1 if no transition runs (go on), 0 if reversed, -EINVAL for
 * the state the transition already goes to, -EBUSY for another patch
 */
int klp_transition_request(struct klp_patch *patch, int state)
{
	struct klp_transition *tr = &klp_tr;

	lockdep_assert_held(&klp_mutex);

	if (!tr->patch)
		return 1;
	if (tr->patch != patch) {
		pr_warn("cannot %s patch '%s': patch '%s' is in transition to %s (%u of %u tasks pending)\n",
			state ? "enable" : "disable", klp_patch_name(patch),
			klp_patch_name(tr->patch),
			tr->target ? "enabled" : "disabled", tr->pending,
			tr->total);
		return -EBUSY;
	}
	if (state == tr->target)
		return -EINVAL;
	klp_transition_reverse(tr);
	return 0;
}

/**
 * klp_transition_force() - mark every task switched and complete
 * @patch:	the patch in transition
 *
 * Names in the log every task it overrides, and keeps the patch module
 * pinned for good: a task may still run its code.
 *
 * Return: 0, -EINVAL if @patch is not in transition, or ftrace's error
 * if the forced disable could not unhook some functions
 */
int klp_transition_force(struct klp_patch *patch)
{
	struct klp_transition *tr = &klp_tr;
	struct task_struct *g, *t;
	unsigned int n = 0;
	int cpu;

	lockdep_assert_held(&klp_mutex);

	if (!tr->patch || tr->patch != patch)
		return -EINVAL;

	pr_warn("'%s': forcing the transition to %s: tasks not switched are marked switched; the patch module stays loaded for good\n",
		klp_patch_name(patch), tr->target ? "patched" : "unpatched");
	read_lock(tr->k.tasklist_lock);
	for_each_process_thread(g, t) {
		if (klp_map_get(tr->map, t) == tr->target)
			continue;
		if (n++ < KLP_FORCE_SHOWN)
			pr_warn("'%s': forced task %d (%s), not switched\n",
				klp_patch_name(patch), t->pid, t->comm);
		klp_map_set(tr->map, t, tr->target);
	}
	read_unlock(tr->k.tasklist_lock);
	for_each_possible_cpu(cpu) {
		t = tr->k.idle_task(cpu);
		if (klp_map_get(tr->map, t) == tr->target)
			continue;
		if (n++ < KLP_FORCE_SHOWN)
			pr_warn("'%s': forced idle task of CPU %d, not switched\n",
				klp_patch_name(patch), cpu);
		klp_map_set(tr->map, t, tr->target);
	}
	if (n > KLP_FORCE_SHOWN)
		pr_warn("'%s': forced %u more tasks\n", klp_patch_name(patch),
			n - KLP_FORCE_SHOWN);
	patch->forced = true;
	tr->pending = n;
	return klp_transition_finish(tr, KLP_TR_FORCED);
}

/**
 * klp_transition_running() - does a transition run
 *
 * Return: true while one does
 */
bool klp_transition_running(void)
{
	lockdep_assert_held(&klp_mutex);
	return klp_tr.patch;
}

/**
 * klp_in_transition() - is patch in transition
 * @patch:	a patch
 *
 * Return: true while its transition runs
 */
bool klp_in_transition(struct klp_patch *patch)
{
	lockdep_assert_held(&klp_mutex);
	return patch && klp_tr.patch == patch;
}

/**
 * klp_transition_target() - the state a patch is or goes to
 * @patch:	a registered patch
 *
 * Return: KLP_ENABLED or KLP_DISABLED, as its sysfs "enabled" says
 */
int klp_transition_target(struct klp_patch *patch)
{
	lockdep_assert_held(&klp_mutex);
	return klp_in_transition(patch) ? klp_tr.target : patch->state;
}

/**
 * klp_transition_stacks_changed() - a module changed the marked stacks
 *
 * A module came or went during the transition: its functions' code
 * joins or leaves what a task's stack is checked against.
 */
void klp_transition_stacks_changed(void)
{
	lockdep_assert_held(&klp_mutex);

	if (klp_tr.patch && klp_ranges_update(&klp_tr))
		pr_warn("'%s': out of memory updating the transition's code ranges\n",
			klp_patch_name(klp_tr.patch));
}

/**
 * klp_transition_show() - the transition's lines of klp/state
 * @m:		the seq_file
 *
 * "transition <patch> <target> <sweep> <pending> <total> <started_ns>"
 * and one "blocked <pid> <reason> <function or -> <comm>" line for each
 * of the first tasks the last sweep could not switch; nothing when no
 * transition runs.
 */
void klp_transition_show(struct seq_file *m)
{
	struct klp_transition *tr = &klp_tr;
	struct klp_blocked *b;

	lockdep_assert_held(&klp_mutex);

	if (!tr->patch)
		return;
	seq_printf(m, "transition %s %d %u %u %u %llu\n",
		   klp_patch_name(tr->patch), tr->target, tr->sweep,
		   tr->pending, tr->total, tr->started_ns);
	for (b = tr->blocked; b < tr->blocked + tr->nr_blocked; b++)
		seq_printf(m, "blocked %d %d %s %s\n", b->pid, b->reason,
			   b->func[0] ? b->func : "-", b->comm);
}

/**
 * klp_queue_free() - run a patch's freeing after klp_mutex is dropped
 * @work:	its work
 */
void klp_queue_free(struct work_struct *work)
{
	queue_work(klp_tr.wq, work);
}

/* --- new tasks ------------------------------------------------------------ */

static void klp_fork_probe(void *data, struct task_struct *parent,
			   struct task_struct *child)
{
	struct klp_task_map *map = rcu_dereference_raw(klp_task_map);

	if (!map || !child->pid)
		return;
	clear_bit(child->pid, map->work_bits);
	assign_bit(child->pid, map->bits, klp_map_get(map, parent));
}

/* A thread's exec gives it its leader's pid: the state goes with it. */
static void klp_exec_probe(void *data, struct task_struct *p, pid_t old_pid,
			   struct linux_binprm *bprm)
{
	struct klp_task_map *map = rcu_dereference_raw(klp_task_map);

	if (map && old_pid != p->pid && old_pid > 0)
		assign_bit(p->pid, map->bits, test_bit(old_pid, map->bits));
}

static void klp_find_tracepoint(struct tracepoint *tp, void *priv)
{
	struct klp_transition *tr = priv;

	if (!strcmp(tp->name, "sched_process_fork"))
		tr->tp_fork = tp;
	else if (!strcmp(tp->name, "sched_process_exec"))
		tr->tp_exec = tp;
}

static int klp_find_kfuncs(struct klp_kfuncs *k)
{
	return klp_resolve_function("kallsyms_lookup_size_offset",
				    &k->size_offset,
				    KLP_TRAMP_KALLSYMS_LOOKUP_SIZE_OFFSET) ?:
	       klp_resolve_function("stack_trace_save_tsk_reliable",
				    &k->save_reliable,
				    KLP_TRAMP_STACK_TRACE_SAVE_TSK_RELIABLE) ?:
	       klp_resolve_function("task_call_func", &k->call_func,
				    KLP_TRAMP_TASK_CALL_FUNC) ?:
	       klp_resolve_function("stop_one_cpu", &k->stop_one_cpu,
				    KLP_TRAMP_STOP_ONE_CPU) ?:
	       klp_resolve_function("wake_up_state", &k->wake_up_state,
				    KLP_TRAMP_WAKE_UP_STATE) ?:
	       klp_resolve_function("idle_task", &k->idle_task,
				    KLP_TRAMP_IDLE_TASK) ?:
	       klp_resolve_function("task_work_cancel_match", &k->work_cancel,
				    KLP_TRAMP_TASK_WORK_CANCEL_MATCH) ?:
	       klp_resolve_data("tasklist_lock", &k->tasklist_lock);
}

/**
 * klp_transition_setup() - find what transitions need, probe fork and exec
 *
 * Return: 0, or an error naming what is missing (the core refuses to
 * load: without reliable stack traces there is no consistency model)
 */
int klp_transition_setup(void)
{
	struct klp_transition *tr = &klp_tr;
	int ret;

	ret = klp_find_kfuncs(&tr->k);
	if (ret)
		return ret;
	atomic_set(&tr->works, 0);
	init_waitqueue_head(&tr->works_done);
	INIT_DELAYED_WORK(&tr->sweep_work, klp_sweep_work_fn);
	tr->running = kcalloc(nr_cpu_ids, sizeof(*tr->running), GFP_KERNEL);
	tr->wq = alloc_workqueue("klp", WQ_UNBOUND, 0);
	if (!tr->running || !tr->wq) {
		ret = -ENOMEM;
		goto err;
	}

	for_each_kernel_tracepoint(klp_find_tracepoint, tr);
	if (!tr->tp_fork || !tr->tp_exec) {
		pr_err("cannot find the sched_process_fork and sched_process_exec tracepoints: refusing to load\n");
		ret = -ENOENT;
		goto err;
	}
	ret = tracepoint_probe_register(tr->tp_fork, klp_fork_probe, NULL);
	if (ret)
		goto err;
	ret = tracepoint_probe_register(tr->tp_exec, klp_exec_probe, NULL);
	if (ret) {
		tracepoint_probe_unregister(tr->tp_fork, klp_fork_probe, NULL);
		goto err;
	}
	return 0;
err:
	if (tr->wq)
		destroy_workqueue(tr->wq);
	kfree(tr->running);
	return ret;
}

/**
 * klp_transition_cleanup() - undo klp_transition_setup() (no patch left)
 */
void klp_transition_cleanup(void)
{
	struct klp_transition *tr = &klp_tr;

	WARN_ON(tr->patch);
	tracepoint_probe_unregister(tr->tp_exec, klp_exec_probe, NULL);
	tracepoint_probe_unregister(tr->tp_fork, klp_fork_probe, NULL);
	tracepoint_synchronize_unregister();
	destroy_workqueue(tr->wq);
	wait_event(tr->works_done, !atomic_read(&tr->works));
	synchronize_rcu();
	rcu_barrier();	/* the maps and ranges freed by call_rcu() */
	kfree(tr->running);
}
