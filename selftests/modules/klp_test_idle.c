// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * klp_test_idle.c - patch default_idle(), which runs in the idle loop
 * after RCU has stopped watching the CPU
 *
 * The replacement does what the original does (halt until an interrupt)
 * and counts its calls; read them from the parameter "calls".  The core's
 * handler runs there too, where a tracepoint must not fire.
 */
#include <linux/atomic.h>
#include <linux/irqflags.h>
#include <linux/module.h>
#include "klp_test_module.h"

static atomic64_t klp_idle_calls;

static void klp_idle_default_idle(void)
{
	atomic64_inc(&klp_idle_calls);
	raw_safe_halt();
}

static int klp_idle_calls_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%lld\n", atomic64_read(&klp_idle_calls));
}

static const struct kernel_param_ops klp_idle_calls_ops = {
	.get = klp_idle_calls_get,
};
module_param_cb(calls, &klp_idle_calls_ops, NULL, 0400);

static struct klp_func funcs[] = {
	{ .old_name = "default_idle", .new_func = klp_idle_default_idle, },
	{ }
};

static struct klp_object objs[] = {
	{ .funcs = funcs, },
	{ }
};

static struct klp_patch patch = {
	.mod = THIS_MODULE,
	.objs = objs,
};

static int __init klp_idle_init(void)
{
	return klp_test_register_enable(&patch, true);
}

static void __exit klp_idle_exit(void)
{
}

module_init(klp_idle_init);
module_exit(klp_idle_exit);
MODULE_LICENSE("GPL");
