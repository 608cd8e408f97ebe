// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * klp_test_cm_patch2.c - an atomic replace patch over klp_test_cm_patch
 * (klp_test_cm.h): it changes klp_cm_g() (returning 3) and the functions
 * the tests sleep in, but not klp_cm_f(), which the replace gives back to
 * its original: a switched task's klp_cm_f() returns 10 * 3 + 3 = 33.  It
 * also patches klp_target_a of klp_test_target (7001), a module the test
 * loads while this patch's transition runs.  klp_enable_patch() alone.
 */
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/wait.h>
#include <klp/livepatch.h>
#include "klp_test_cm.h"

static int klp_cm_new2_g(void)
{
	return 3;
}

static int klp_cm_new2_wait(void)
{
	if (wait_event_interruptible(klp_cm_wq, klp_cm_released()))
		return -ERESTARTSYS;
	return 3;
}

static int klp_cm_new2_hold(void)
{
	wait_event(klp_cm_wq, klp_cm_released());
	return 3;
}

static int klp_cm_new2_target_a(void)
{
	return 7001;
}

static struct klp_func cm_funcs[] = {
	{ .old_name = "klp_cm_g", .new_func = klp_cm_new2_g, },
	{ .old_name = "klp_cm_wait", .new_func = klp_cm_new2_wait, },
	{ .old_name = "klp_cm_hold", .new_func = klp_cm_new2_hold, },
	{ }
};

static struct klp_func target_funcs[] = {
	{ .old_name = "klp_target_a", .new_func = klp_cm_new2_target_a, },
	{ }
};

static struct klp_object objs[] = {
	{ .name = "klp_test_cm", .funcs = cm_funcs, },
	{ .name = "klp_test_target", .funcs = target_funcs, },
	{ }
};

static struct klp_patch patch = {
	.mod = THIS_MODULE,
	.objs = objs,
	.replace = true,
};

static int __init klp_cm_patch2_init(void)
{
	return klp_enable_patch(&patch);
}

static void __exit klp_cm_patch2_exit(void)
{
}

module_init(klp_cm_patch2_init);
module_exit(klp_cm_patch2_exit);
MODULE_LICENSE("GPL");
MODULE_VERSION("1.0");
