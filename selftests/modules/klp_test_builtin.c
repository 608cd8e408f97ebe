// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * klp_test_builtin.c - a patch for the kernel's own builtin livepatch
 *
 * Replaces func (default klp_target_c) of object objname (default
 * klp_test_target; "vmlinux" for the kernel) through the stock kernel's
 * klp_enable_patch(), to check that the klp core and the builtin livepatch
 * refuse each other's functions cleanly, and for the tools that watch the
 * builtin (klp_test_builtin2.c is the same patch with another value).  It
 * has a MODULE_VERSION, so that it has a srcversion, the identity
 * klp-exporter gives a builtin patch across a fleet.  With nokprobe=1 its
 * new function is one no kprobe may probe (NOKPROBE_SYMBOL, value + 5):
 * a tool cannot count its calls, and must say so rather than show 0.
 */
#include <linux/module.h>
#include <linux/livepatch.h>
#include <linux/kprobes.h>

static char *func = "klp_target_c";
module_param(func, charp, 0400);
static char *objname = "klp_test_target";
module_param(objname, charp, 0400);
static bool nokprobe;
module_param(nokprobe, bool, 0400);

#ifndef KLP_BUILTIN_VALUE
#define KLP_BUILTIN_VALUE 7000
#endif

static int klp_builtin_new(void)
{
	return KLP_BUILTIN_VALUE;
}

/* another value: never folded into klp_builtin_new() */
static int klp_builtin_new_nokprobe(void)
{
	return KLP_BUILTIN_VALUE + 5;
}
NOKPROBE_SYMBOL(klp_builtin_new_nokprobe);

static struct klp_func funcs[] = {
	{ .new_func = klp_builtin_new, }, { }
};

static struct klp_object objs[] = {
	{ .funcs = funcs, }, { }
};

static struct klp_patch patch = {
	.mod = THIS_MODULE,
	.objs = objs,
};

static int __init klp_builtin_init(void)
{
	funcs[0].old_name = func;
	if (nokprobe)
		funcs[0].new_func = klp_builtin_new_nokprobe;
	if (strcmp(objname, "vmlinux"))
		objs[0].name = objname;
	return klp_enable_patch(&patch);
}

static void __exit klp_builtin_exit(void)
{
}

module_init(klp_builtin_init);
module_exit(klp_builtin_exit);
MODULE_LICENSE("GPL");
MODULE_INFO(livepatch, "Y");
MODULE_VERSION("1.0");
