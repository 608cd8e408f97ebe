/* SPDX-License-Identifier: GPL-2.0 */
/*
 * klp_test_many_patch.h - the body of klp_test_many<N>.c: a patch of the
 * first KLP_MANY_N of the target's functions (klp_test_many.h), registered
 * on load and enabled with enable=1 or through sysfs.  One module per N:
 * patch modules never unload.
 */
#include <linux/module.h>
#include "klp_test_many.h"
#include "klp_test_module.h"

static bool enable;
module_param(enable, bool, 0400);
MODULE_PARM_DESC(enable, "enable the patch on load");

#define KLP_MANY_NEW_FN(i)			\
	static int klp_many_new##i(void)	\
	{					\
		return KLP_MANY_NEW(i);		\
	}
KLP_MANY(KLP_MANY_NEW_FN)

#define KLP_MANY_FUNC(i)	{ .old_name = "klp_many_f" #i, .new_func = klp_many_new##i, },
static struct klp_func funcs[KLP_MANY_NR + 1] = {
	KLP_MANY(KLP_MANY_FUNC)
	{ }
};

static struct klp_object objs[] = {
	{ .name = KLP_MANY_TGT, .funcs = funcs, },
	{ }
};

static struct klp_patch patch = {
	.mod = THIS_MODULE,
	.objs = objs,
};

static int __init klp_test_many_init(void)
{
	BUILD_BUG_ON(KLP_MANY_N < 1 || KLP_MANY_N > KLP_MANY_NR);
	/* the array ends after the first KLP_MANY_N */
	memset(&funcs[KLP_MANY_N], 0, sizeof(funcs[KLP_MANY_N]));
	return klp_test_register_enable(&patch, enable);
}

static void __exit klp_test_many_exit(void)
{
}

module_init(klp_test_many_init);
module_exit(klp_test_many_exit);
MODULE_LICENSE("GPL");
