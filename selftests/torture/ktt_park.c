// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ktt_park.c - the torture test's switchboard (see ktt.h)
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
 * function took).
 */
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#include "ktt.h"

#define KTT_SLEEPERS	3	/* kthreads per side */
#define KTT_PARKERS	4	/* user tasks that park themselves */
#define KTT_LOG_LEN	8192
#define KTT_MAX_VER	100	/* versions counted: the pool's are below */

static const char * const ktt_core_names[KTT_NR_CORES] = { "k", "b" };
static const char * const ktt_fn_names[KTT_NR_FNS] = {
	"f1", "f2", "f3", "outer", "inner", "vm"
};

enum ktt_sleeper_state { KTT_IDLE, KTT_CALLING, KTT_PARKED, KTT_RETURNED };
static const char * const ktt_state_names[] = {
	"idle", "calling", "parked", "returned"
};

/**
 * struct ktt_sleeper - a task sent into a function, or parking itself
 * @task:	the kthread (NULL for a user parker)
 * @pid:	the user parker's pid (0: slot free)
 * @core:	its side
 * @fn:		the function it parks in (-1: none asked)
 * @state:	enum ktt_sleeper_state
 * @released:	may leave the function
 * @mod:	the module whose code it is parked in
 * @version:	what that code returns
 * @ret:	what its last call returned
 * @wq:		it waits here, parked or idle
 */
struct ktt_sleeper {
	struct task_struct *task;
	pid_t pid;
	int core;
	int fn;
	int state;
	bool released;
	char mod[MODULE_NAME_LEN];
	int version;
	int ret;
	wait_queue_head_t wq;
};

/**
 * struct ktt_side - what ktt_park holds for one side
 * @target:	its target's functions, if loaded (@lock)
 * @loaded:	@target is valid
 * @mixed:	calls of OUTER that met another INNER
 * @calls:	by function and version: the calls that ran that code
 * @log:	the callbacks' lines since the last read (@lock)
 * @log_len:	bytes in @log
 * @sleepers:	its sleeper kthreads
 * @dir:	its debugfs directory
 */
struct ktt_side {
	struct ktt_target target;
	bool loaded;
	atomic_t mixed;
	atomic_t calls[KTT_NR_FNS][KTT_MAX_VER];
	char *log;
	size_t log_len;
	struct ktt_sleeper sleepers[KTT_SLEEPERS];
	struct dentry *dir;
};

static struct ktt {
	spinlock_t lock;
	struct ktt_side side[KTT_NR_CORES];
	struct ktt_sleeper parkers[KTT_PARKERS];
	wait_queue_head_t status_wq;
	struct dentry *dir;
} ktt;

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
static int ktt_park_cmd(int core, int slot, int fn)
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

static void ktt_release(struct ktt_sleeper *s)
{
	spin_lock(&ktt.lock);
	s->released = true;
	spin_unlock(&ktt.lock);
	wake_up(&s->wq);
}

/* "parkme k vm 1234": user task 1234 parks at its next call of vm. */
static int ktt_parkme_cmd(int core, int fn, pid_t pid)
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

static int ktt_unpark_cmd(pid_t pid)
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

static int ktt_index(const char *name, const char * const *names, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(name, names[i]))
			return i;
	return -1;
}

static ssize_t ktt_ctl_write(struct file *file, const char __user *ubuf,
			     size_t len, loff_t *ppos)
{
	char buf[64], cmd[16], side[4], what[16];
	int core, fn, slot, n, ret = -EINVAL;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	n = sscanf(buf, "%15s %3s %15s %d", cmd, side, what, &slot);
	core = n >= 2 ? ktt_index(side, ktt_core_names, KTT_NR_CORES) : -1;
	if (core < 0)
		return -EINVAL;
	if (n == 4 && !strcmp(cmd, "park")) {
		/* park <side> <fn> <slot> */
		fn = ktt_index(what, ktt_fn_names, KTT_NR_FNS);
		if (fn >= 0 && slot >= 0 && slot < KTT_SLEEPERS)
			ret = ktt_park_cmd(core, slot, fn);
	} else if (n == 3 && !strcmp(cmd, "release")) {
		/* release <side> <slot> */
		if (!kstrtoint(what, 10, &slot) && slot >= 0 &&
		    slot < KTT_SLEEPERS) {
			ktt_release(&ktt.side[core].sleepers[slot]);
			ret = 0;
		}
	} else if (n == 4 && !strcmp(cmd, "parkme")) {
		/* parkme <side> <fn> <pid> */
		fn = ktt_index(what, ktt_fn_names, KTT_NR_FNS);
		if (fn >= 0 && slot > 0)
			ret = ktt_parkme_cmd(core, fn, slot);
	} else if (n == 3 && !strcmp(cmd, "unpark")) {
		/* unpark <side> <pid> */
		if (!kstrtoint(what, 10, &slot))
			ret = ktt_unpark_cmd(slot);
	}
	return ret ?: len;
}

