// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * livepatch-sympos.c - patch one of two functions that share a name
 *
 * mm/ksm.c and mm/khugepaged.c each define a static full_scans_show(), the
 * show function of a sysfs "full_scans" file; kallsyms lists ksm's first
 * (mm/Makefile links ksm.o before khugepaged.o).  A name that occurs
 * twice cannot be found by name alone, and under KASLR an address hint
 * cannot match, so the func names its symbol position: old_sympos = 2 is
 * khugepaged's.  The function's sysfs directory is "full_scans_show,2".
 *
 * Example:
 * $ cat /sys/kernel/mm/transparent_hugepage/khugepaged/full_scans
 * 0
 * $ insmod livepatch-sympos.ko
 * $ cat /sys/kernel/mm/transparent_hugepage/khugepaged/full_scans
 * this has been live patched (symbol position 2)
 * $ cat /sys/kernel/mm/ksm/full_scans
 * 0
 * $ echo 0 > /sys/kernel/klp/livepatch_sympos/enabled
 */

#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/kobject.h>
#include <linux/sysfs.h>
#include <klp/livepatch.h>

static ssize_t livepatch_full_scans_show(struct kobject *kobj,
					 struct kobj_attribute *attr,
					 char *buf)
{
	return sysfs_emit(buf, "this has been live patched (symbol position 2)\n");
}

static struct klp_func funcs[] = {
	{
		.old_name = "full_scans_show",
		.old_sympos = 2,
		.new_func = livepatch_full_scans_show,
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
