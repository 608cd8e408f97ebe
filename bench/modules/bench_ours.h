/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench_ours.h - a bench patch for our core: klp_target_a returns
 * BENCH_VALUE.  Loading only registers it (enable=1 enables it as well);
 * /sys/kernel/klp/<module>/enabled switches it.
 */
#include <linux/module.h>
#include <klp_test_module.h>
#include "bench_body.h"

static bool enable;
module_param(enable, bool, 0400);
MODULE_PARM_DESC(enable, "enable the patch on load (default 0)");

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

static int __init bench_ours_init(void)
{
	return klp_test_register_enable(&patch, enable);
}

static void __exit bench_ours_exit(void)
{
}

module_init(bench_ours_init);
module_exit(bench_ours_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("klp bench: klp_target_a patched by the klp core");
