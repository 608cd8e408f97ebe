// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * register.c - registering a patch: checks, resolution, sysfs, ids
 *
 * A patch is checked whole (names, cve), gets its sysfs tree and a small
 * id per func, and has its loaded objects resolved (symbols, relocations)
 * before it goes on klp_patches; a module object is resolved when its
 * module comes (module.c).  Unregistering takes it off again; the
 * kobjects go without klp_mutex, as sysfs readers may wait for it.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/idr.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/string.h>
#include "core.h"
#include "fault.h"
#include "symbols.h"
#include "klp_trace.h"

/*
 * A func's name (KLP_FUNC_MAX_LEN, shared with the BPF records and the
 * tools, include/klp/uapi.h) must fit a sysfs directory entry and a
 * kernel symbol.
 */
static_assert(KLP_FUNC_MAX_LEN <= NAME_MAX);
static_assert(KLP_FUNC_MAX_LEN < KSYM_NAME_LEN);

static DEFINE_IDA(klp_func_ids);

/*
 * The extent of the old function and of its replacement: a task's stack
 * is checked against whole functions (sweep.c), so both must be known.
 */
static int klp_find_func_sizes(struct klp_object *obj, struct klp_func *func)
{
	int ret;

	ret = klp_function_size(func->old_addr, &func->old_size);
	if (ret) {
		pr_err("function '%s' of object '%s': kallsyms knows no size for it at 0x%lx (%d): it cannot be patched\n",
		       func->old_name, klp_obj_name(obj), func->old_addr, ret);
		func->old_addr = 0;
		return ret;
	}
	ret = klp_function_size((unsigned long)func->new_func, &func->new_size);
	if (ret) {
		pr_err("the replacement of function '%s' of object '%s' in patch '%s' (%ps): kallsyms knows no size for it (%d): a task's stack cannot be checked against it\n",
		       func->old_name, klp_obj_name(obj),
		       klp_patch_name(obj->patch), func->new_func, ret);
		func->old_addr = 0;
		return ret;
	}
	return 0;
}

static int klp_find_verify_func_addr(struct klp_object *obj,
				     struct klp_func *func)
{
	int ret;

	/*
	 * A hint from build time cannot match a randomized kernel: under
	 * KASLR it is ignored and the name alone decides, as in the seed.
	 */
	if (klp_kaslr_active() || klp_is_module(obj))
		func->old_addr = 0;

	if (!func->old_addr)
		ret = klp_find_object_symbol(obj->name, func->old_name,
					     func->old_sympos, &func->old_addr);
	else
		ret = klp_verify_vmlinux_symbol(func->old_name, func->old_addr);
	if (ret)
		return ret;

	if (klp_is_init_text(obj->mod, func->old_addr)) {
		pr_err("function '%s' of object '%s' is __init code, freed once init is done: it cannot be patched\n",
		       func->old_name, klp_obj_name(obj));
		func->old_addr = 0;
		return -EINVAL;
	}
	return klp_find_func_sizes(obj, func);
}

/* Another func of @patch, in a resolved object, at @func's address. */
static struct klp_func *klp_find_alias(struct klp_patch *patch,
				       struct klp_func *func)
{
	struct klp_object *obj;
	struct klp_func *f;

	klp_for_each_object(patch, obj) {
		if (obj != func->obj && !obj->resolved)
			continue;
		klp_for_each_func(obj, f)
			if (f != func && f->old_addr == func->old_addr)
				return f;
	}
	return NULL;
}

/*
 * One patch replaces a function once: two of its funcs that resolve to
 * one address (aliases, like SYSCALL_DEFINE's __x64_sys_<name> and
 * __ia32_sys_<name>) would share one place on the function's func_stack.
 */
static int klp_check_aliases(struct klp_patch *patch, struct klp_object *obj)
{
	struct klp_func *func, *alias;

	klp_for_each_func(obj, func) {
		alias = klp_find_alias(patch, func);
		if (!alias)
			continue;
		pr_err("functions '%s' (object '%s') and '%s' (object '%s') of patch '%s' are one function at 0x%lx: a patch may replace it once\n",
		       klp_func_name(func), klp_obj_name(obj),
		       klp_func_name(alias), klp_obj_name(alias->obj),
		       klp_patch_name(patch), func->old_addr);
		return -EINVAL;
	}
	return 0;
}

/* Resolve what needs the object loaded: relocations, then funcs. */
static int klp_init_object_loaded(struct klp_patch *patch,
				  struct klp_object *obj)
{
	struct klp_func *func;
	int ret;

	if (obj->relocs) {
		ret = klp_write_object_relocations(patch->mod, obj);
		if (ret)
			return ret;
	}

	klp_for_each_func(obj, func) {
		ret = klp_find_verify_func_addr(obj, func);
		if (ret)
			return ret;
	}

	return klp_check_aliases(patch, obj);
}

/**
 * klp_load_object() - bind an object to its loaded module and resolve it
 * @obj:	an object of a registered (or registering) patch
 *
 * A module object is bound once its module counts as loaded (see
 * klp_find_loaded_module()).  A loaded object is resolved once; a failed
 * resolution is retried, and fails again the same way, on every call.
 *
 * Return: 0 (also when the module is not loaded), or the resolution error
 */
