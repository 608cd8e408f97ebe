// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bench_null.c - a module that does nothing: the bench loads it to time
 * what loading a module costs by itself, next to the builtin livepatch's
 * switches that can only start with an insmod.
 */
#include <linux/module.h>

static int __init bench_null_init(void)
{
	return 0;
}

static void __exit bench_null_exit(void)
{
}

module_init(bench_null_init);
module_exit(bench_null_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("klp bench: an empty module");
