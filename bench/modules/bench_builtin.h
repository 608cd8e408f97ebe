/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench_builtin.h - the builtin livepatch peer of bench_ours.h: the same
 * replacement of klp_target_a, through the stock kernel's
 * klp_enable_patch(), which enables it on load (the builtin livepatch
 * cannot enable a patch again once disabled: unload and load it anew).
 */
#include <linux/module.h>
#include <linux/livepatch.h>
#include "bench_body.h"

static struct klp_func funcs[] = {
	{ .old_name = "klp_target_a", .new_func = bench_new_a, },
	{ }
};

static struct klp_object objs[] = {
	{ .name = "klp_test_target", .funcs = funcs, },
	{ }
};

static struct klp_patch patch = {
	.mod = THIS_MODULE,
	.objs = objs,
};

static int __init bench_builtin_init(void)
{
	return klp_enable_patch(&patch);
}

static void __exit bench_builtin_exit(void)
{
}

module_init(bench_builtin_init);
module_exit(bench_builtin_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("klp bench: klp_target_a patched by the builtin livepatch");
MODULE_INFO(livepatch, "Y");
