// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * module.c - modules coming and going
 *
 * A patch for a module that is not loaded yet is applied when the module
 * comes (seed 006), and reverted when it goes.  A module counts as loaded
 * from our COMING notifier on (or from a lookup that finds it in its
 * init, before the core loaded), while its init may still run, until our
 * GOING notifier: upstream keeps that in mod->klp_alive, which the builtin
 * livepatch sets before our notifier runs, so we keep our own record.
 *
 * A patch module itself can go only if its init fails (a registered patch
 * pins it): if it leaves a patch registered, that patch is reverted and
 * unregistered before its code is freed.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/list.h>
#include <linux/module.h>
#include <linux/slab.h>
#include "core.h"
#include "symbols.h"
#include "transition.h"
#include "klp_trace.h"

/**
 * struct klp_alive_mod - a module between our COMING and GOING notifiers
 * @node:	node in klp_alive_mods
 * @mod:	the module
 */
struct klp_alive_mod {
	struct list_head node;
	struct module *mod;
};

/* klp_mutex */
static LIST_HEAD(klp_alive_mods);

/* Record a module as loaded until our GOING notifier. */
static int klp_remember_module(struct module *mod)
{
	struct klp_alive_mod *alive;

	alive = kzalloc(sizeof(*alive), GFP_KERNEL);
	if (!alive)
		return -ENOMEM;
	klp_mem_alloc(KLP_MEM_ALIVE_MOD);
	alive->mod = mod;
	list_add(&alive->node, &klp_alive_mods);
	return 0;
}

/**
 * klp_find_loaded_module() - the loaded module of that name
 * @name:	a module name
 *
 * Loaded means seen by our COMING notifier and not yet by our GOING one
 * (its init may still be running), or found COMING or LIVE by name: a
 * module whose COMING notifiers ran before the core loaded (a driver
 * still probing at boot) is in its init with no notifier left to tell
 * us, and our GOING notifier reverts what we apply to it.  Its COMING
 * notifier, if it is still to come, finds its objects bound already.
 *
 * Return: the module, or NULL
 */
struct module *klp_find_loaded_module(const char *name)
{
	struct klp_alive_mod *alive;

	lockdep_assert_held(&klp_mutex);

	list_for_each_entry(alive, &klp_alive_mods, node)
		if (!strcmp(alive->mod->name, name))
			return alive->mod;
	return klp_find_module_formed(name);
}

static void klp_forget_module(struct module *mod)
{
	struct klp_alive_mod *alive;

	list_for_each_entry(alive, &klp_alive_mods, node) {
		if (alive->mod == mod) {
			list_del(&alive->node);
			kfree(alive);
			klp_mem_free(KLP_MEM_ALIVE_MOD);
			return;
		}
	}
}

/* Patch a resolved object of an enabled patch for its coming module. */
static int klp_apply_coming_object(struct klp_patch *patch,
				   struct klp_object *obj, struct module *mod)
{
	int ret;

	pr_notice("applying patch '%s' to loading module '%s'\n",
		  klp_patch_name(patch), mod->name);
	ret = klp_pre_patch_callback(obj, KLP_CAUSE_MODULE_COMING);
	if (ret) {
		klp_trace_failure(obj, NULL, ret);
		return ret;
	}
	/* klp_enable_object() traces its own failure */
	ret = klp_enable_object(obj, KLP_CAUSE_MODULE_COMING);
	if (ret) {
		klp_post_unpatch_callback(obj, KLP_CAUSE_ROLLBACK);
		return ret;
	}
	trace_klp_object(klp_next_seq(), klp_patch_name(patch), mod->name,
			 KLP_OBJ_APPLIED, KLP_CAUSE_MODULE_COMING);
	/* in transition: its post_patch runs when the transition completes */
	if (!klp_in_transition(patch))
		klp_post_patch_callback(obj, KLP_CAUSE_MODULE_COMING);
	return 0;
}

/*
 * Resolve and apply one patch's object for a coming module.  A patch that
 * is not enabled cannot refuse the module: it only warns, and enabling it
 * later fails with the same error.
 */
