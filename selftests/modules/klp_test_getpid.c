// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * klp_test_getpid.c - a patch on the getpid syscall, for the coexistence
 * selftests
 *
 * Replaces __x64_sys_getpid with a function that counts its calls and
 * returns what the original returns (the caller's tgid), so a process that
 * calls getpid sees no difference while the count shows who answered.
 *
 *   enable=0   only register
 *   calls      read: how often the replacement ran
 */
#include <linux/atomic.h>
#include <linux/module.h>
#include <linux/sched.h>
#include "klp_test_module.h"

static bool enable = true;
module_param(enable, bool, 0400);
MODULE_PARM_DESC(enable, "enable the patch on load (default 1)");

static atomic_long_t klp_getpid_calls = ATOMIC_LONG_INIT(0);

static int klp_getpid_calls_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%ld\n", atomic_long_read(&klp_getpid_calls));
}

static const struct kernel_param_ops klp_getpid_calls_ops = {
	.get = klp_getpid_calls_get,
};
module_param_cb(calls, &klp_getpid_calls_ops, NULL, 0444);
MODULE_PARM_DESC(calls, "calls of the replacement");

static long klp_test_getpid(const struct pt_regs *regs)
{
	atomic_long_inc(&klp_getpid_calls);
	return task_tgid_vnr(current);
}

static struct klp_func funcs[] = {
	{ .old_name = "__x64_sys_getpid", .new_func = klp_test_getpid, },
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

static int __init klp_test_getpid_init(void)
{
	return klp_test_register_enable(&patch, enable);
}

static void __exit klp_test_getpid_exit(void)
{
}

module_init(klp_test_getpid_init);
module_exit(klp_test_getpid_exit);
MODULE_LICENSE("GPL");
