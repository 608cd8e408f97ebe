// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * livepatch-shadow-mod.c - a module with a leak, the target of the shadow
 * variable sample (livepatch-shadow-fix.c)
 *
 * Every interval_ms it allocates a dummy that expires lifetime_ms later,
 * and frees the dummies that expired.  dummy_alloc() also allocates a
 * buffer for each dummy that nothing ever frees: struct dummy has no field
 * to keep it in, and a live patch cannot add a field to a structure that
 * exists.  The fix keeps it in a shadow variable instead.
 *
 * Module parameters: interval_ms and lifetime_ms (at load), and live, the
 * dummies allocated and not freed (read-only).  Unloading frees them all.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include "livepatch-shadow-mod.h"

static unsigned int interval_ms = 1000;
module_param(interval_ms, uint, 0400);
MODULE_PARM_DESC(interval_ms, "a new dummy this often (ms)");

static unsigned int lifetime_ms = 5000;
module_param(lifetime_ms, uint, 0400);
MODULE_PARM_DESC(lifetime_ms, "each dummy lives this long (ms)");

static int live;
module_param(live, int, 0444);
MODULE_PARM_DESC(live, "dummies allocated and not yet freed");

static LIST_HEAD(dummies);
static DEFINE_MUTEX(dummies_lock);

/* A new dummy; the buffer is the leak.  The fix replaces this. */
noinline struct dummy *dummy_alloc(unsigned long expires)
{
	struct dummy *d;
	int *leak;

	d = kzalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		return NULL;
	d->expires = expires;
	leak = kzalloc(sizeof(*leak), GFP_KERNEL);
	if (!leak) {
		kfree(d);
		return NULL;
	}
	pr_debug("%s: %p, leaked %p\n", __func__, d, leak);
	return d;
}

/* The fix replaces this too, to free the buffer with the dummy. */
noinline void dummy_free(struct dummy *d)
{
	pr_debug("%s: %p\n", __func__, d);
	kfree(d);
}

static void dummies_work_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(dummies_work, dummies_work_fn);

static void dummies_work_fn(struct work_struct *work)
{
	struct dummy *d, *tmp;
	unsigned long now = jiffies;

	mutex_lock(&dummies_lock);
	d = dummy_alloc(now + msecs_to_jiffies(lifetime_ms));
	if (d) {
		list_add(&d->list, &dummies);
		live++;
	}
	list_for_each_entry_safe(d, tmp, &dummies, list) {
		if (time_after(now, d->expires)) {
			list_del(&d->list);
			dummy_free(d);
			live--;
		}
	}
	mutex_unlock(&dummies_lock);
	schedule_delayed_work(&dummies_work, msecs_to_jiffies(interval_ms));
}

static int __init livepatch_shadow_mod_init(void)
{
	schedule_delayed_work(&dummies_work, msecs_to_jiffies(interval_ms));
	return 0;
}

static void __exit livepatch_shadow_mod_exit(void)
{
	struct dummy *d, *tmp;

	cancel_delayed_work_sync(&dummies_work);
	list_for_each_entry_safe(d, tmp, &dummies, list) {
		list_del(&d->list);
		dummy_free(d);
		live--;
	}
}

module_init(livepatch_shadow_mod_init);
module_exit(livepatch_shadow_mod_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("klp sample: a module that leaks, for livepatch-shadow-fix");