static int klp_coming_object(struct klp_patch *patch, struct klp_object *obj,
			     struct module *mod)
{
	int ret;

	obj->mod = mod;
	obj->resolved = false;
	ret = klp_load_object(obj);
	if (ret && patch->state != KLP_ENABLED) {
		pr_warn("patch '%s' cannot be resolved for loading module '%s' (%d): enabling it will fail\n",
			klp_patch_name(patch), mod->name, ret);
		return 0;
	}
	if (ret)
		klp_trace_failure(obj, NULL, ret);
	else if (patch->state == KLP_ENABLED)
		ret = klp_apply_coming_object(patch, obj, mod);
	if (ret)
		pr_warn("failed to apply patch '%s' to module '%s' (%d): refusing the module\n",
			klp_patch_name(patch), mod->name, ret);
	return ret;
}

/* Resolve, and apply if it is enabled, the object @patch has for @mod. */
static int klp_coming_patch(struct klp_patch *patch, struct module *mod)
{
	struct klp_object *obj;

	klp_for_each_object(patch, obj) {
		if (!klp_is_module(obj) || strcmp(obj->name, mod->name))
			continue;
		/* bound already if a lookup found the module in its init */
		if (obj->mod == mod)
			return 0;
		return klp_coming_object(patch, obj, mod);
	}
	return 0;
}

/* The enabled patch enabled next after seq @after, or NULL. */
static struct klp_patch *klp_next_enabled(u64 after)
{
	struct klp_patch *patch, *next = NULL;

	list_for_each_entry(patch, &klp_patches, list)
		if (patch->state == KLP_ENABLED && patch->enable_seq > after &&
		    (!next || patch->enable_seq < next->enable_seq))
			next = patch;
	return next;
}

/*
 * A module is coming: record it, then resolve the objects every patch
 * has for it and apply those of enabled patches in the order the patches
 * were enabled, so the one enabled last wins again, as it did before the
 * module went (seed 006 applied them in registration order, which a
 * disable and enable of an earlier patch had overturned).  If one cannot
 * be applied, all applied so far are reverted and the module load fails.
 */
static int klp_module_coming(struct module *mod)
{
	struct klp_patch *patch;
	struct klp_object *obj;
	int ret;

	ret = klp_remember_module(mod);
	if (ret)
		return ret;

	list_for_each_entry(patch, &klp_patches, list) {
		if (patch->state != KLP_ENABLED) {
			ret = klp_coming_patch(patch, mod);
			if (ret)
				goto rollback;
		}
	}
	for (patch = NULL; (patch = klp_next_enabled(patch ? patch->enable_seq : 0));) {
		ret = klp_coming_patch(patch, mod);
		if (ret)
			goto rollback;
	}
	return 0;

rollback:
	/*
	 * Only the objects handled before the failing one have obj->mod
	 * set; those applied had their post_patch callback, so they get
	 * both unpatch callbacks.
	 */
	list_for_each_entry(patch, &klp_patches, list) {
		klp_for_each_object(patch, obj) {
			if (!klp_is_module(obj) || obj->mod != mod)
				continue;
			if (obj->state == KLP_ENABLED) {
				klp_pre_unpatch_callback(obj, KLP_CAUSE_ROLLBACK);
				klp_disable_object(obj, KLP_CAUSE_ROLLBACK);
			}
			if (obj->state != KLP_ENABLED)
				klp_post_unpatch_callback(obj, KLP_CAUSE_ROLLBACK);
			klp_unload_object(obj);
		}
	}
	klp_forget_module(mod);
	return ret;
}