int klp_load_object(struct klp_object *obj)
{
	int ret;

	lockdep_assert_held(&klp_mutex);

	if (klp_is_module(obj) && !obj->mod) {
		obj->mod = klp_find_loaded_module(obj->name);
		obj->resolved = false;
	}
	if (!klp_is_object_loaded(obj) || obj->resolved)
		return 0;

	ret = klp_init_object_loaded(obj->patch, obj);
	obj->resolved = !ret;
	return ret;
}

/**
 * klp_unload_object() - forget the module of an object (it is going)
 * @obj:	a disabled module object
 */
void klp_unload_object(struct klp_object *obj)
{
	struct klp_func *func;

	obj->mod = NULL;
	obj->resolved = false;

	klp_for_each_func(obj, func)
		func->old_addr = 0;
}

/**
 * klp_free_patch() - undo what klp_init_patch() did
 * @patch:	a patch no longer (or never) on klp_patches
 *
 * A func with an id and an object with a kobject are initialized.  Called
 * without klp_mutex, since dropping a kobject waits for its sysfs readers.
 * The ftrace handler may still hold a func popped just before (a pop on
 * a stack that stays non-empty waits for nobody) and read its kobject's
 * name for klp:klp_redirect: one grace period first, so the names outlive
 * every such reader.
 */
void klp_free_patch(struct klp_patch *patch)
{
	struct klp_object *obj;
	struct klp_func *func;

	synchronize_rcu();

	klp_for_each_object(patch, obj) {
		if (obj->funcs) {
			klp_for_each_func(obj, func) {
				if (!func->id)
					continue;
				ida_free(&klp_func_ids, func->id);
				func->id = 0;
				kobject_put(&func->kobj);
			}
		}
		obj->mod = NULL;
		obj->resolved = false;
		kobject_put(obj->kobj);
		obj->kobj = NULL;
	}
	if (patch->kobj.state_initialized)
		kobject_put(&patch->kobj);
}

static int klp_init_func(struct klp_object *obj, struct klp_func *func)
{
	struct klp_func *prev;
	size_t len;
	int ret;

	/* The sysfs name (klp_func_name()) must fit a directory entry. */
	len = strnlen(func->old_name, KLP_FUNC_MAX_LEN + 1);
	if (func->old_sympos > 1)
		len += snprintf(NULL, 0, ",%lu", func->old_sympos);
	if (len > KLP_FUNC_MAX_LEN) {
		pr_err("function name longer than %d characters in object '%s'\n",
		       KLP_FUNC_MAX_LEN, klp_obj_name(obj));
		return -EINVAL;
	}
	if (!func->new_func) {
		pr_err("function '%s' has no new_func\n", func->old_name);
		return -EINVAL;
	}
	/* Positions 0 (unique) and 1 (the first) name the same symbol. */
	for (prev = obj->funcs; prev != func; prev++) {
		if (!strcmp(prev->old_name, func->old_name) &&
		    max(prev->old_sympos, 1UL) == max(func->old_sympos, 1UL)) {
			pr_err("function '%s' appears twice in object '%s' (symbol position %lu)\n",
			       func->old_name, klp_obj_name(obj),
			       max(func->old_sympos, 1UL));
			return -EINVAL;
		}
	}

	INIT_LIST_HEAD(&func->stack_node);
	func->state = KLP_DISABLED;
	func->obj = obj;

	ret = klp_fault("alloc_func_id") ?:
	      ida_alloc_range(&klp_func_ids, 1, KLP_MAX_HIT_KEYS - 1, GFP_KERNEL);
	if (ret < 0)
		return ret;
	func->id = ret;

	ret = klp_sysfs_add_func(func);
	if (ret) {
		ida_free(&klp_func_ids, func->id);
		func->id = 0;
	}
	return ret;
}

static int klp_init_object(struct klp_patch *patch, struct klp_object *obj)
{
	struct klp_func *func;
	int ret;

	if (klp_is_module(obj) &&
	    strnlen(obj->name, MODULE_NAME_LEN) >= MODULE_NAME_LEN) {
		pr_err("object name longer than %d characters in patch '%s'\n",
		       (int)MODULE_NAME_LEN - 1, klp_patch_name(patch));
		return -EINVAL;
	}
	/* Upstream's callback demo gives callback-only objects funcs { }. */
	if (!obj->funcs ||
	    (!obj->funcs->old_name && !obj->callbacks.pre_patch &&
	     !obj->callbacks.post_patch && !obj->callbacks.pre_unpatch &&
	     !obj->callbacks.post_unpatch)) {
		pr_err("object '%s' of patch '%s' has no functions\n",
		       klp_obj_name(obj), klp_patch_name(patch));
		return -EINVAL;
	}

	obj->state = KLP_DISABLED;
	obj->callbacks.post_unpatch_enabled = false;
	obj->patch = patch;
	obj->mod = NULL;
	obj->resolved = false;

	ret = klp_sysfs_add_object(obj);
	if (ret)
		return ret;

	klp_for_each_func(obj, func) {
		ret = klp_init_func(obj, func);
		if (ret)
			return ret;
	}

	return klp_load_object(obj);
}

