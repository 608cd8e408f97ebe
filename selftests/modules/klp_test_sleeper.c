// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * klp_test_sleeper.c - a kthread asleep inside a function, to hold back a
 * transition that patches that function
 *
 * The kthread "klp_sleeper" calls klp_sleeper_wait(), which sleeps
 * (interruptibly, waking every half second) until the parameter release
 * is set: while it sleeps there, no transition that changes
 * klp_sleeper_wait() can switch it (upstream's klp_try_switch_task() finds
 * the function on its stack; a fake signal's wake-up only sends it back
 * to sleep).  Writing 1 to /sys/module/klp_test_sleeper/parameters/release
 * lets it return; the kthread then sleeps in its own loop until unload.
 */
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/sched.h>

static int release;
module_param(release, int, 0644);
MODULE_PARM_DESC(release, "1: klp_sleeper_wait() returns");

static struct task_struct *sleeper;

/* Not static, not inlined: a function the livepatch can name and patch. */
noinline int klp_sleeper_wait(void)
{
	while (!READ_ONCE(release) && !kthread_should_stop())
		schedule_timeout_interruptible(HZ / 2);
	return 1;
}
EXPORT_SYMBOL_GPL(klp_sleeper_wait);

static int sleeper_fn(void *arg)
{
	klp_sleeper_wait();
	while (!kthread_should_stop())
		schedule_timeout_interruptible(HZ / 10);
	return 0;
}

static int __init klp_sleeper_init(void)
{
	sleeper = kthread_run(sleeper_fn, NULL, "klp_sleeper");
	return PTR_ERR_OR_ZERO(sleeper);
}

static void __exit klp_sleeper_exit(void)
{
	WRITE_ONCE(release, 1);
	kthread_stop(sleeper);
}

module_init(klp_sleeper_init);
module_exit(klp_sleeper_exit);
MODULE_LICENSE("GPL");
