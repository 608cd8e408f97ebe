// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ktt_sleepers.c - the torture test's switchboard, ktt_park (see ktt.h)
 *
 * The torture driver (klp_torture.py) asks it, through
 * /sys/kernel/debug/ktt/ctl, to send a sleeper kthread into a target
 * function: the sleeper calls the function through its winner and parks
 * inside the code the call reached (the original in its target module, or
 * a patch module's replacement) until it is released.  A user task can
 * park itself the same way ("parkme").  /sys/kernel/debug/ktt/sleepers
 * says who is parked where (module and version), which the driver keeps
 * against rmmod (a module must never go while a task is inside it) and
 * against the transitions it expects to be held.
 *
 * Per side (k: klp, b: builtin): calls (what each function's winner
 * returns now), pair (one call of OUTER, for the storms), log (the
 * callbacks' lines, read and cleared), mixed (calls of OUTER that met
 * another INNER than their own), counts (the calls each code of each
 * function took), spawned (what the call of a kthread made by "spawn"
 * returned).
 */
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/slab.h>
#include "ktt_park.h"

const char * const ktt_core_names[KTT_NR_CORES] = { "k", "b" };
const char * const ktt_fn_names[KTT_NR_FNS] = {
	"f1", "f2", "f3", "outer", "inner", "vm"
};
const char * const ktt_state_names[] = {
	"idle", "calling", "parked", "returned"
};

struct ktt ktt;

/**
 * ktt_register_target() - a target module offers its functions
 * @core:	its side
 * @target:	its functions
 *
 * Return: 0, or -EBUSY if that side has one
 */
int ktt_register_target(int core, const struct ktt_target *target)
{
	struct ktt_side *side = &ktt.side[core];
	int ret = 0;

	spin_lock(&ktt.lock);
	if (side->loaded) {
		ret = -EBUSY;
	} else {
		side->target = *target;
		side->loaded = true;
	}
	spin_unlock(&ktt.lock);
	return ret;
}
EXPORT_SYMBOL_GPL(ktt_register_target);

/**
 * ktt_unregister_target() - a target module goes
 * @core:	its side
 *
 * No call is in it: each holds a reference on it (ktt_call()).
 */
void ktt_unregister_target(int core)
{
	spin_lock(&ktt.lock);
	ktt.side[core].loaded = false;
	spin_unlock(&ktt.lock);
}
EXPORT_SYMBOL_GPL(ktt_unregister_target);

/**
 * ktt_call() - call a target function through its winner
 * @core:	the side
 * @fn:		the function, not KTT_VM
 *
 * The target module is pinned while the call is in it, parked or not.
 *
 * Return: what the winner returned, or KTT_NO_TARGET
 */
int ktt_call(int core, int fn)
{
	struct ktt_side *side = &ktt.side[core];
	int (*f)(void) = NULL;
	struct module *owner = NULL;
	int ret;

	spin_lock(&ktt.lock);
	if (side->loaded && try_module_get(side->target.owner)) {
		owner = side->target.owner;
		f = side->target.fn[fn];
	}
	spin_unlock(&ktt.lock);
	if (!f) {
		if (owner)
			module_put(owner);
		return KTT_NO_TARGET;
	}
	ret = f();
	module_put(owner);
	return ret;
}
EXPORT_SYMBOL_GPL(ktt_call);

static struct ktt_sleeper *ktt_sleeper_of(int core, int fn)
{
	struct ktt_sleeper *s;
	int i;

	for (i = 0; i < KTT_SLEEPERS; i++) {
		s = &ktt.side[core].sleepers[i];
		if (s->task == current)
			return s->fn == fn ? s : NULL;
	}
	for (i = 0; i < KTT_PARKERS; i++) {
		s = &ktt.parkers[i];
		if (s->pid && s->pid == current->pid && s->core == core)
			return s->fn == fn ? s : NULL;
	}
	return NULL;
}

/**
 * ktt_enter() - every torture function's first step: park if asked to
 * @core:	the side whose function runs
 * @fn:		the function
 * @version:	what this code of it returns
 * @modname:	the module this code is in
 *
 * A sleeper asked to park in @fn waits here, inside this code, until it
 * is released; the others go on (a call of OUTER pauses a little, so
 * that the storms' calls are often inside it).
 */
void ktt_enter(int core, int fn, int version, const char *modname)
{
	struct ktt_sleeper *s;

	if (version >= 0 && version < KTT_MAX_VER)
		atomic_inc(&ktt.side[core].calls[fn][version]);
	spin_lock(&ktt.lock);
	s = ktt_sleeper_of(core, fn);
	if (s && !s->released && s->state != KTT_PARKED) {
		strscpy(s->mod, modname, sizeof(s->mod));
		s->version = version;
		s->state = KTT_PARKED;
	} else {
		s = NULL;
	}
	spin_unlock(&ktt.lock);
	if (!s) {
		if (fn == KTT_OUTER)
			usleep_range(20, 40);
		return;
	}
	wake_up(&ktt.status_wq);
	if (s->task) {
		/* interruptible: both sides' sweeps wake sleeping kthreads */
		while (!READ_ONCE(s->released) && !kthread_should_stop())
			wait_event_interruptible(s->wq, READ_ONCE(s->released) ||
						 kthread_should_stop());
	} else {
		/*
		 * killable only: a fake signal (both sides send one to a user
		 * task that holds a transition) must not end the park; an
		 * exec of another thread (de_thread()'s SIGKILL) does
		 */
		wait_event_killable(s->wq, READ_ONCE(s->released));
	}
	spin_lock(&ktt.lock);
	s->state = KTT_CALLING;
	spin_unlock(&ktt.lock);
}
EXPORT_SYMBOL_GPL(ktt_enter);

/**
 * ktt_pair_check() - OUTER met INNER: count a mix of versions
 * @core:	the side
 * @outer:	OUTER's version
 * @inner:	what INNER returned
 */
void ktt_pair_check(int core, int outer, int inner)
{
	if (outer == inner || inner == KTT_NO_TARGET)
		return;
	atomic_inc(&ktt.side[core].mixed);
	pr_warn("ktt: %s: pid %d (%s) ran outer version %d with inner version %d\n",
		ktt_core_names[core], current->pid, current->comm, outer, inner);
}
EXPORT_SYMBOL_GPL(ktt_pair_check);

/**
 * ktt_log() - a line of the callbacks' log of a side
 * @core:	the side
 * @fmt:	the line, without its newline
 */
void ktt_log(int core, const char *fmt, ...)
{
	struct ktt_side *side = &ktt.side[core];
	va_list args;
	int n;

	spin_lock(&ktt.lock);
	va_start(args, fmt);
	n = vscnprintf(side->log + side->log_len,
		       KTT_LOG_LEN - side->log_len - 1, fmt, args);
	va_end(args);
	side->log_len += n;
	if (side->log_len < KTT_LOG_LEN - 1)
		side->log[side->log_len++] = '\n';
	side->log[side->log_len] = '\0';
	spin_unlock(&ktt.lock);
}
EXPORT_SYMBOL_GPL(ktt_log);

/* --- the sleeper kthreads ------------------------------------------------ */

static int ktt_sleeper_fn(void *arg)
{
	struct ktt_sleeper *s = arg;
	int ret;

	while (!kthread_should_stop()) {
		wait_event_interruptible(s->wq, READ_ONCE(s->state) == KTT_CALLING ||
					 kthread_should_stop());
		if (READ_ONCE(s->state) != KTT_CALLING)
			continue;
		ret = ktt_call(s->core, s->fn);
		spin_lock(&ktt.lock);
		s->ret = ret;
		s->state = KTT_RETURNED;
		spin_unlock(&ktt.lock);
		wake_up(&ktt.status_wq);
	}
	return 0;
}

/* "park k 0 outer": sleeper 0 of side k calls outer and parks in it. */
int ktt_park_cmd(int core, int slot, int fn)
{
	struct ktt_sleeper *s = &ktt.side[core].sleepers[slot];
	int ret = 0;

	if (fn == KTT_VM)
		return -EINVAL;	/* /proc reaches it: "parkme" */
	spin_lock(&ktt.lock);
	if (s->state == KTT_CALLING || s->state == KTT_PARKED) {
		ret = -EBUSY;
	} else {
		s->fn = fn;
		s->released = false;
		s->mod[0] = '\0';
		s->version = 0;
		s->state = KTT_CALLING;
	}
	spin_unlock(&ktt.lock);
	if (!ret)
		wake_up(&s->wq);
	return ret;
}

void ktt_release(struct ktt_sleeper *s)
{
	spin_lock(&ktt.lock);
	s->released = true;
	spin_unlock(&ktt.lock);
	wake_up(&s->wq);
}

/*
 * A kthread made now calls fn once and records what it got: kthreadd
 * makes it, so it starts in kthreadd's state of a transition (26-edges
 * holds kthreadd unswitched).
 */
static int ktt_spawn_fn(void *arg)
{
	struct ktt_side *side = arg;
	int core = side - ktt.side;

	atomic_set(&side->spawned, ktt_call(core, READ_ONCE(side->spawn_fn)));
	return 0;
}

int ktt_spawn_cmd(int core, int fn)
{
	struct ktt_side *side = &ktt.side[core];
	struct task_struct *t;

	if (fn == KTT_VM)
		return -EINVAL;
	atomic_set(&side->spawned, -2);
	WRITE_ONCE(side->spawn_fn, fn);
	t = kthread_run(ktt_spawn_fn, side, "ktt_spawn_%s", ktt_core_names[core]);
	return PTR_ERR_OR_ZERO(t);
}

/* "parkme k vm 1234": user task 1234 parks at its next call of vm. */
int ktt_parkme_cmd(int core, int fn, pid_t pid)
{
	struct ktt_sleeper *s, *free = NULL;
	int i;

	spin_lock(&ktt.lock);
	for (i = 0; i < KTT_PARKERS; i++) {
		s = &ktt.parkers[i];
		if (s->pid == pid)
			free = s;
		else if (!s->pid && !free)
			free = s;
	}
	if (free) {
		free->pid = pid;
		free->core = core;
		free->fn = fn;
		free->released = false;
		free->state = KTT_IDLE;
		free->mod[0] = '\0';
	}
	spin_unlock(&ktt.lock);
	return free ? 0 : -ENOSPC;
}

int ktt_unpark_cmd(pid_t pid)
{
	struct ktt_sleeper *s;
	int i;

	for (i = 0; i < KTT_PARKERS; i++) {
		s = &ktt.parkers[i];
		if (s->pid != pid)
			continue;
		ktt_release(s);
		spin_lock(&ktt.lock);
		s->pid = 0;
		spin_unlock(&ktt.lock);
		return 0;
	}
	return -ENOENT;
}

static void ktt_stop_sleepers(void)
{
	struct ktt_sleeper *s;
	int core, i;

	for (core = 0; core < KTT_NR_CORES; core++) {
		for (i = 0; i < KTT_SLEEPERS; i++) {
			s = &ktt.side[core].sleepers[i];
			if (!s->task)
				continue;
			ktt_release(s);
			kthread_stop(s->task);
			s->task = NULL;
		}
	}
}

static int ktt_start_side(int core)
{
	struct ktt_side *side = &ktt.side[core];
	struct ktt_sleeper *s;
	int i;

	side->log = kzalloc(KTT_LOG_LEN, GFP_KERNEL);
	if (!side->log)
		return -ENOMEM;
	for (i = 0; i < KTT_SLEEPERS; i++) {
		s = &side->sleepers[i];
		s->core = core;
		s->fn = -1;
		init_waitqueue_head(&s->wq);
		s->task = kthread_run(ktt_sleeper_fn, s, "ktt_%s%d",
				      ktt_core_names[core], i);
		if (IS_ERR(s->task)) {
			s->task = NULL;
			return -ENOMEM;
		}
	}
	atomic_set(&side->spawned, -2);
	ktt_debugfs_side(core);
	return 0;
}

static int __init ktt_park_init(void)
{
	int core, i, ret = 0;

	spin_lock_init(&ktt.lock);
	init_waitqueue_head(&ktt.status_wq);
	for (i = 0; i < KTT_PARKERS; i++) {
		ktt.parkers[i].fn = -1;
		init_waitqueue_head(&ktt.parkers[i].wq);
	}
	ktt_debugfs_init();
	for (core = 0; core < KTT_NR_CORES && !ret; core++)
		ret = ktt_start_side(core);
	if (ret) {
		ktt_stop_sleepers();
		debugfs_remove_recursive(ktt.dir);
		for (core = 0; core < KTT_NR_CORES; core++)
			kfree(ktt.side[core].log);
	}
	return ret;
}

static void __exit ktt_park_exit(void)
{
	int core;

	debugfs_remove_recursive(ktt.dir);
	ktt_stop_sleepers();
	for (core = 0; core < KTT_NR_CORES; core++)
		kfree(ktt.side[core].log);
}

module_init(ktt_park_init);
module_exit(ktt_park_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("klp torture: sleepers, calls through the winners, the callbacks' log");
