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
 *    read (a preemption point: in user mode, or cond_resched()); the
 *    sweep queues it and goes on, as upstream never waits for a task;
 *  - a user task asleep in the kernel: itself, from a task_work at its
 *    next return to user mode (queued at its first failed sweep);
 *    the last task to switch asks for a sweep at once;
 *    every KLP_SIGNAL_DELAY (15 s) the task_work comes with a fake
 *    signal (TWA_SIGNAL) that interrupts a sleep in a syscall, and
 *    sleeping kthreads are woken, as upstream does;
 *  - a new task takes the state of the task that made it (the
 *    task_newtask probe, in copy_process(): forks, kernel threads, and
 *    io_uring and vhost workers alike, before it can run);
 *    an exec by a thread that is not its group's leader swaps its pid
 *    with the leader's (exchange_tids(), probed): their bits swap there,
 *    under tasklist_lock, so each task keeps its own state.
 *
 * When every task has switched, the stacks are settled in the target
 * state (patch.c), the funcs the transition takes off are popped, and
 * only after every CPU has passed through the scheduler (no ftrace
 * handler still holds a winner read before a pop) are the marks cleared,
 * the callbacks run and a patch released: upstream's
 * klp_synchronize_transition().
 * Each sweep is a klp:klp_transition record; each task it could not
 * switch a klp:klp_task_blocked event saying why.  How a task switches is
 * sweep.c; the transition's life (start, reverse, force, complete) and
 * the probes are here.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/kprobes.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/tracepoint.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>
#include "core.h"
#include "patch.h"
#include "sweep.h"
#include "symbols.h"
#include "tramp.h"
#include "klp_trace.h"

#define KLP_FIRST_SWEEPS	4	/* in the write, up to 10 ms apart */
#define KLP_FORCE_SHOWN		64	/* tasks force names in the log */

struct klp_task_map __rcu *klp_task_map;
struct klp_transition klp_tr;

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
	klp_stacks_settle(target);
	ret = klp_transition_complete(patch, target);
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

static void klp_sync_fn(struct work_struct *work)
{
}

/**
 * klp_transition_unmark() - no stack is marked any more
 *
 * Called by klp_transition_complete() once the funcs the transition takes
 * off are popped.  If that changed a winner, it first waits until every
 * CPU has scheduled: a handler that read a winner before the pop (it
 * runs with preemption off, RCU watching or not) is done, so none can
 * pair that winner with the cleared mark.
 */
void klp_transition_unmark(void)
{
	struct klp_transition *tr = &klp_tr;

	lockdep_assert_held(&klp_mutex);

	if (klp_stacks_settled_changed())
		tr->k.schedule_on_each_cpu(klp_sync_fn);
	klp_stacks_transition(NULL, false);
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
 * and published nothing): nothing to switch back.  A transition that
 * started ends by completing, reversed, forced or, with its patch
 * module going, by klp_transition_going().
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
		if (!tr->pending || i > KLP_FIRST_SWEEPS)
			break;
		/*
		 * The stoppers and task_works this sweep queued switch its
		 * running and user tasks meanwhile: the next sweep sees them
		 * (and a task born since) as soon as they all have.  After
		 * the last one, only if they all have.
		 */
		if (!wait_event_timeout(tr->works_done,
					!atomic_read(&tr->unswitched),
					msecs_to_jiffies(10)) &&
		    i == KLP_FIRST_SWEEPS)
			break;
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
 * Names in the log every task it overrides, and pins for good the
 * modules whose code a task not switched may still run once the patch
 * is off the stacks, as upstream does: the transition patch's, forced
 * off; every other patch's, under a forced replace (they are taken off
 * with no task waited for).  A forced enable pins nothing: a task left
 * in the function below runs a patch still on its stack, and that
 * patch's own disable checks every task's stack for it.
 *
 * Return: 0, -EINVAL if @patch is not in transition, or ftrace's error
 * if the forced disable could not unhook some functions
 */
int klp_transition_force(struct klp_patch *patch)
{
	struct klp_transition *tr = &klp_tr;
	struct task_struct *g, *t;
	struct klp_patch *p;
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
	if (tr->target == KLP_DISABLED) {
		patch->forced = true;
	} else if (patch->replace) {
		list_for_each_entry(p, &klp_patches, list)
			if (p != patch)
				p->forced = true;
	}
	tr->pending = n;
	return klp_transition_finish(tr, KLP_TR_FORCED);
}

/**
 * klp_transition_going() - end the transition of a patch whose module goes
 * @patch:	the patch in transition; its module's code is being freed
 *
 * The patch module is going (its init failed after it enabled the
 * patch): its code goes whatever the tasks run, so no task is waited for.
 * The transition goes to the unpatched state and completes at once: the
 * funcs are popped, the post_unpatch callbacks run (pre_unpatch ran when
 * a disable started, and is not due after an enable whose post_patch did
 * not run), and the patch is not released: the caller frees it.
 *
 * Return: 0, or ftrace's error if it refused to unhook some functions
 */
