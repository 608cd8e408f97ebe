// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * livepatch-replace.c - a cumulative patch: enabling it replaces the others
 *
 * .replace = true makes this patch the only enabled one once it is
 * enabled (upstream's atomic replace, Documentation/livepatch/
 * cumulative-patches.rst): functions it patches get its replacement,
 * functions only earlier patches patched return to the original, and the
 * earlier patches end disabled, their sysfs replaced_by naming this one.
 * A distribution ships each new fix set this way, as one patch that
 * carries every fix so far.
 *
 * Example:
 * $ insmod livepatch-sample.ko
 * $ cat /proc/cmdline
 * this has been live patched
 * $ insmod livepatch-replace.ko
 * $ cat /proc/cmdline
 * this has been live patched (cumulative)
 * $ cat /sys/kernel/klp/livepatch_sample/enabled /sys/kernel/klp/livepatch_sample/replaced_by
 * 0
 * livepatch_replace
 */

#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/seq_file.h>
#include <klp/livepatch.h>

static int livepatch_cmdline_proc_show(struct seq_file *m, void *v)
{
	seq_puts(m, "this has been live patched (cumulative)\n");
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
	}, { }
};

static struct klp_patch patch = {
	.mod = THIS_MODULE,
	.objs = objs,
	.replace = true,
};

/* Upstream's API since 5.1: klp_enable_patch() registers the patch too. */
static int livepatch_init(void)
{
	return klp_enable_patch(&patch);
}

/* Never called: the core keeps a patch module loaded for good. */
static void livepatch_exit(void)
{
}

module_init(livepatch_init);
module_exit(livepatch_exit);
MODULE_LICENSE("GPL");
