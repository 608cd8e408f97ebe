// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * klp_test_kprobe.c - a kprobe with a post_handler, for the coexistence
 * selftests
 *
 *   func=NAME   the function to probe (required)
 *   hits        read: how often the pre_handler ran
 *
 * On a function's ftrace location a kprobe with a post_handler is armed
 * through kprobes' IPMODIFY ftrace_ops (6.1), so it and a live patch cannot
 * share a function: register_kprobe() fails with -EBUSY without a word in
 * the log, and this module names the function and the error itself.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/err.h>
#include <linux/kprobes.h>
#include <linux/module.h>

static char *func;
module_param(func, charp, 0400);
MODULE_PARM_DESC(func, "function to probe");

static atomic_long_t klp_kprobe_hits = ATOMIC_LONG_INIT(0);

static int klp_kprobe_hits_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%ld\n", atomic_long_read(&klp_kprobe_hits));
}

static const struct kernel_param_ops klp_kprobe_hits_ops = {
	.get = klp_kprobe_hits_get,
};
module_param_cb(hits, &klp_kprobe_hits_ops, NULL, 0444);
MODULE_PARM_DESC(hits, "pre_handler runs");

static int klp_kprobe_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic_long_inc(&klp_kprobe_hits);
	return 0;
}

static void klp_kprobe_post(struct kprobe *p, struct pt_regs *regs,
			    unsigned long flags)
{
}

static struct kprobe klp_kprobe = {
	.pre_handler = klp_kprobe_pre,
	.post_handler = klp_kprobe_post,
};

static int __init klp_kprobe_init(void)
{
	int ret;

	if (!func || !*func) {
		pr_err("no function given (func=NAME)\n");
		return -EINVAL;
	}

	klp_kprobe.symbol_name = func;
	ret = register_kprobe(&klp_kprobe);
	if (ret) {
		pr_err("kprobe with post_handler on function '%s' refused: %pe\n",
		       func, ERR_PTR(ret));
		return ret;
	}
	return 0;
}

static void __exit klp_kprobe_exit(void)
{
	unregister_kprobe(&klp_kprobe);
}

module_init(klp_kprobe_init);
module_exit(klp_kprobe_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("klp selftests: a kprobe with a post_handler");
