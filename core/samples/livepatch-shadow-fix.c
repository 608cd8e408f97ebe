// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * livepatch-shadow-fix.c - the shadow variable sample: a fix for the leak
 * of livepatch-shadow-mod.c
 *
 * The buffer dummy_alloc() allocates needs a home in struct dummy, which
 * has none.  This patch keeps a pointer to it in a shadow variable of the
 * dummy (<dummy, SV_LEAK>), set by a constructor, and frees it with a
 * destructor when the dummy goes.  Written to upstream livepatch's shadow
 * variable API: only the #include line says it runs on the klp core.
 *
 * Example:
 * $ insmod livepatch-shadow-mod.ko interval_ms=100
 * $ insmod livepatch-shadow-fix.ko
 * $ perf stat -e klp:klp_shadow_add -e klp:klp_shadow_del -a sleep 10
 * (one add per dummy, one del per dummy freed: nothing leaks any more)
 *
 * Dummies allocated before the fix keep their leak: their buffers' address
 * is known nowhere.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/list.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <klp/livepatch.h>
#include "livepatch-shadow-mod.h"

/* The number of this patch's shadow variable: the leaked buffer. */
#define SV_LEAK	1

static int shadow_leak_ctor(void *obj, void *shadow_data, void *ctor_data)
{
	int **shadow_leak = shadow_data;
	int **leak = ctor_data;

	*shadow_leak = *leak;
	return 0;
}

static void shadow_leak_dtor(void *obj, void *shadow_data)
{
	int **shadow_leak = shadow_data;

	kfree(*shadow_leak);
}

static struct dummy *livepatch_fix_dummy_alloc(unsigned long expires)
{
	struct dummy *d;
	int *leak;

	d = kzalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		return NULL;
	d->expires = expires;
	leak = kzalloc(sizeof(*leak), GFP_KERNEL);
	if (!leak)
		goto err;
	/* the dummy's new "field": a pointer to the buffer */
	if (!klp_shadow_alloc(d, SV_LEAK, sizeof(leak), GFP_KERNEL,
			      shadow_leak_ctor, &leak)) {
		kfree(leak);
		goto err;
	}
	return d;
err:
	kfree(d);
	return NULL;
}

static void livepatch_fix_dummy_free(struct dummy *d)
{
	klp_shadow_free(d, SV_LEAK, shadow_leak_dtor);
	kfree(d);
}

static struct klp_func funcs[] = {
	{
		.old_name = "dummy_alloc",
		.new_func = livepatch_fix_dummy_alloc,
	},
	{
		.old_name = "dummy_free",
		.new_func = livepatch_fix_dummy_free,
	}, { }
};

static struct klp_object objs[] = {
	{
		.name = "livepatch_shadow_mod",
		.funcs = funcs,
	}, { }
};

static struct klp_patch patch = {
	.mod = THIS_MODULE,
	.objs = objs,
};

static int livepatch_shadow_fix_init(void)
{
	int ret;

	ret = klp_register_patch(&patch);
	if (ret)
		return ret;
	ret = klp_enable_patch(&patch);
	if (ret) {
		WARN_ON(klp_unregister_patch(&patch));
		return ret;
	}
	return 0;
}

static void livepatch_shadow_fix_exit(void)
{
	WARN_ON(klp_disable_patch(&patch));
	WARN_ON(klp_unregister_patch(&patch));
	/* what the disabled dummy_free() will not free any more */
	klp_shadow_free_all(SV_LEAK, shadow_leak_dtor);
}

module_init(livepatch_shadow_fix_init);
module_exit(livepatch_shadow_fix_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("klp sample: a leak fixed with a shadow variable");
