// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * klp_test_cb.c - a patch with every object callback, for 21-callbacks
 *
 * Objects: vmlinux and klp_test_dup with callbacks only (funcs { }, as in
 * upstream's callback demo), klp_test_target with klp_target_c replaced
 * (returning KLP_TEST_CB_VALUE).  Each callback logs
 * "<callback> <object>[ <module state>]".
 *
 *   fail_pre_patch=OBJ  (writable at run time) the pre_patch callback of
 *                       object OBJ ("vmlinux" or a module) fails, -ENODEV
 *   enable=0            only register
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/string.h>
#include "klp_test_module.h"

#ifndef KLP_TEST_CB_VALUE
#define KLP_TEST_CB_VALUE 7003
#endif

static char *fail_pre_patch = "";
module_param(fail_pre_patch, charp, 0600);
MODULE_PARM_DESC(fail_pre_patch, "the object whose pre_patch callback fails");

static bool enable = true;
module_param(enable, bool, 0400);
MODULE_PARM_DESC(enable, "enable the patch on load (default 1)");

static const char *klp_cb_obj_name(struct klp_object *obj)
{
	return obj->name ?: "vmlinux";
}

static void klp_cb_log(const char *callback, struct klp_object *obj)
{
	static const char *const states[] = {
		[MODULE_STATE_LIVE] = "LIVE",
		[MODULE_STATE_COMING] = "COMING",
		[MODULE_STATE_GOING] = "GOING",
		[MODULE_STATE_UNFORMED] = "UNFORMED",
	};

	if (obj->mod)
		pr_info("%s %s %s\n", callback, klp_cb_obj_name(obj),
			states[obj->mod->state]);
	else
		pr_info("%s %s\n", callback, klp_cb_obj_name(obj));
}

static int klp_cb_pre_patch(struct klp_object *obj)
{
	bool fail;

	klp_cb_log("pre_patch", obj);
	kernel_param_lock(THIS_MODULE);
	fail = sysfs_streq(fail_pre_patch, klp_cb_obj_name(obj));
	kernel_param_unlock(THIS_MODULE);
	return fail ? -ENODEV : 0;
}

static void klp_cb_post_patch(struct klp_object *obj)
{
	klp_cb_log("post_patch", obj);
}

static void klp_cb_pre_unpatch(struct klp_object *obj)
{
	klp_cb_log("pre_unpatch", obj);
}

static void klp_cb_post_unpatch(struct klp_object *obj)
{
	klp_cb_log("post_unpatch", obj);
}

static int klp_cb_new_c(void)
{
	return KLP_TEST_CB_VALUE;
}

static struct klp_func no_funcs[] = {
	{ }
};

static struct klp_func target_funcs[] = {
	{ .old_name = "klp_target_c", .new_func = klp_cb_new_c, },
	{ }
};

#define KLP_CB_OBJECT(objname, objfuncs) {		\
	.name = objname,				\
	.funcs = objfuncs,				\
	.callbacks = {					\
		.pre_patch = klp_cb_pre_patch,		\
		.post_patch = klp_cb_post_patch,	\
		.pre_unpatch = klp_cb_pre_unpatch,	\
		.post_unpatch = klp_cb_post_unpatch,	\
	},						\
}

static struct klp_object objs[] = {
	KLP_CB_OBJECT(NULL, no_funcs),
	KLP_CB_OBJECT("klp_test_target", target_funcs),
	KLP_CB_OBJECT("klp_test_dup", no_funcs),
	{ }
};

static struct klp_patch patch = {
	.mod = THIS_MODULE,
	.objs = objs,
};

static int __init klp_cb_init(void)
{
	return klp_test_register_enable(&patch, enable);
}

static void __exit klp_cb_exit(void)
{
}

module_init(klp_cb_init);
module_exit(klp_cb_exit);
MODULE_LICENSE("GPL");
