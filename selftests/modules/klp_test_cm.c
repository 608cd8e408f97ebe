// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * klp_test_cm.c - a target for the consistency model (70-consistency)
 *
 * klp_cm_f() and klp_cm_g() change together in klp_test_cm_patch: a task
 * that sleeps inside the old klp_cm_f() while the patch is enabled must
 * finish it with the old klp_cm_g() (klp_test_cm.h).  Through
 * /sys/kernel/debug/klp_cm/:
 *   call      write "<ms>": this task calls klp_cm_f(ms) once;
 *             write "wait": this task calls klp_cm_wait(), asleep
 *             (interruptibly) until "release", and records what it
 *             returned (1 old, 2 new)
 *   kthreads  write "<n> <ms>": n kthreads "klp_cm_caller" call
 *             klp_cm_f(ms) in a loop, sleeping ms between calls; "0"
 *             stops them
 *   spin      write "1": a kthread "klp_cm_spin" calls klp_cm_g() in a
 *             loop that never sleeps (cond_resched_tasks_rcu_qs() only);
 *             "0" stops it
 *   hold      write "1": a kthread "klp_cm_holder" sleeps inside
 *             klp_cm_hold() until "release"; "0" stops it
 *   release   write anything: the waits return (until "rearm")
 *   rearm     write anything: the next waits sleep again
 *   results   read: "<value> <count>" per value returned since the last
 *             write to it (any write clears it)
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#include "klp_test_cm.h"

#define KLP_CM_MAX_CALLERS	16

DECLARE_WAIT_QUEUE_HEAD(klp_cm_wq);
EXPORT_SYMBOL_GPL(klp_cm_wq);

/**
 * struct klp_cm - the target's state
 * @results:	by value returned: how many times
 * @released:	the waits return
 * @callers:	the klp_cm_caller kthreads
 * @nr_callers:	how many run
 * @caller_ms:	their sleep inside klp_cm_f()
 * @spinner:	the klp_cm_spin kthread, or NULL
 * @holder:	the klp_cm_holder kthread, or NULL
 * @lock:	serializes the writes that start and stop kthreads
 * @dir:	the debugfs directory
 */
struct klp_cm {
	atomic_t results[KLP_CM_MAX];
	bool released;
	struct task_struct *callers[KLP_CM_MAX_CALLERS];
	unsigned int nr_callers;
	unsigned int caller_ms;
	struct task_struct *spinner;
	struct task_struct *holder;
	struct mutex lock;	/* the kthreads' starts and stops */
	struct dentry *dir;
};

static struct klp_cm klp_cm;

static void klp_cm_record(int value)
{
	if (value >= 0 && value < KLP_CM_MAX)
		atomic_inc(&klp_cm.results[value]);
	else
		atomic_inc(&klp_cm.results[0]);
}

bool klp_cm_released(void)
{
	return READ_ONCE(klp_cm.released);
}
EXPORT_SYMBOL_GPL(klp_cm_released);

/* Sleep, but never in a function the patch changes. */
void klp_cm_sleep(unsigned int ms)
{
	if (ms)
		msleep(ms);
}
EXPORT_SYMBOL_GPL(klp_cm_sleep);

noinline int klp_cm_g(void)
{
	return 1;
}
EXPORT_SYMBOL_GPL(klp_cm_g);

noinline int klp_cm_f(unsigned int ms)
{
	int a = klp_cm_g();

	klp_cm_sleep(ms);
	return 10 * a + klp_cm_g();
}
EXPORT_SYMBOL_GPL(klp_cm_f);

noinline int klp_cm_wait(void)
{
	if (wait_event_interruptible(klp_cm_wq, klp_cm_released()))
		return -ERESTARTSYS;
	return 1;
}
EXPORT_SYMBOL_GPL(klp_cm_wait);

noinline int klp_cm_hold(void)
{
	wait_event(klp_cm_wq, klp_cm_released() || kthread_should_stop());
	return 1;
}
EXPORT_SYMBOL_GPL(klp_cm_hold);

static int klp_cm_caller_fn(void *data)
{
	unsigned int ms;

	/* asleep inside klp_cm_f() half of the time, outside the other half */
	while (!kthread_should_stop()) {
		ms = READ_ONCE(klp_cm.caller_ms);
		klp_cm_record(klp_cm_f(ms));
		klp_cm_sleep(ms);
	}
	return 0;
}

static int klp_cm_spin_fn(void *data)
{
	unsigned long n = 0;

	/* a quiescent state for tasks-RCU too, which ftrace's updates wait for */
	while (!kthread_should_stop()) {
		n += klp_cm_g();
		cond_resched_tasks_rcu_qs();
	}
	return n == 0;
}

static int klp_cm_hold_fn(void *data)
{
	klp_cm_hold();
	while (!kthread_should_stop())
		schedule_timeout_interruptible(HZ / 10);
	return 0;
}

static void klp_cm_stop_callers(void)
{
	while (klp_cm.nr_callers)
		kthread_stop(klp_cm.callers[--klp_cm.nr_callers]);
}

static int klp_cm_parse(const char __user *ubuf, size_t count, char *buf,
			size_t size)
{
	if (!count || count >= size)
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	return 0;
}

static ssize_t klp_cm_call_write(struct file *file, const char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	char buf[32];
	unsigned int ms;
	int ret;

	ret = klp_cm_parse(ubuf, count, buf, sizeof(buf));
	if (ret)
		return ret;
	if (sysfs_streq(buf, "wait")) {
		ret = klp_cm_wait();
		if (ret < 0)
			return ret;	/* a signal: the write is restarted */
		klp_cm_record(ret);
		return count;
	}
	if (kstrtouint(buf, 10, &ms) || ms > 60000)
		return -EINVAL;
	klp_cm_record(klp_cm_f(ms));
	return count;
}

