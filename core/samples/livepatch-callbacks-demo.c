// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * livepatch-callbacks-demo.c - object callbacks around a live patch
 *
 * The shape of upstream's samples/livepatch/livepatch-callbacks-demo.c,
 * written for klp: the vmlinux object replaces cmdline_proc_show (as
 * livepatch-sample does) and has all four callbacks, each logging its
 * name.  pre_patch_ret makes the pre_patch callback fail with that error:
 * the enable then fails with it and nothing is patched.
 *
 * Example:
 * $ insmod livepatch-callbacks-demo.ko pre_patch_ret=-19
 * insmod: ERROR: could not insert module: No such device
 * $ insmod livepatch-callbacks-demo.ko
 * $ dmesg | grep livepatch_callbacks_demo
 * livepatch_callbacks_demo: pre_patch_callback: vmlinux
 * livepatch_callbacks_demo: post_patch_callback: vmlinux
 * $ cat /proc/cmdline
 * this has been live patched (with callbacks)
 * $ echo 0 > /sys/kernel/klp/livepatch_callbacks_demo/enabled
 * $ dmesg | grep livepatch_callbacks_demo
 * livepatch_callbacks_demo: pre_unpatch_callback: vmlinux
 * livepatch_callbacks_demo: post_unpatch_callback: vmlinux
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/seq_file.h>
#include <klp/livepatch.h>

static int pre_patch_ret;
module_param(pre_patch_ret, int, 0644);
MODULE_PARM_DESC(pre_patch_ret, "pre_patch_callback's return value (default 0)");

static const char *obj_name(struct klp_object *obj)
{
	return obj->name ?: "vmlinux";
}

/* Set up what the new code needs; an error stops the patching. */
static int pre_patch_callback(struct klp_object *obj)
{
	pr_info("%s: %s\n", __func__, obj_name(obj));
	return pre_patch_ret;
}

/* The new code runs: start using what it brings. */
static void post_patch_callback(struct klp_object *obj)
{
	pr_info("%s: %s\n", __func__, obj_name(obj));
}

/* The old code is about to run again: stop relying on the new. */
static void pre_unpatch_callback(struct klp_object *obj)
{
	pr_info("%s: %s\n", __func__, obj_name(obj));
}

/* The old code runs: tear down what pre_patch set up. */
static void post_unpatch_callback(struct klp_object *obj)
{
	pr_info("%s: %s\n", __func__, obj_name(obj));
}

static int livepatch_cmdline_proc_show(struct seq_file *m, void *v)
{
	seq_puts(m, "this has been live patched (with callbacks)\n");
	return 0;
}

static struct klp_func funcs[] = {
	{
		.old_name = "cmdline_proc_show",
		.new_func = livepatch_cmdline_proc_show,
	}, { }
};

static struct klp_object objs[] = {
	{
		/* name being NULL means vmlinux */
		.funcs = funcs,
		.callbacks = {
			.pre_patch = pre_patch_callback,
			.post_patch = post_patch_callback,
			.pre_unpatch = pre_unpatch_callback,
			.post_unpatch = post_unpatch_callback,
		},
	}, { }
};

static struct klp_patch patch = {
	.mod = THIS_MODULE,
	.objs = objs,
};

/* Upstream's API since 5.1: klp_enable_patch() registers the patch too. */
static int livepatch_callbacks_demo_init(void)
{
	return klp_enable_patch(&patch);
}

/* Never called: the core keeps a patch module loaded for good. */
static void livepatch_callbacks_demo_exit(void)
{
}

module_init(livepatch_callbacks_demo_init);
module_exit(livepatch_callbacks_demo_exit);
MODULE_LICENSE("GPL");
