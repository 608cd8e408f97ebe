/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * klp_test_many_tgt.h - the body of klp_test_many_tgt.c (256 patchable
 * functions) and klp_test_many1k_tgt.c (1024), see klp_test_many.h
 *
 * Reading /sys/kernel/debug/<KLP_MANY_DIR>/sum calls every function once
 * and prints the sum of what they returned: 32640 (523776 for 1024)
 * unpatched, 1000 more for each function a patch replaces.
 */
#include <linux/debugfs.h>
#include <linux/module.h>
#include "klp_test_many.h"

#define KLP_MANY_DEFINE(i)			\
	static noinline int klp_many_f##i(void)	\
	{					\
		return i;			\
	}
KLP_MANY(KLP_MANY_DEFINE)

#define KLP_MANY_ENTRY(i)	klp_many_f##i,
static int (*const klp_many_fns[KLP_MANY_NR])(void) = {
	KLP_MANY(KLP_MANY_ENTRY)
};

static struct dentry *klp_many_dir;

static int klp_many_sum_get(void *data, u64 *val)
{
	int i;

	*val = 0;
	for (i = 0; i < KLP_MANY_NR; i++)
		*val += klp_many_fns[i]();
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(klp_many_sum_fops, klp_many_sum_get, NULL, "%llu\n");

static int __init klp_many_init(void)
{
	klp_many_dir = debugfs_create_dir(KLP_MANY_DIR, NULL);
	debugfs_create_file("sum", 0400, klp_many_dir, NULL, &klp_many_sum_fops);
	return 0;
}

static void __exit klp_many_exit(void)
{
	debugfs_remove_recursive(klp_many_dir);
}

module_init(klp_many_init);
module_exit(klp_many_exit);
MODULE_LICENSE("GPL");