int klp_transition_going(struct klp_patch *patch)
{
	struct klp_transition *tr = &klp_tr;

	lockdep_assert_held(&klp_mutex);

	if (WARN_ON(tr->patch != patch))
		return -EINVAL;
	pr_warn("'%s': its module is going during its transition to %s: unpatching it now, without waiting for any task\n",
		klp_patch_name(patch), tr->target ? "patched" : "unpatched");
	WRITE_ONCE(tr->target, KLP_DISABLED);
	patch->enable_only = false;
	tr->pending = 0;
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

/*
 * copy_process(), before the new task can run: it takes the state of
 * the task that makes it (its parent, or kthreadd, or the io_uring task
 * whose worker it is), as upstream's klp_copy_process() does.
 */
static void klp_newtask_probe(void *data, struct task_struct *child,
			      unsigned long clone_flags)
{
	struct klp_task_map *map = rcu_dereference_raw(klp_task_map);

	if (!map || !child->pid)
		return;
	clear_bit(child->pid, map->work_bits);
	assign_bit(child->pid, map->bits, klp_map_get(map, current));
}

/*
 * exec by a thread that is not its group's leader: de_thread() swaps its
 * pid with the leader's under tasklist_lock (held for writing, so no
 * sweep, CPU stopper or fork runs meanwhile).  Each task's bit goes with
 * it.  Upstream keeps the state in the task itself; klp keys it by pid.
 */
static int klp_exchange_probe(struct kprobe *kp, struct pt_regs *regs)
{
	struct task_struct *left = (void *)regs_get_kernel_argument(regs, 0);
	struct task_struct *right = (void *)regs_get_kernel_argument(regs, 1);
	struct klp_task_map *map = rcu_dereference_raw(klp_task_map);
	bool l, r;

	if (!map || !left->pid || !right->pid)
		return 0;
	l = test_bit(left->pid, map->bits);
	r = test_bit(right->pid, map->bits);
	assign_bit(left->pid, map->bits, r);
	assign_bit(right->pid, map->bits, l);
	l = test_bit(left->pid, map->work_bits);
	r = test_bit(right->pid, map->work_bits);
	assign_bit(left->pid, map->work_bits, r);
	assign_bit(right->pid, map->work_bits, l);
	return 0;
}
NOKPROBE_SYMBOL(klp_exchange_probe);

static void klp_find_tracepoint(struct tracepoint *tp, void *priv)
{
	struct klp_transition *tr = priv;

	if (!strcmp(tp->name, "task_newtask"))
		tr->tp_newtask = tp;
}

static int klp_find_kfuncs(struct klp_kfuncs *k)
{
	return klp_resolve_function("stack_trace_save_tsk_reliable",
				    &k->save_reliable,
				    KLP_TRAMP_STACK_TRACE_SAVE_TSK_RELIABLE) ?:
	       klp_resolve_function("task_call_func", &k->call_func,
				    KLP_TRAMP_TASK_CALL_FUNC) ?:
	       klp_resolve_function("stop_one_cpu_nowait",
				    &k->stop_one_cpu_nowait,
				    KLP_TRAMP_STOP_ONE_CPU_NOWAIT) ?:
	       klp_resolve_function("schedule_on_each_cpu",
				    &k->schedule_on_each_cpu,
				    KLP_TRAMP_SCHEDULE_ON_EACH_CPU) ?:
	       klp_resolve_function("wake_up_state", &k->wake_up_state,
				    KLP_TRAMP_WAKE_UP_STATE) ?:
	       klp_resolve_function("idle_task", &k->idle_task,
				    KLP_TRAMP_IDLE_TASK) ?:
	       klp_resolve_function("task_work_cancel_match", &k->work_cancel,
				    KLP_TRAMP_TASK_WORK_CANCEL_MATCH) ?:
	       klp_resolve_data("tasklist_lock", &k->tasklist_lock);
}

/**
 * klp_transition_setup() - find what transitions need, probe new tasks and exec
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
	tr->stops = kcalloc(nr_cpu_ids, sizeof(*tr->stops), GFP_KERNEL);
	tr->wq = alloc_workqueue("klp", WQ_UNBOUND, 0);
	if (!tr->stops || !tr->wq) {
		ret = -ENOMEM;
		goto err;
	}

	for_each_kernel_tracepoint(klp_find_tracepoint, tr);
	if (!tr->tp_newtask) {
		pr_err("cannot find the task_newtask tracepoint: refusing to load\n");
		ret = -ENOENT;
		goto err;
	}
	tr->exchange.symbol_name = "exchange_tids";
	tr->exchange.pre_handler = klp_exchange_probe;
	ret = register_kprobe(&tr->exchange);
	if (ret) {
		pr_err("cannot probe exchange_tids() (%d), where an exec renumbers a thread: refusing to load\n",
		       ret);
		goto err;
	}
	ret = tracepoint_probe_register(tr->tp_newtask, klp_newtask_probe,
					NULL);
	if (ret) {
		unregister_kprobe(&tr->exchange);
		goto err;
	}
	return 0;
err:
	if (tr->wq)
		destroy_workqueue(tr->wq);
	kfree(tr->stops);
	return ret;
}

/**
 * klp_transition_cleanup() - undo klp_transition_setup() (no patch left)
 */
void klp_transition_cleanup(void)
{
	struct klp_transition *tr = &klp_tr;

	WARN_ON(tr->patch);
	unregister_kprobe(&tr->exchange);
	tracepoint_probe_unregister(tr->tp_newtask, klp_newtask_probe, NULL);
	tracepoint_synchronize_unregister();
	/* a last task_work or stopper may still queue a sweep: first them */
	wait_event(tr->works_done, !atomic_read(&tr->works));
	synchronize_rcu();	/* and out of their read-side sections */
	destroy_workqueue(tr->wq);
	rcu_barrier();	/* the maps and ranges freed by call_rcu() */
	kfree(tr->stops);
}
