// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * klp_test_dup_a.c, klp_test_dup_b.c - one module, klp_test_dup, with two
 * local functions of one name, for the symbol-position (sympos) tests.
 *
 * klp_dup_fn() in this file returns 1, the one in klp_test_dup_b.c 2; in
 * the module's symbol table (and kallsyms) this file's comes first.
 * /sys/kernel/debug/klp_test_dup/1 and .../2: read calls that copy once
 * and prints what it returned.
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/module.h>
#include "klp_test_dup.h"

/* noipa: a real call every time, never inlined or folded */
static __attribute__((__noipa__)) int klp_dup_fn(void)
{
	return 1;
}

static ssize_t klp_dup_read(struct file *file, char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	int (*fn)(void) = file_inode(file)->i_private;
	char buf[16];
	int len;

	if (*ppos)
		return 0;
	len = scnprintf(buf, sizeof(buf), "%d\n", fn());
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static const struct file_operations klp_dup_fops = {
	.owner = THIS_MODULE,
	.read = klp_dup_read,
};

static struct dentry *klp_dup_dir;

static int __init klp_dup_init(void)
{
	klp_dup_dir = debugfs_create_dir("klp_test_dup", NULL);
	debugfs_create_file("1", 0400, klp_dup_dir, klp_dup_fn, &klp_dup_fops);
	debugfs_create_file("2", 0400, klp_dup_dir, klp_dup_b_fn(),
			    &klp_dup_fops);
	return 0;
}

static void __exit klp_dup_exit(void)
{
	debugfs_remove_recursive(klp_dup_dir);
}

module_init(klp_dup_init);
module_exit(klp_dup_exit);
MODULE_LICENSE("GPL");
