// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bench_caller.c - a pread()-able caller of one function
 *
 * /sys/kernel/debug/klp_bench/a: a read at offset 0 calls the function at
 * address fn (an "int f(void)", its address taken from /proc/kallsyms) and
 * prints the value it returned, so that every pread(fd, buf, n, 0) is one
 * call.  klp_test_target's own files are nonseekable: there each call
 * costs an open() and a close() as well, which would drown the cost of the
 * redirection that the bench measures.
 *
 * /sys/kernel/debug/klp_bench/loop: a task that stays unswitched through a
 * transition, for the bench's transition section.  A write of "run" calls
 * the function in a kernel loop under bench_caller_hold() (which the
 * transition bench's patch changes: while this task is in there, neither
 * core can switch it) until "stop" is written; the loop times chunks of
 * BENCH_CHUNK calls and keeps the fastest, apart for the chunks before and
 * after "mark" is written.  A read: "<runs> <value> <before> <after>": how
 * many "run"s have started, the value the last call returned and the two
 * ns per call (-1.00: no chunk).
 */
#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/uaccess.h>

#define BENCH_CHUNK	20000

/**
 * struct bench_loop - the unswitched loop's state
 * @stop:	the loop returns
 * @marked:	chunks count as after the mark
 * @value:	what the last call returned
 * @best:	the fastest chunk before and after the mark, ns (0: none)
 */
struct bench_loop {
	bool stop;
	bool marked;
	int value;
	u64 best[2];
};

static struct bench_loop bench_loop;
static atomic_t bench_loop_runs;

static unsigned long fn;
module_param(fn, ulong, 0400);
MODULE_PARM_DESC(fn, "address of the int (*)(void) function to call");

static struct dentry *bench_caller_dir;

static ssize_t bench_caller_read(struct file *file, char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	int (*f)(void) = (int (*)(void))fn;
	char buf[24];
	int len;

	if (*ppos)
		return 0;
	len = scnprintf(buf, sizeof(buf), "%d\n", f());
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static const struct file_operations bench_caller_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = bench_caller_read,
	.llseek = default_llseek,
};

/* the loop itself: no function a patch changes is in here */
noinline int bench_caller_spin(void)
{
	int (*f)(void) = (int (*)(void))fn;
	u64 t, *best;
	int i, v = 0;

	while (!READ_ONCE(bench_loop.stop)) {
		best = &bench_loop.best[READ_ONCE(bench_loop.marked)];
		t = ktime_get_ns();
		for (i = 0; i < BENCH_CHUNK; i++)
			v = f();
		t = ktime_get_ns() - t;
		if (!*best || t < *best)
			*best = t;
		WRITE_ONCE(bench_loop.value, v);
		cond_resched();
	}
	return v;
}
EXPORT_SYMBOL_GPL(bench_caller_spin);

/* on the stack for the whole loop: the transition bench's patch changes it */
noinline int bench_caller_hold(void)
{
	int v = bench_caller_spin();

	/* a store after the call: no tail call, this frame stays */
	WRITE_ONCE(bench_loop.value, v);
	return v;
}
EXPORT_SYMBOL_GPL(bench_caller_hold);

static ssize_t bench_loop_write(struct file *file, const char __user *ubuf,
				size_t count, loff_t *ppos)
{
	char buf[8];

	if (!count || count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	if (sysfs_streq(buf, "run")) {
		bench_loop = (struct bench_loop){ };
		atomic_inc(&bench_loop_runs);
		bench_caller_hold();
	} else if (sysfs_streq(buf, "mark")) {
		WRITE_ONCE(bench_loop.marked, true);
	} else if (sysfs_streq(buf, "stop")) {
		WRITE_ONCE(bench_loop.stop, true);
	} else {
		return -EINVAL;
	}
	return count;
}

/* ns per call of a chunk of ns, two decimals; -1.00 for none */
static int bench_loop_fmt(char *buf, size_t size, u64 ns)
{
	if (!ns)
		return scnprintf(buf, size, " -1.00");
	return scnprintf(buf, size, " %llu.%02llu", ns / BENCH_CHUNK,
			 ns * 100 / BENCH_CHUNK % 100);
}

static ssize_t bench_loop_read(struct file *file, char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	char buf[64];
	int len;

	len = scnprintf(buf, sizeof(buf), "%d %d", atomic_read(&bench_loop_runs),
			READ_ONCE(bench_loop.value));
	len += bench_loop_fmt(buf + len, sizeof(buf) - len, bench_loop.best[0]);
	len += bench_loop_fmt(buf + len, sizeof(buf) - len, bench_loop.best[1]);
	len += scnprintf(buf + len, sizeof(buf) - len, "\n");
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static const struct file_operations bench_loop_fops = {
	.owner = THIS_MODULE,
	.write = bench_loop_write,
	.read = bench_loop_read,
	.llseek = default_llseek,
};

static int __init bench_caller_init(void)
{
	if (!fn)
		return -EINVAL;
	bench_caller_dir = debugfs_create_dir("klp_bench", NULL);
	debugfs_create_file("a", 0400, bench_caller_dir, NULL,
			    &bench_caller_fops);
	debugfs_create_file("loop", 0600, bench_caller_dir, NULL,
			    &bench_loop_fops);
	return 0;
}

static void __exit bench_caller_exit(void)
{
	WRITE_ONCE(bench_loop.stop, true);
	debugfs_remove_recursive(bench_caller_dir);
}

module_init(bench_caller_init);
module_exit(bench_caller_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("klp bench: a pread()-able caller of one function");
