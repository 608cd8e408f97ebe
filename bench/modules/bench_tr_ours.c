// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bench_tr_ours.c - the transition bench's patch (bench_tr.h) for the klp
 * core: registered on load, switched through /sys/kernel/klp.
 */
#include <linux/module.h>
#include <klp_test_module.h>

#define BENCH_VALUE 4203
#include "bench_tr.h"

static int __init bench_tr_ours_init(void)
{
	return klp_test_register_enable(&patch, false);
}

static void __exit bench_tr_ours_exit(void)
{
}

module_init(bench_tr_ours_init);
module_exit(bench_tr_ours_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("klp bench: klp_target_a and klp_cm_hold patched by the klp core");
