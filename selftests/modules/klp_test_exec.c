// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * klp_test_exec.c - which state a task runs in while it execs (26-edges)
 *
 * Patches, with upstream's API, two functions together: ktt_f3 of the
 * torture's target ktt_tgt_k (a task parked in the original holds the
 * transition) and vmlinux's flush_signal_handlers(), which begin_new_exec()
 * calls after de_thread() gave an exec'ing thread its leader's pid.  The
 * new flush_signal_handlers() does what the original does and counts the
 * calls made by the task whose pid is written to
 * /sys/kernel/debug/klp_test_exec/pid: a thread that had switched to the
 * patched state must run it; one that reads its leader's state runs the
 * original, which counts nothing.  ktt_f3 returns 500.  And kthreadd(),
 * which runs once, from boot, and never returns: kthreadd sleeps inside
 * its old code for good, so it never switches and holds the transition
 * until it is reversed, and every kthread made meanwhile is a child of a
 * task that has not switched.
 */
#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <klp/livepatch.h>

static pid_t klp_exec_pid;
static atomic_t klp_exec_calls = ATOMIC_INIT(0);
static struct dentry *klp_exec_dir;

static int klp_exec_new_f3(void)
{
	return 500;
}

/* 6.1's and 6.12's flush_signal_handlers(), and a count */
static void klp_exec_new_flush(struct task_struct *t, int force_default)
{
	struct k_sigaction *ka = &t->sighand->action[0];
	int i;

	if (READ_ONCE(klp_exec_pid) && t == current &&
	    current->pid == READ_ONCE(klp_exec_pid))
		atomic_inc(&klp_exec_calls);
	for (i = _NSIG; i != 0; i--) {
		if (force_default || ka->sa.sa_handler != SIG_IGN)
			ka->sa.sa_handler = SIG_DFL;
		ka->sa.sa_flags = 0;
#ifdef __ARCH_HAS_SA_RESTORER
		ka->sa.sa_restorer = NULL;
#endif
		sigemptyset(&ka->sa.sa_mask);
		ka++;
	}
}

static struct klp_func klp_exec_tgt_funcs[] = {
	{ .old_name = "ktt_f3", .new_func = klp_exec_new_f3 },
	{ }
};

/* never runs: kthreadd() is called once, at boot */
static int klp_exec_new_kthreadd(void *unused)
{
	return 0;
}

static struct klp_func klp_exec_vm_funcs[] = {
	{ .old_name = "flush_signal_handlers", .new_func = klp_exec_new_flush },
	{ .old_name = "kthreadd", .new_func = klp_exec_new_kthreadd },
	{ }
};

static struct klp_object klp_exec_objs[] = {
	{ .name = "ktt_tgt_k", .funcs = klp_exec_tgt_funcs },
	{ .funcs = klp_exec_vm_funcs },
	{ }
};

static struct klp_patch klp_exec_patch = {
	.mod = THIS_MODULE,
	.objs = klp_exec_objs,
};

static int klp_exec_calls_get(void *data, u64 *val)
{
	*val = atomic_read(&klp_exec_calls);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(klp_exec_calls_fops, klp_exec_calls_get, NULL, "%llu\n");

static int klp_exec_pid_set(void *data, u64 val)
{
	WRITE_ONCE(klp_exec_pid, val);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(klp_exec_pid_fops, NULL, klp_exec_pid_set, "%llu\n");

static int __init klp_exec_init(void)
{
	int ret;

	klp_exec_dir = debugfs_create_dir("klp_test_exec", NULL);
	debugfs_create_file("calls", 0400, klp_exec_dir, NULL, &klp_exec_calls_fops);
	debugfs_create_file("pid", 0200, klp_exec_dir, NULL, &klp_exec_pid_fops);
	ret = klp_enable_patch(&klp_exec_patch);
	if (ret)
		debugfs_remove_recursive(klp_exec_dir);
	return ret;
}

static void __exit klp_exec_exit(void)
{
	debugfs_remove_recursive(klp_exec_dir);
}

module_init(klp_exec_init);
module_exit(klp_exec_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("klp test: the state an exec'ing thread runs in");
