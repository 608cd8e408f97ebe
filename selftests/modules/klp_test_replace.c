// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * klp_test_replace.c - a replace (cumulative) patch for 22-replace
 *
 *   funcs=a,b,c  which of klp_target_a/_b/_c to patch; the replacement of
 *                klp_target_X returns KLP_TEST_REPLACE_BASE + 1, 2 or 3
 *   dup_pos=N    also patch klp_test_dup's klp_dup_fn at position N
 *                (returning KLP_TEST_REPLACE_BASE + 100 + N)
 *   replace=0    an ordinary (stacking) patch
 *   enable=0     only register
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include "klp_test_module.h"

#ifndef KLP_TEST_REPLACE_BASE
#define KLP_TEST_REPLACE_BASE 5000
#endif

static char *funcs_param = "a";
module_param_named(funcs, funcs_param, charp, 0400);
MODULE_PARM_DESC(funcs, "the target functions to patch: a, b and/or c");

static unsigned long dup_pos;
module_param(dup_pos, ulong, 0400);
MODULE_PARM_DESC(dup_pos, "also patch klp_dup_fn of klp_test_dup at this position");

static bool replace = true;
module_param(replace, bool, 0400);
MODULE_PARM_DESC(replace, "a replace patch (default 1)");

static bool enable = true;
module_param(enable, bool, 0400);
MODULE_PARM_DESC(enable, "enable the patch on load (default 1)");

#define KLP_REPLACE_NEW(name, value)				\
static __attribute__((__noipa__)) int klp_replace_##name(void)	\
{								\
	return KLP_TEST_REPLACE_BASE + (value);			\
}

KLP_REPLACE_NEW(a, 1)
KLP_REPLACE_NEW(b, 2)
KLP_REPLACE_NEW(c, 3)
KLP_REPLACE_NEW(dup1, 101)
KLP_REPLACE_NEW(dup2, 102)

static struct klp_func target_funcs[4];
static struct klp_func dup_funcs[2];
static struct klp_object objs[3];

static struct klp_patch patch = {
	.mod = THIS_MODULE,
	.objs = objs,
};

static int __init klp_replace_init(void)
{
	static const char *const names[] = {
		"klp_target_a", "klp_target_b", "klp_target_c",
	};
	static void *const news[] = {
		klp_replace_a, klp_replace_b, klp_replace_c,
	};
	struct klp_object *obj = objs;
	const char *p;
	int n = 0;

	for (p = funcs_param; *p; p++) {
		if (*p == ',')
			continue;
		if (*p < 'a' || *p > 'c' || n == ARRAY_SIZE(names))
			return -EINVAL;
		target_funcs[n].old_name = names[*p - 'a'];
		target_funcs[n].new_func = news[*p - 'a'];
		n++;
	}
	if (n) {
		obj->name = "klp_test_target";
		obj->funcs = target_funcs;
		obj++;
	}
	if (dup_pos) {
		if (dup_pos > 2)
			return -EINVAL;
		dup_funcs[0].old_name = "klp_dup_fn";
		dup_funcs[0].old_sympos = dup_pos;
		dup_funcs[0].new_func = dup_pos == 1 ? klp_replace_dup1 :
						       klp_replace_dup2;
		obj->name = "klp_test_dup";
		obj->funcs = dup_funcs;
	}
	patch.replace = replace;
	return klp_test_register_enable(&patch, enable);
}

static void __exit klp_replace_exit(void)
{
}

module_init(klp_replace_init);
module_exit(klp_replace_exit);
MODULE_LICENSE("GPL");