/* On failure the caller undoes the partial work with klp_free_patch(). */
static int klp_init_patch(struct klp_patch *patch)
{
	struct klp_object *obj;
	int ret;

	patch->state = KLP_DISABLED;
	patch->enabled_ns = 0;
	patch->enable_seq = 0;
	patch->enable_only = false;
	patch->forced = false;
	patch->replaced_by[0] = '\0';
	INIT_LIST_HEAD(&patch->list);

	ret = klp_sysfs_add_patch(patch);
	if (ret)
		return ret;

	klp_for_each_object(patch, obj) {
		ret = klp_init_object(patch, obj);
		if (ret)
			return ret;
	}

	list_add_tail(&patch->list, &klp_patches);
	return 0;
}

/*
 * A patch's cve is printed in sysfs and in the state file's space
 * separated records, and becomes a Prometheus label: ids and separators
 * only.
 */
static int klp_check_cve(const struct klp_patch *patch)
{
	const char *c;
	size_t len;

	if (!patch->cve)
		return 0;
	len = strnlen(patch->cve, KLP_CVE_MAX_LEN + 1);
	if (!len || len > KLP_CVE_MAX_LEN) {
		pr_err("patch '%s': cve is %s (1 to %d characters)\n",
		       klp_patch_name(patch), len ? "too long" : "empty",
		       KLP_CVE_MAX_LEN);
		return -EINVAL;
	}
	for (c = patch->cve; *c; c++) {
		if (!isalnum(*c) && !strchr(",._-", *c)) {
			pr_err("patch '%s': cve may hold letters, digits and \",._-\" only, not '%c' (0x%02x)\n",
			       klp_patch_name(patch), isprint(*c) ? *c : '?',
			       (unsigned char)*c);
			return -EINVAL;
		}
	}
	return 0;
}

/**
 * klpcore_register_patch() - register a patch (klp_register_patch())
 * @patch:	Patch to be registered
 *
 * Initializes the data structure associated with the patch and
 * creates the sysfs interface.
 *
 * Return: 0 on success, otherwise error
 */
int klpcore_register_patch(struct klp_patch *patch)
{
	const char *name;
	int ret;

	if (!patch || !patch->mod) {
		pr_err("cannot register %s\n",
		       patch ? "a patch with no module (.mod)" : "a NULL patch");
		return -EINVAL;
	}

	name = klp_patch_name(patch);

	if (!patch->objs || !(patch->objs->funcs || patch->objs->name)) {
		pr_err("patch '%s' has no objects\n", name);
		ret = -EINVAL;
		goto trace;
	}
	ret = klp_check_cve(patch);
	if (ret)
		goto trace;

	/*
	 * A reference is taken on the patch module to prevent it from being
	 * unloaded.  Right now, we don't allow patch modules to unload since
	 * there is currently no method to determine if a thread is still
	 * running in the patched code contained in the patch module once
	 * the ftrace registration is successful.
	 */
	if (!try_module_get(patch->mod)) {
		ret = -ENODEV;
		goto trace;
	}

	/* freed after its disable (klp_release_patch()): until it is done */
	if (patch->free_work.func)
		flush_work(&patch->free_work);

	mutex_lock(&klp_mutex);
	if (klp_is_patch_registered(patch)) {
		trace_klp_patch_register(klp_next_seq(), name, -EINVAL);
		mutex_unlock(&klp_mutex);
		pr_err("patch '%s' is already registered\n", name);
		module_put(patch->mod);
		return -EINVAL;
	}
	ret = klp_init_patch(patch);
	trace_klp_patch_register(klp_next_seq(), name, ret);
	mutex_unlock(&klp_mutex);

	if (ret) {
		pr_err("failed to register patch '%s' (%d)\n", name, ret);
		klp_free_patch(patch);
		module_put(patch->mod);
	}
	return ret;
trace:
	trace_klp_patch_register(klp_next_seq(), name, ret);
	return ret;
}
EXPORT_SYMBOL_GPL(klpcore_register_patch);

/**
 * klpcore_unregister_patch() - unregister a patch (klp_unregister_patch())
 * @patch:	Disabled patch to be unregistered
 *
 * Frees the data structures and removes the sysfs interface.
 *
 * Return: 0 on success, otherwise error
 */
int klpcore_unregister_patch(struct klp_patch *patch)
{
	int ret = 0;

	mutex_lock(&klp_mutex);

	if (!klp_is_patch_registered(patch)) {
		mutex_unlock(&klp_mutex);
		return -EINVAL;
	}

	if (patch->state == KLP_ENABLED)
		ret = -EBUSY;
	else
		list_del_init(&patch->list);
	trace_klp_patch_unregister(klp_next_seq(), klp_patch_name(patch), ret);

	mutex_unlock(&klp_mutex);

	if (!ret)
		klp_free_patch(patch);
	return ret;
}
EXPORT_SYMBOL_GPL(klpcore_unregister_patch);