static const struct file_operations ktt_ctl_fops = {
	.owner = THIS_MODULE,
	.write = ktt_ctl_write,
};

/* Each sleeper: "<side> <slot or pid> <state> <fn> <module> <version> <pid> <ret>". */
static void ktt_show_sleeper(struct seq_file *m, struct ktt_sleeper *s,
			     const char *what, int id)
{
	seq_printf(m, "%s %s%d %s %s %s %d %d %d\n", ktt_core_names[s->core],
		   what, id, ktt_state_names[s->state],
		   s->fn >= 0 ? ktt_fn_names[s->fn] : "-",
		   s->mod[0] ? s->mod : "-", s->version,
		   s->task ? s->task->pid : s->pid, s->ret);
}

static int ktt_sleepers_show(struct seq_file *m, void *v)
{
	int core, i;

	spin_lock(&ktt.lock);
	for (core = 0; core < KTT_NR_CORES; core++)
		for (i = 0; i < KTT_SLEEPERS; i++)
			ktt_show_sleeper(m, &ktt.side[core].sleepers[i], "s", i);
	for (i = 0; i < KTT_PARKERS; i++)
		if (ktt.parkers[i].pid)
			ktt_show_sleeper(m, &ktt.parkers[i], "p", i);
	spin_unlock(&ktt.lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ktt_sleepers);

static int ktt_calls_show(struct seq_file *m, void *v)
{
	int core = (long)m->private;
	int fn;

	for (fn = 0; fn < KTT_VM; fn++)
		seq_printf(m, "%s%s=%d", fn ? " " : "", ktt_fn_names[fn],
			   ktt_call(core, fn));
	seq_putc(m, '\n');
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ktt_calls);

static int ktt_pair_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%d\n", ktt_call((long)m->private, KTT_OUTER));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ktt_pair);

/* "<fn> <version> <calls>" for each code of each function that ran */
static int ktt_counts_show(struct seq_file *m, void *v)
{
	struct ktt_side *side = &ktt.side[(long)m->private];
	int fn, ver, n;

	for (fn = 0; fn < KTT_NR_FNS; fn++) {
		for (ver = 0; ver < KTT_MAX_VER; ver++) {
			n = atomic_read(&side->calls[fn][ver]);
			if (n)
				seq_printf(m, "%s %d %d\n", ktt_fn_names[fn], ver, n);
		}
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ktt_counts);

static int ktt_mixed_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%d\n", atomic_read(&ktt.side[(long)m->private].mixed));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ktt_mixed);

static ssize_t ktt_log_read(struct file *file, char __user *ubuf, size_t len,
			    loff_t *ppos)
{
	struct ktt_side *side = file->private_data;
	char *buf;
	size_t n;

	if (*ppos)
		return 0;
	buf = kmalloc(KTT_LOG_LEN, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	spin_lock(&ktt.lock);
	n = min(side->log_len, len);
	memcpy(buf, side->log, n);
	memmove(side->log, side->log + n, side->log_len - n);
	side->log_len -= n;
	side->log[side->log_len] = '\0';
	spin_unlock(&ktt.lock);
	if (copy_to_user(ubuf, buf, n))
		n = -EFAULT;
	kfree(buf);
	*ppos += n;
	return n;
}

static const struct file_operations ktt_log_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = ktt_log_read,
};

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
	side->dir = debugfs_create_dir(ktt_core_names[core], ktt.dir);
	debugfs_create_file("calls", 0400, side->dir, (void *)(long)core,
			    &ktt_calls_fops);
	debugfs_create_file("pair", 0444, side->dir, (void *)(long)core,
			    &ktt_pair_fops);
	debugfs_create_file("mixed", 0400, side->dir, (void *)(long)core,
			    &ktt_mixed_fops);
	debugfs_create_file("counts", 0400, side->dir, (void *)(long)core,
			    &ktt_counts_fops);
	debugfs_create_file("log", 0400, side->dir, side, &ktt_log_fops);
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
	ktt.dir = debugfs_create_dir("ktt", NULL);
	debugfs_create_file("ctl", 0200, ktt.dir, NULL, &ktt_ctl_fops);
	debugfs_create_file("sleepers", 0400, ktt.dir, NULL, &ktt_sleepers_fops);
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
