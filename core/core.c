// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * core.c - the klp live patching core: registry and enable/disable
 *
 * The semantics are those of the Linux 3.20 core (no consistency model: a
 * patch takes effect for every task at once, the most recently enabled func
 * wins), rebuilt as a module for stock distro kernels next to their builtin
 * livepatch.  Its sysfs tree (sysfs.c) is /sys/kernel/klp, since the
 * builtin one owns /sys/kernel/livepatch; modules coming and going are
 * handled in module.c, relocations in reloc.c.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/idr.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include "core.h"
#include "fault.h"
#include "patch.h"
#include "symbols.h"
#include "klp_trace.h"

/* A name must fit a sysfs directory entry and a kernel symbol. */
#define KLP_NAME_MAX	min_t(int, NAME_MAX, KSYM_NAME_LEN - 1)

/* klp_mutex guards klp_patches and every state change (see core.h) */
DEFINE_MUTEX(klp_mutex);
LIST_HEAD(klp_patches);

static DEFINE_IDA(klp_func_ids);

/**
 * klp_is_patch_registered() - is patch on klp_patches
 * @patch:	any pointer a caller was handed as a patch
 *
 * Return: true if registered
 */
bool klp_is_patch_registered(struct klp_patch *patch)
{
	struct klp_patch *p;

	lockdep_assert_held(&klp_mutex);

	list_for_each_entry(p, &klp_patches, list)
		if (p == patch)
			return true;
	return false;
}

static void klp_taint(void)
{
	if (test_taint(TAINT_LIVEPATCH))
		return;
	pr_notice("tainting kernel with TAINT_LIVEPATCH\n");
	add_taint(TAINT_LIVEPATCH, LOCKDEP_STILL_OK);
}

/**
 * klp_trace_failure() - emit klp:klp_enable_failed
 * @obj:	the object that could not be applied
 * @func:	the func that failed, or NULL (resolution)
 * @err:	the error
 */
void klp_trace_failure(struct klp_object *obj, struct klp_func *func,
		       int err)
{
	trace_klp_enable_failed(klp_next_seq(), klp_patch_name(obj->patch),
				klp_obj_name(obj), func ? klp_func_name(func) : "",
				err);
}

/**
 * klp_disable_object() - pop an object's enabled funcs, last enabled first
 * @obj:	the object
 * @cause:	why, for the klp:klp_func_pop events
 *
 * A func whose ftrace handler cannot be unregistered stays enabled (and
 * so does the object); the others are popped all the same.
 *
 * Return: 0, or the first error
 */
int klp_disable_object(struct klp_object *obj, enum klp_cause cause)
{
	struct klp_func *func, *first = obj->funcs;
	bool left = false;
	int ret = 0, err;

	lockdep_assert_held(&klp_mutex);

	klp_for_each_func(obj, func)
		;
	while (func-- != first) {
		if (func->state != KLP_ENABLED)
			continue;
		err = klp_unpatch_func(func, cause);
		if (err) {
			left = true;
			ret = ret ?: err;
		}
	}

	obj->state = left ? KLP_ENABLED : KLP_DISABLED;
	return ret;
}

/**
 * klp_enable_object() - push an object's funcs on their func_stacks
 * @obj:	a loaded, resolved, disabled object
 * @cause:	why, for the klp:klp_func_push events
 *
 * Return: 0 on success; otherwise error, with every func pushed so far
 * popped again
 */
int klp_enable_object(struct klp_object *obj, enum klp_cause cause)
{
	struct klp_func *func;
	int ret;

	lockdep_assert_held(&klp_mutex);

	if (WARN_ON(obj->state != KLP_DISABLED))
		return -EINVAL;

	if (WARN_ON(!klp_is_object_loaded(obj) || !obj->resolved))
		return -EINVAL;

	klp_for_each_func(obj, func) {
		ret = klp_fault("enable_func") ?: klp_patch_func(func, cause);
		if (ret) {
			pr_err("failed to patch function '%s' of object '%s' for patch '%s' (%d)\n",
			       func->old_name, klp_obj_name(obj),
			       klp_patch_name(obj->patch), ret);
			klp_trace_failure(obj, func, ret);
			klp_disable_object(obj, KLP_CAUSE_ROLLBACK);
			return ret;
		}
		klp_taint();
	}
	obj->state = KLP_ENABLED;
	return 0;
}

/**
 * klp_disable_patch_all() - disable every enabled object of a patch
 * @patch:	the patch
 * @cause:	why, for the klp:klp_func_pop events
 *
 * The patch stays enabled only if a func could not be popped.
 *
 * Return: 0, or the first error
 */
int klp_disable_patch_all(struct klp_patch *patch, enum klp_cause cause)
{
	struct klp_object *obj;
	bool left = false;
	int ret = 0, err;

	lockdep_assert_held(&klp_mutex);

	pr_notice("disabling patch '%s'\n", klp_patch_name(patch));

	klp_for_each_object(patch, obj) {
		if (obj->state != KLP_ENABLED)
			continue;
		err = klp_disable_object(obj, cause);
		if (err) {
			left = true;
			ret = ret ?: err;
		}
	}

	patch->state = left ? KLP_ENABLED : KLP_DISABLED;
	return ret;
}

