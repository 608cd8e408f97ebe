// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bench_tr_builtin.c - the transition bench's patch (bench_tr.h) for the
 * builtin livepatch: enabled on load, disabled through
 * /sys/kernel/livepatch, then unloaded.
 */
#include <linux/module.h>
#include <linux/livepatch.h>

#define BENCH_VALUE 4203
#include "bench_tr.h"

static int __init bench_tr_builtin_init(void)
{
	return klp_enable_patch(&patch);
}

static void __exit bench_tr_builtin_exit(void)
{
}

module_init(bench_tr_builtin_init);
module_exit(bench_tr_builtin_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("klp bench: klp_target_a and klp_cm_hold patched by the builtin livepatch");
MODULE_INFO(livepatch, "Y");
