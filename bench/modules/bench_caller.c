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
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/module.h>

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

static int __init bench_caller_init(void)
{
	if (!fn)
		return -EINVAL;
	bench_caller_dir = debugfs_create_dir("klp_bench", NULL);
	debugfs_create_file("a", 0400, bench_caller_dir, NULL,
			    &bench_caller_fops);
	return 0;
}

static void __exit bench_caller_exit(void)
{
	debugfs_remove_recursive(bench_caller_dir);
}

module_init(bench_caller_init);
module_exit(bench_caller_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("klp bench: a pread()-able caller of one function");
