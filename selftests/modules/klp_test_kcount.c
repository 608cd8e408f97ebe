// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * klp_test_kcount.c - count the calls one process makes to kernel
 * functions, for tests of how often the core calls into ftrace
 *
 *   funcs=F1,F2,...   the functions (up to 16); a kprobe on each
 *   pid               write: count from now on the calls of this process
 *                     (its threads too), from 0; write 0: stop counting
 *   counts            read: "<function> <calls>" a line, in funcs' order
 *
 * Kprobes registered here, not kprobe events: tracefs refuses kprobe
 * events on notrace functions (kernel/trace/ftrace.c is all notrace)
 * unless CONFIG_KPROBE_EVENTS_ON_NOTRACE, which Debian leaves off.  A
 * function that cannot be probed fails the load, naming it.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/seq_file.h>

#define KCOUNT_MAX	16

static char *funcs[KCOUNT_MAX];
static int nr_funcs;
module_param_array(funcs, charp, &nr_funcs, 0400);
MODULE_PARM_DESC(funcs, "functions to count the calls of");

/**
 * struct kcount - the probes and what they counted
 * @probes:	one kprobe per function
 * @calls:	calls counted per function
 * @tgid:	the process counted (0: none)
 * @dir:	the debugfs directory
 */
static struct kcount {
	struct kprobe probes[KCOUNT_MAX];
	atomic_long_t calls[KCOUNT_MAX];
	pid_t tgid;
	struct dentry *dir;
} kc;

static int kcount_pre(struct kprobe *p, struct pt_regs *regs)
{
	if (current->tgid == READ_ONCE(kc.tgid))
		atomic_long_inc(&kc.calls[p - kc.probes]);
	return 0;
}

static ssize_t kcount_pid_write(struct file *file, const char __user *ubuf,
				size_t len, loff_t *ppos)
{
	int i, ret, pid;

	ret = kstrtoint_from_user(ubuf, len, 10, &pid);
	if (ret)
		return ret;
	WRITE_ONCE(kc.tgid, 0);
	if (pid)
		for (i = 0; i < nr_funcs; i++)
			atomic_long_set(&kc.calls[i], 0);
	WRITE_ONCE(kc.tgid, pid);
	return len;
}

static const struct file_operations kcount_pid_fops = {
	.write = kcount_pid_write,
};

static int kcount_counts_show(struct seq_file *m, void *v)
{
	int i;

	for (i = 0; i < nr_funcs; i++)
		seq_printf(m, "%s %ld\n", funcs[i], atomic_long_read(&kc.calls[i]));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(kcount_counts);

static int __init kcount_init(void)
{
	int i, ret;

	for (i = 0; i < nr_funcs; i++) {
		kc.probes[i].symbol_name = funcs[i];
		kc.probes[i].pre_handler = kcount_pre;
		ret = register_kprobe(&kc.probes[i]);
		if (ret) {
			pr_err("cannot probe '%s' (%d)\n", funcs[i], ret);
			while (i--)
				unregister_kprobe(&kc.probes[i]);
			return ret;
		}
	}
	kc.dir = debugfs_create_dir("klp_test_kcount", NULL);
	debugfs_create_file("pid", 0200, kc.dir, NULL, &kcount_pid_fops);
	debugfs_create_file("counts", 0400, kc.dir, NULL, &kcount_counts_fops);
	return 0;
}

static void __exit kcount_exit(void)
{
	int i;

	debugfs_remove_recursive(kc.dir);
	for (i = 0; i < nr_funcs; i++)
		unregister_kprobe(&kc.probes[i]);
}

module_init(kcount_init);
module_exit(kcount_exit);
MODULE_LICENSE("GPL");