static int __klp_enable_patch(struct klp_patch *patch)
{
	struct klp_object *obj;
	int ret;

	if (WARN_ON(patch->state != KLP_DISABLED))
		return -EINVAL;

	pr_notice("enabling patch '%s'\n", klp_patch_name(patch));

	klp_for_each_object(patch, obj) {
		ret = klp_load_object(obj);
		if (ret) {
			klp_trace_failure(obj, NULL, ret);
			goto rollback;
		}

		if (!klp_is_object_loaded(obj)) {
			trace_klp_object(klp_next_seq(), klp_patch_name(patch),
					 obj->name, KLP_OBJ_DEFERRED,
					 KLP_CAUSE_ENABLE);
			continue;
		}

		ret = klp_enable_object(obj, KLP_CAUSE_ENABLE);
		if (ret)
			goto rollback;
	}

	patch->state = KLP_ENABLED;
	return 0;

rollback:
	/* Every object enabled so far goes back: nothing stays half-applied. */
	klp_disable_patch_all(patch, KLP_CAUSE_ROLLBACK);
	return ret;
}

static int klp_set_patch_state_locked(struct klp_patch *patch, int state)
{
	int ret;

	lockdep_assert_held(&klp_mutex);

	if (state == patch->state)
		ret = -EINVAL;
	else if (state == KLP_ENABLED)
		ret = __klp_enable_patch(patch);
	else
		ret = klp_disable_patch_all(patch, KLP_CAUSE_DISABLE);

	if (!ret)
		patch->enabled_ns = state == KLP_ENABLED ? ktime_get_real_ns() : 0;
	if (state == KLP_ENABLED)
		trace_klp_patch_enable(klp_next_seq(), klp_patch_name(patch),
				       ret);
	else
		trace_klp_patch_disable(klp_next_seq(), klp_patch_name(patch),
					ret);
	return ret;
}

/**
 * klp_set_patch_state() - enable or disable a patch if it is registered
 * @patch:	any pointer a caller was handed as a patch
 * @state:	KLP_ENABLED or KLP_DISABLED
 * @unregistered: the error if @patch is not registered (the API says
 *		-EINVAL, as upstream; sysfs -ENODEV for a patch going away)
 *
 * Takes klp_mutex.  Writing the current state is refused.  Emits
 * klp:klp_patch_enable or klp:klp_patch_disable with the result.
 *
 * Return: 0 on success, otherwise error
 */
int klp_set_patch_state(struct klp_patch *patch, int state, int unregistered)
{
	int ret;

	mutex_lock(&klp_mutex);
	if (klp_is_patch_registered(patch))
		ret = klp_set_patch_state_locked(patch, state);
	else
		ret = unregistered;
	mutex_unlock(&klp_mutex);
	return ret;
}

/**
 * klpcore_enable_patch() - enable a registered patch (klp_enable_patch())
 * @patch:	The registered, disabled patch to be enabled
 *
 * Pushes each patched function's replacement on the function's func_stack,
 * where it wins until disabled.  On failure every function already pushed
 * is popped again.
 *
 * Return: 0 on success, otherwise error
 */
int klpcore_enable_patch(struct klp_patch *patch)
{
	return klp_set_patch_state(patch, KLP_ENABLED, -EINVAL);
}
EXPORT_SYMBOL_GPL(klpcore_enable_patch);

/**
 * klpcore_disable_patch() - disable a registered patch (klp_disable_patch())
 * @patch:	The registered, enabled patch to be disabled
 *
 * Pops the patch's functions off their func_stacks: each function falls
 * back to the func below or, with none left, to the original code.
 *
 * Return: 0 on success, otherwise error
 */
int klpcore_disable_patch(struct klp_patch *patch)
{
	return klp_set_patch_state(patch, KLP_DISABLED, -EINVAL);
}
EXPORT_SYMBOL_GPL(klpcore_disable_patch);

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

	return 0;
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
 */
void klp_free_patch(struct klp_patch *patch)
{
	struct klp_object *obj;
	struct klp_func *func;

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
	len = strnlen(func->old_name, KLP_NAME_MAX + 1);
	if (func->old_sympos > 1)
		len += snprintf(NULL, 0, ",%lu", func->old_sympos);
	if (len > KLP_NAME_MAX) {
		pr_err("function name longer than %d characters in object '%s'\n",
		       KLP_NAME_MAX, klp_obj_name(obj));
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
	if (!obj->funcs || !obj->funcs->old_name) {
		pr_err("object '%s' of patch '%s' has no functions\n",
		       klp_obj_name(obj), klp_patch_name(patch));
		return -EINVAL;
	}

	obj->state = KLP_DISABLED;
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

static int __init klp_init(void)
{
	int ret;

	ret = klp_symbols_init();
	if (ret)
		return ret;

	ret = klp_sysfs_init();
	if (ret)
		goto out_symbols;

	ret = klp_module_init();
	if (ret)
		goto out_sysfs;

	klp_debugfs_init();

	pr_info("live patching core ready at %s\n", KLP_SYSFS_ROOT);
	return 0;

out_sysfs:
	klp_sysfs_exit();
out_symbols:
	klp_symbols_exit();
	return ret;
}

/* Reached only with no patch registered: each patch module pins us. */
static void __exit klp_exit(void)
{
	klp_debugfs_exit();
	klp_shadow_exit();
	klp_module_exit();
	klp_sysfs_exit();
	klp_symbols_exit();
}

module_init(klp_init);
module_exit(klp_exit);
MODULE_LICENSE("GPL");
MODULE_AUTHOR("klp developers");
MODULE_DESCRIPTION("Observable live patching core for stock kernels");
