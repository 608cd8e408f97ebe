// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * klp_test_cm_patch.c - one patch that changes klp_cm_f() and klp_cm_g()
 * together (klp_test_cm.h), and the functions the blocked-task tests
 * sleep in.  Written to upstream's API since 5.1: klp_enable_patch() alone,
 * so the patch is freed, and this module can go, once it is disabled.
 * replace=1 makes it an atomic replace patch.
 */
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/wait.h>
#include <klp/livepatch.h>
#include "klp_test_cm.h"

static bool replace;
module_param(replace, bool, 0400);
MODULE_PARM_DESC(replace, "an atomic replace patch");

static int klp_cm_new_g(void)
{
	return 2;
}

/* calls klp_cm_g(): the task's state decides which one runs */
static int klp_cm_new_f(unsigned int ms)
{
	int a = klp_cm_g();

	klp_cm_sleep(ms);
	return 100 + 10 * a + klp_cm_g();
}

static int klp_cm_new_wait(void)
{
	if (wait_event_interruptible(klp_cm_wq, klp_cm_released()))
		return -ERESTARTSYS;
	return 2;
}

static int klp_cm_new_hold(void)
{
	wait_event(klp_cm_wq, klp_cm_released());
	return 2;
}

static struct klp_func funcs[] = {
	{ .old_name = "klp_cm_f", .new_func = klp_cm_new_f, },
	{ .old_name = "klp_cm_g", .new_func = klp_cm_new_g, },
	{ .old_name = "klp_cm_wait", .new_func = klp_cm_new_wait, },
	{ .old_name = "klp_cm_hold", .new_func = klp_cm_new_hold, },
	{ }
};

static struct klp_object objs[] = {
	{ .name = "klp_test_cm", .funcs = funcs, },
	{ }
};

static struct klp_patch patch = {
	.mod = THIS_MODULE,
	.objs = objs,
};

static int __init klp_cm_patch_init(void)
{
	patch.replace = replace;
	return klp_enable_patch(&patch);
}

static void __exit klp_cm_patch_exit(void)
{
}

module_init(klp_cm_patch_init);
module_exit(klp_cm_patch_exit);
MODULE_LICENSE("GPL");
MODULE_VERSION("1.0");