/* The patches of a going patch module move to @gone, reverted. */
static void klp_patch_module_going(struct module *mod, struct list_head *gone)
{
	struct klp_patch *patch, *tmp;
	int ret;

	list_for_each_entry_safe(patch, tmp, &klp_patches, list) {
		if (patch->mod != mod)
			continue;
		pr_err("patch module '%s' is going away with its patch still registered%s: reverting and unregistering it\n",
		       mod->name,
		       patch->state == KLP_ENABLED ? " and enabled" : "");
		if (klp_in_transition(patch)) {
			/* pops it; its pre_unpatch ran or is not due */
			ret = klp_transition_going(patch);
			trace_klp_patch_disable(klp_next_seq(),
						klp_patch_name(patch), ret);
			WARN(ret, "klp: patch '%s' stays applied in freed code\n",
			     klp_patch_name(patch));
		} else if (patch->state == KLP_ENABLED) {
			ret = klp_disable_patch_all(patch, KLP_CAUSE_MODULE_GOING);
			trace_klp_patch_disable(klp_next_seq(),
						klp_patch_name(patch), ret);
			WARN(ret, "klp: patch '%s' stays applied in freed code\n",
			     klp_patch_name(patch));
		}
		list_move_tail(&patch->list, gone);
	}
}

static void klp_revert_going_object(struct klp_patch *patch,
				    struct klp_object *obj, struct module *mod)
{
	int ret;

	/* in transition: its pre_unpatch ran or runs with the transition's */
	if (!klp_in_transition(patch))
		klp_pre_unpatch_callback(obj, KLP_CAUSE_MODULE_GOING);
	pr_notice("reverting patch '%s' on unloading module '%s'\n",
		  klp_patch_name(patch), mod->name);
	ret = klp_disable_object(obj, KLP_CAUSE_MODULE_GOING);
	if (ret)
		pr_err("patch '%s' stays applied to going module '%s'\n",
		       klp_patch_name(patch), mod->name);
	trace_klp_object(klp_next_seq(), klp_patch_name(patch), mod->name,
			 KLP_OBJ_REVERTED, KLP_CAUSE_MODULE_GOING);
	if (!ret)
		klp_post_unpatch_callback(obj, KLP_CAUSE_MODULE_GOING);
}

static void klp_module_going(struct module *mod, struct list_head *gone)
{
	struct klp_patch *patch;
	struct klp_object *obj;

	klp_patch_module_going(mod, gone);

	list_for_each_entry(patch, &klp_patches, list) {
		klp_for_each_object(patch, obj) {
			if (!klp_is_module(obj) || obj->mod != mod)
				continue;

			if (obj->state == KLP_ENABLED)
				klp_revert_going_object(patch, obj, mod);
			klp_unload_object(obj);
			break;
		}
	}

	klp_put_module_refs(mod);
	klp_forget_module(mod);
}

static int klp_module_notify(struct notifier_block *nb, unsigned long action,
			     void *data)
{
	struct module *mod = data;
	struct klp_patch *patch, *tmp;
	LIST_HEAD(gone);
	int ret = 0;

	if (action != MODULE_STATE_COMING && action != MODULE_STATE_GOING)
		return NOTIFY_DONE;

	mutex_lock(&klp_mutex);
	if (action == MODULE_STATE_COMING)
		ret = klp_module_coming(mod);
	else
		klp_module_going(mod, &gone);
	klp_transition_stacks_changed();
	list_for_each_entry(patch, &gone, list)
		trace_klp_patch_unregister(klp_next_seq(),
					   klp_patch_name(patch), 0);
	mutex_unlock(&klp_mutex);

	/* Off klp_patches: free them without the mutex, as unregister does. */
	list_for_each_entry_safe(patch, tmp, &gone, list) {
		list_del_init(&patch->list);
		klp_free_patch(patch);
		module_put(patch->mod);
	}

	return notifier_from_errno(ret);
}

static struct notifier_block klp_module_nb = {
	.notifier_call = klp_module_notify,
};

/**
 * klp_module_init() - start following modules
 *
 * Return: 0 on success, otherwise error
 */
int klp_module_init(void)
{
	return register_module_notifier(&klp_module_nb);
}

/**
 * klp_module_exit() - stop following modules
 */
void klp_module_exit(void)
{
	struct klp_alive_mod *alive, *tmp;

	unregister_module_notifier(&klp_module_nb);
	list_for_each_entry_safe(alive, tmp, &klp_alive_mods, node) {
		kfree(alive);
		klp_mem_free(KLP_MEM_ALIVE_MOD);
	}
}