static ssize_t klp_cm_kthreads_write(struct file *file,
				     const char __user *ubuf, size_t count,
				     loff_t *ppos)
{
	unsigned int n, ms = 0;
	struct task_struct *t;
	char buf[32];
	int ret;

	ret = klp_cm_parse(ubuf, count, buf, sizeof(buf));
	if (ret)
		return ret;
	if (sscanf(buf, "%u %u", &n, &ms) < 1 || n > KLP_CM_MAX_CALLERS)
		return -EINVAL;
	mutex_lock(&klp_cm.lock);
	klp_cm_stop_callers();
	WRITE_ONCE(klp_cm.caller_ms, ms);
	for (ret = 0; klp_cm.nr_callers < n; ) {
		t = kthread_run(klp_cm_caller_fn, NULL, "klp_cm_caller");
		if (IS_ERR(t)) {
			ret = PTR_ERR(t);
			break;
		}
		klp_cm.callers[klp_cm.nr_callers++] = t;
	}
	mutex_unlock(&klp_cm.lock);
	return ret ?: count;
}

/* Start (1) or stop (0) the kthread in *slot. */
static ssize_t klp_cm_toggle(const char __user *ubuf, size_t count,
			     struct task_struct **slot,
			     int (*fn)(void *data), const char *name)
{
	struct task_struct *t;
	char buf[8];
	bool on;
	int ret;

	ret = klp_cm_parse(ubuf, count, buf, sizeof(buf));
	if (ret)
		return ret;
	if (kstrtobool(buf, &on))
		return -EINVAL;
	mutex_lock(&klp_cm.lock);
	if (*slot) {
		kthread_stop(*slot);
		*slot = NULL;
	}
	if (on) {
		t = kthread_run(fn, NULL, name);
		if (IS_ERR(t))
			ret = PTR_ERR(t);
		else
			*slot = t;
	}
	mutex_unlock(&klp_cm.lock);
	return ret ?: count;
}

static ssize_t klp_cm_spin_write(struct file *file, const char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	return klp_cm_toggle(ubuf, count, &klp_cm.spinner, klp_cm_spin_fn,
			     "klp_cm_spin");
}

static ssize_t klp_cm_hold_write(struct file *file, const char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	return klp_cm_toggle(ubuf, count, &klp_cm.holder, klp_cm_hold_fn,
			     "klp_cm_holder");
}

static ssize_t klp_cm_release_write(struct file *file,
				    const char __user *ubuf, size_t count,
				    loff_t *ppos)
{
	WRITE_ONCE(klp_cm.released, true);
	wake_up_all(&klp_cm_wq);
	return count;
}

static ssize_t klp_cm_rearm_write(struct file *file, const char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	WRITE_ONCE(klp_cm.released, false);
	return count;
}

static ssize_t klp_cm_results_read(struct file *file, char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	char *buf;
	size_t len = 0;
	ssize_t ret;
	int v, n;

	buf = kzalloc(PAGE_SIZE, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	for (v = 0; v < KLP_CM_MAX; v++) {
		n = atomic_read(&klp_cm.results[v]);
		if (n)
			len += scnprintf(buf + len, PAGE_SIZE - len, "%d %d\n",
					 v, n);
	}
	ret = simple_read_from_buffer(ubuf, count, ppos, buf, len);
	kfree(buf);
	return ret;
}

static ssize_t klp_cm_results_write(struct file *file,
				    const char __user *ubuf, size_t count,
				    loff_t *ppos)
{
	int v;

	for (v = 0; v < KLP_CM_MAX; v++)
		atomic_set(&klp_cm.results[v], 0);
	return count;
}

#define KLP_CM_WO(name)							\
static const struct file_operations klp_cm_##name##_fops = {		\
	.write = klp_cm_##name##_write,					\
}

KLP_CM_WO(call);
KLP_CM_WO(kthreads);
KLP_CM_WO(spin);
KLP_CM_WO(hold);
KLP_CM_WO(release);
KLP_CM_WO(rearm);

static const struct file_operations klp_cm_results_fops = {
	.read = klp_cm_results_read,
	.write = klp_cm_results_write,
};

static int __init klp_cm_init(void)
{
	mutex_init(&klp_cm.lock);
	klp_cm.dir = debugfs_create_dir("klp_cm", NULL);
	debugfs_create_file("call", 0200, klp_cm.dir, NULL, &klp_cm_call_fops);
	debugfs_create_file("kthreads", 0200, klp_cm.dir, NULL,
			    &klp_cm_kthreads_fops);
	debugfs_create_file("spin", 0200, klp_cm.dir, NULL, &klp_cm_spin_fops);
	debugfs_create_file("hold", 0200, klp_cm.dir, NULL, &klp_cm_hold_fops);
	debugfs_create_file("release", 0200, klp_cm.dir, NULL,
			    &klp_cm_release_fops);
	debugfs_create_file("rearm", 0200, klp_cm.dir, NULL,
			    &klp_cm_rearm_fops);
	debugfs_create_file("results", 0600, klp_cm.dir, NULL,
			    &klp_cm_results_fops);
	return 0;
}

static void __exit klp_cm_exit(void)
{
	debugfs_remove_recursive(klp_cm.dir);
	WRITE_ONCE(klp_cm.released, true);
	wake_up_all(&klp_cm_wq);
	mutex_lock(&klp_cm.lock);
	klp_cm_stop_callers();
	if (klp_cm.spinner)
		kthread_stop(klp_cm.spinner);
	if (klp_cm.holder)
		kthread_stop(klp_cm.holder);
	mutex_unlock(&klp_cm.lock);
}

module_init(klp_cm_init);
module_exit(klp_cm_exit);
MODULE_LICENSE("GPL");
