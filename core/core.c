// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * core.c - the klp live patching core: registry, enable/disable, sysfs and
 * the module notifier
 *
 * The semantics are those of the Linux 3.20 core (no consistency model: a
 * patch takes effect for every task at once, the most recently enabled func
 * wins), rebuilt as a module for stock distro kernels next to their builtin
 * livepatch.  Its sysfs tree is /sys/kernel/klp, since the builtin one owns
 * /sys/kernel/livepatch.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/idr.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sysfs.h>
#include "core.h"
#include "fault.h"
#include "patch.h"
#include "symbols.h"
#include "klp_trace.h"

/*
 * klp_mutex protects klp_patches and every state transition of anything
 * reachable from it.  The ftrace handler alone reads the func_stacks
 * without it, under RCU.
 */
DEFINE_MUTEX(klp_mutex);
static LIST_HEAD(klp_patches);

static struct kobject *klp_root_kobj;
static struct dentry *klp_debugfs_dir;
static DEFINE_IDA(klp_func_ids);

/* klp_mutex held */
static bool klp_is_patch_registered(struct klp_patch *patch)
{
	struct klp_patch *p;

	list_for_each_entry(p, &klp_patches, list)
		if (p == patch)
			return true;
	return false;
}

static bool klp_is_object_loaded(struct klp_object *obj)
{
	return !klp_is_module(obj) || obj->mod;
}

/* Sets obj->mod when the object's module is live; klp_mutex held. */
static void klp_find_object_module(struct klp_object *obj)
{
	if (!klp_is_module(obj) || obj->mod)
		return;
	/*
	 * No module reference is needed: the module notifier takes klp_mutex
	 * too, so the module cannot finish going while we hold it.
	 */
	obj->mod = klp_find_module(obj->name);
}

static void klp_taint(void)
{
	if (test_taint(TAINT_LIVEPATCH))
		return;
	pr_notice("tainting kernel with TAINT_LIVEPATCH\n");
	add_taint(TAINT_LIVEPATCH, LOCKDEP_STILL_OK);
}

static void klp_trace_failure(struct klp_object *obj, struct klp_func *func,
			      int err)
{
	trace_klp_enable_failed(klp_patch_name(obj->patch), klp_obj_name(obj),
				func ? func->old_name : "", err);
}

/* Pop the object's enabled funcs, last enabled first. */
static void klp_disable_object(struct klp_object *obj)
{
	struct klp_func *func, *first = obj->funcs;

	klp_for_each_func(obj, func)
		;
	while (func-- != first)
		if (func->state == KLP_ENABLED)
			klp_unpatch_func(func);

	obj->state = KLP_DISABLED;
}

static int klp_enable_object(struct klp_object *obj)
{
	struct klp_func *func;
	int ret;

	if (WARN_ON(obj->state != KLP_DISABLED))
		return -EINVAL;

	if (WARN_ON(!klp_is_object_loaded(obj)))
		return -EINVAL;

	klp_for_each_func(obj, func) {
		ret = klp_fault("enable_func") ?: klp_patch_func(func);
		if (ret) {
			pr_err("failed to patch function '%s' of object '%s' for patch '%s' (%d)\n",
			       func->old_name, klp_obj_name(obj),
			       klp_patch_name(obj->patch), ret);
			klp_trace_failure(obj, func, ret);
			klp_disable_object(obj);
			return ret;
		}
		klp_taint();
	}
	obj->state = KLP_ENABLED;
	return 0;
}

static void __klp_disable_patch(struct klp_patch *patch)
{
	struct klp_object *obj;

	pr_notice("disabling patch '%s'\n", klp_patch_name(patch));

	klp_for_each_object(patch, obj)
		if (obj->state == KLP_ENABLED)
			klp_disable_object(obj);

	patch->state = KLP_DISABLED;
}

static int __klp_enable_patch(struct klp_patch *patch)
{
	struct klp_object *obj;
	int ret;

	if (WARN_ON(patch->state != KLP_DISABLED))
		return -EINVAL;

	pr_notice("enabling patch '%s'\n", klp_patch_name(patch));

	klp_for_each_object(patch, obj) {
		klp_find_object_module(obj);

		if (!klp_is_object_loaded(obj)) {
			trace_klp_object(klp_patch_name(patch), obj->name,
					 KLP_OBJ_DEFERRED);
			continue;
		}

		ret = klp_enable_object(obj);
		if (ret)
			goto rollback;
	}

	patch->state = KLP_ENABLED;
	return 0;

rollback:
	/* Every object enabled so far goes back: nothing stays half-applied. */
	__klp_disable_patch(patch);
	return ret;
}

/**
 * klp_enable_patch() - enables a registered patch
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
	int ret;

	mutex_lock(&klp_mutex);

	if (!klp_is_patch_registered(patch)) {
		ret = -EINVAL;
		goto out;
	}

	if (patch->state == KLP_ENABLED) {
		ret = -EINVAL;
		goto trace;
	}

	ret = __klp_enable_patch(patch);
trace:
	trace_klp_patch_enable(klp_patch_name(patch), ret);
out:
	mutex_unlock(&klp_mutex);
	return ret;
}
EXPORT_SYMBOL_GPL(klpcore_enable_patch);

/**
 * klp_disable_patch() - disables a registered patch
 * @patch:	The registered, enabled patch to be disabled
 *
 * Pops the patch's functions off their func_stacks: each function falls
 * back to the func below or, with none left, to the original code.
 *
 * Return: 0 on success, otherwise error
 */
int klpcore_disable_patch(struct klp_patch *patch)
{
	int ret = 0;

	mutex_lock(&klp_mutex);

	if (!klp_is_patch_registered(patch)) {
		ret = -EINVAL;
		goto out;
	}

	if (patch->state == KLP_DISABLED)
		ret = -EINVAL;
	else
		__klp_disable_patch(patch);

	trace_klp_patch_disable(klp_patch_name(patch), ret);
out:
	mutex_unlock(&klp_mutex);
	return ret;
}
EXPORT_SYMBOL_GPL(klpcore_disable_patch);

/*
 * Sysfs Interface
 *
 * /sys/kernel/klp
 * /sys/kernel/klp/<patch>
 * /sys/kernel/klp/<patch>/enabled
 * /sys/kernel/klp/<patch>/<object>
 * /sys/kernel/klp/<patch>/<object>/loaded
 * /sys/kernel/klp/<patch>/<object>/<function>
 * /sys/kernel/klp/<patch>/<object>/<function>/{id,patched,stack_pos,stack_depth}
 * /sys/kernel/klp/<patch>/<object>/<function>/{old_addr,new_func}   (root only)
 *
 * Show and store take klp_mutex and check that the patch is still
 * registered: kobjects are released only after klp_mutex is dropped, so a
 * reader blocked on the mutex never deadlocks an unregister.
 */

static ssize_t enabled_store(struct kobject *kobj, struct kobj_attribute *attr,
			     const char *buf, size_t count)
{
	struct klp_patch *patch = container_of(kobj, struct klp_patch, kobj);
	unsigned int val;
	int ret;

	ret = kstrtouint(buf, 10, &val);
	if (ret || val > KLP_ENABLED)
		return -EINVAL;

	mutex_lock(&klp_mutex);

	if (!klp_is_patch_registered(patch)) {
		ret = -ENODEV;
		goto out;
	}

	if (val == patch->state) {
		/* already in requested state */
		ret = -EINVAL;
	} else if (val == KLP_ENABLED) {
		ret = __klp_enable_patch(patch);
	} else {
		__klp_disable_patch(patch);
		ret = 0;
	}

	if (val == KLP_ENABLED)
		trace_klp_patch_enable(klp_patch_name(patch), ret);
	else
		trace_klp_patch_disable(klp_patch_name(patch), ret);
out:
	mutex_unlock(&klp_mutex);
	return ret ?: count;
}

static ssize_t enabled_show(struct kobject *kobj,
			    struct kobj_attribute *attr, char *buf)
{
	struct klp_patch *patch = container_of(kobj, struct klp_patch, kobj);

	return sysfs_emit(buf, "%d\n", READ_ONCE(patch->state));
}

static struct kobj_attribute enabled_kobj_attr = __ATTR_RW(enabled);
static struct attribute *klp_patch_attrs[] = {
	&enabled_kobj_attr.attr,
	NULL
};
ATTRIBUTE_GROUPS(klp_patch);

static void klp_kobj_release_patch(struct kobject *kobj)
{
	/*
	 * Without a consistency model nobody can tell whether a task still
	 * runs code of the patch module, so its reference is never dropped
	 * (see klp_register_patch()).
	 */
}

static struct kobj_type klp_ktype_patch = {
	.release = klp_kobj_release_patch,
	.sysfs_ops = &kobj_sysfs_ops,
	.default_groups = klp_patch_groups,
};

static ssize_t loaded_show(struct kobject *kobj, struct kobj_attribute *attr,
			   char *buf)
{
	struct klp_patch *patch = container_of(kobj->parent, struct klp_patch,
					       kobj);
	struct klp_object *obj;
	int loaded = -1;

	mutex_lock(&klp_mutex);
	if (klp_is_patch_registered(patch))
		klp_for_each_object(patch, obj)
			if (obj->kobj == kobj)
				loaded = klp_is_object_loaded(obj);
	mutex_unlock(&klp_mutex);

	return loaded < 0 ? -ENODEV : sysfs_emit(buf, "%d\n", loaded);
}

static struct kobj_attribute loaded_kobj_attr = __ATTR_RO(loaded);
static struct attribute *klp_object_attrs[] = {
	&loaded_kobj_attr.attr,
	NULL
};
ATTRIBUTE_GROUPS(klp_object);

static void klp_kobj_release_object(struct kobject *kobj)
{
	kfree(kobj);
}

static struct kobj_type klp_ktype_object = {
	.release = klp_kobj_release_object,
	.sysfs_ops = &kobj_sysfs_ops,
	.default_groups = klp_object_groups,
};

enum klp_func_attr { KLP_FA_ID, KLP_FA_PATCHED, KLP_FA_POS, KLP_FA_DEPTH,
		     KLP_FA_OLD_ADDR, KLP_FA_NEW_FUNC };

static ssize_t klp_func_show(struct kobject *kobj, char *buf,
			     enum klp_func_attr which)
{
	struct klp_func *func = container_of(kobj, struct klp_func, kobj);
	unsigned int depth;
	ssize_t ret;
	int pos;

	mutex_lock(&klp_mutex);
	if (!klp_is_patch_registered(func->obj->patch)) {
		ret = -ENODEV;
		goto out;
	}

	pos = klp_func_stack_pos(func, &depth);
	switch (which) {
	case KLP_FA_ID:
		ret = sysfs_emit(buf, "%u\n", func->id);
		break;
	case KLP_FA_PATCHED:
		ret = sysfs_emit(buf, "%d\n", func->state);
		break;
	case KLP_FA_POS:
		ret = sysfs_emit(buf, "%d\n", pos);
		break;
	case KLP_FA_DEPTH:
		ret = sysfs_emit(buf, "%u\n", depth);
		break;
	case KLP_FA_OLD_ADDR:
		ret = sysfs_emit(buf, "0x%lx\n", func->old_addr);
		break;
	default:
		ret = sysfs_emit(buf, "0x%lx\n", (unsigned long)func->new_func);
		break;
	}
out:
	mutex_unlock(&klp_mutex);
	return ret;
}

#define KLP_FUNC_ATTR(_name, _which, _mode)				\
static ssize_t _name##_show(struct kobject *kobj,			\
			    struct kobj_attribute *attr, char *buf)	\
{									\
	return klp_func_show(kobj, buf, _which);			\
}									\
static struct kobj_attribute _name##_kobj_attr = __ATTR(_name, _mode, _name##_show, NULL)

KLP_FUNC_ATTR(id, KLP_FA_ID, 0444);
KLP_FUNC_ATTR(patched, KLP_FA_PATCHED, 0444);
KLP_FUNC_ATTR(stack_pos, KLP_FA_POS, 0444);
KLP_FUNC_ATTR(stack_depth, KLP_FA_DEPTH, 0444);
KLP_FUNC_ATTR(old_addr, KLP_FA_OLD_ADDR, 0400);
KLP_FUNC_ATTR(new_func, KLP_FA_NEW_FUNC, 0400);

static struct attribute *klp_func_attrs[] = {
	&id_kobj_attr.attr,
	&patched_kobj_attr.attr,
	&stack_pos_kobj_attr.attr,
	&stack_depth_kobj_attr.attr,
	&old_addr_kobj_attr.attr,
	&new_func_kobj_attr.attr,
	NULL
};
ATTRIBUTE_GROUPS(klp_func);

static void klp_kobj_release_func(struct kobject *kobj)
{
}

static struct kobj_type klp_ktype_func = {
	.release = klp_kobj_release_func,
	.sysfs_ops = &kobj_sysfs_ops,
	.default_groups = klp_func_groups,
};

/* Clean up when a patched object's module goes. */
static void klp_free_object_loaded(struct klp_object *obj)
{
	struct klp_func *func;

	obj->mod = NULL;

	klp_for_each_func(obj, func)
		func->old_addr = 0;
}

/*
 * Undo whatever part of klp_init_patch() was done: a func with an id and
 * an object with a kobject are initialized.  Called without klp_mutex,
 * since dropping a kobject waits for its sysfs readers.
 */
static void klp_free_patch(struct klp_patch *patch)
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
		kobject_put(obj->kobj);
		obj->kobj = NULL;
	}
	if (patch->kobj.state_initialized)
		kobject_put(&patch->kobj);
}

static int klp_write_object_relocations(struct module *pmod,
					struct klp_object *obj)
{
	struct klp_reloc *reloc;
	int ret;

	for (reloc = obj->relocs; reloc->name; reloc++) {
		if (!klp_is_module(obj)) {
			ret = klp_verify_vmlinux_symbol(reloc->name,
							reloc->val);
		} else if (reloc->external) {
			/* module, reloc->val needs to be discovered */
			ret = klp_find_external_symbol(pmod, reloc->name,
						       &reloc->val);
		} else {
			ret = klp_find_object_symbol(obj->mod->name,
						     reloc->name, &reloc->val);
		}
		if (ret)
			return ret;

		ret = klp_write_module_reloc(pmod, reloc->type, reloc->loc,
					     reloc->val + reloc->addend);
		if (ret) {
			pr_err("relocation failed for symbol '%s' at 0x%016lx (%d)\n",
			       reloc->name, reloc->val, ret);
			return ret;
		}
	}

	return 0;
}

static int klp_find_verify_func_addr(struct klp_object *obj,
				     struct klp_func *func)
{
	/*
	 * A hint from build time cannot match a randomized kernel: under
	 * KASLR it is ignored and the name alone decides, as in the seed.
	 */
	if (klp_kaslr_active() || klp_is_module(obj))
		func->old_addr = 0;

	if (!func->old_addr)
		return klp_find_object_symbol(obj->name, func->old_name,
					      &func->old_addr);

	return klp_verify_vmlinux_symbol(func->old_name, func->old_addr);
}

/* Parts of the initialization done only when the object is loaded. */
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

static int klp_init_func(struct klp_object *obj, struct klp_func *func)
{
	struct klp_func *prev;
	int ret;

	if (strnlen(func->old_name, KSYM_NAME_LEN) >= KSYM_NAME_LEN) {
		pr_err("function name longer than %d characters in object '%s'\n",
		       KSYM_NAME_LEN - 1, klp_obj_name(obj));
		return -EINVAL;
	}
	if (!func->new_func) {
		pr_err("function '%s' has no new_func\n", func->old_name);
		return -EINVAL;
	}
	for (prev = obj->funcs; prev != func; prev++) {
		if (!strcmp(prev->old_name, func->old_name)) {
			pr_err("function '%s' appears twice in object '%s'\n",
			       func->old_name, klp_obj_name(obj));
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

	memset(&func->kobj, 0, sizeof(func->kobj));
	ret = kobject_init_and_add(&func->kobj, &klp_ktype_func,
				   obj->kobj, "%s", func->old_name);
	if (ret) {
		pr_err("cannot create sysfs entry for function '%s' in object '%s' (%d)\n",
		       func->old_name, klp_obj_name(obj), ret);
		kobject_put(&func->kobj);
		ida_free(&klp_func_ids, func->id);
		func->id = 0;
	}
	return ret;
}

static int klp_init_object(struct klp_patch *patch, struct klp_object *obj)
{
	struct klp_func *func;
	int ret;

	if (!obj->funcs || !obj->funcs->old_name) {
		pr_err("object '%s' of patch '%s' has no functions\n",
		       klp_obj_name(obj), klp_patch_name(patch));
		return -EINVAL;
	}

	obj->state = KLP_DISABLED;
	obj->patch = patch;
	obj->mod = NULL;

	klp_find_object_module(obj);

	obj->kobj = kzalloc(sizeof(*obj->kobj), GFP_KERNEL);
	if (!obj->kobj)
		return -ENOMEM;
	ret = kobject_init_and_add(obj->kobj, &klp_ktype_object, &patch->kobj,
				   "%s", klp_obj_name(obj));
	if (ret) {
		kobject_put(obj->kobj);
		obj->kobj = NULL;
		return ret;
	}

	klp_for_each_func(obj, func) {
		ret = klp_init_func(obj, func);
		if (ret)
			return ret;
	}

	if (klp_is_object_loaded(obj))
		return klp_init_object_loaded(patch, obj);

	return 0;
}

/* On failure the caller undoes the partial work with klp_free_patch(). */
static int klp_init_patch(struct klp_patch *patch)
{
	struct klp_object *obj;
	int ret;

	patch->state = KLP_DISABLED;
	INIT_LIST_HEAD(&patch->list);

	memset(&patch->kobj, 0, sizeof(patch->kobj));
	ret = kobject_init_and_add(&patch->kobj, &klp_ktype_patch,
				   klp_root_kobj, "%s", klp_patch_name(patch));
	if (ret) {
		pr_err("cannot create %s/%s (%d)\n", KLP_SYSFS_ROOT,
		       klp_patch_name(patch), ret);
		return ret;
	}

	klp_for_each_object(patch, obj) {
		ret = klp_init_object(patch, obj);
		if (ret)
			return ret;
	}

	list_add_tail(&patch->list, &klp_patches);
	return 0;
}

/**
 * klp_register_patch() - registers a patch
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

	if (!klp_root_kobj)
		return -ENODEV;

	if (!patch || !patch->mod)
		return -EINVAL;

	name = klp_patch_name(patch);

	if (!patch->objs || !(patch->objs->funcs || patch->objs->name)) {
		pr_err("patch '%s' has no objects\n", name);
		ret = -EINVAL;
		goto trace;
	}

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
		mutex_unlock(&klp_mutex);
		pr_err("patch '%s' is already registered\n", name);
		module_put(patch->mod);
		ret = -EINVAL;
		goto trace;
	}
	ret = klp_init_patch(patch);
	mutex_unlock(&klp_mutex);

	if (ret) {
		pr_err("failed to register patch '%s' (%d)\n", name, ret);
		klp_free_patch(patch);
		module_put(patch->mod);
	}
trace:
	trace_klp_patch_register(name, ret);
	return ret;
}
EXPORT_SYMBOL_GPL(klpcore_register_patch);

/**
 * klp_unregister_patch() - unregisters a patch
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

	mutex_unlock(&klp_mutex);

	if (!ret)
		klp_free_patch(patch);

	trace_klp_patch_unregister(klp_patch_name(patch), ret);
	return ret;
}
EXPORT_SYMBOL_GPL(klpcore_unregister_patch);

/*
 * A module with objects in registered patches is coming: resolve and
 * relocate for it, then apply every enabled patch, in registration order
 * (seed 006), so the last registered enabled patch wins.  If one cannot be
 * applied, all applied so far are reverted and the module load fails.
 */
static int klp_module_coming(struct module *mod)
{
	struct klp_patch *patch;
	struct klp_object *obj;
	int ret = 0;

	list_for_each_entry(patch, &klp_patches, list) {
		klp_for_each_object(patch, obj) {
			if (!klp_is_module(obj) || strcmp(obj->name, mod->name))
				continue;

			obj->mod = mod;
			ret = klp_init_object_loaded(patch, obj);
			if (ret) {
				/* klp_enable_object() traces its own */
				klp_trace_failure(obj, NULL, ret);
			} else if (patch->state == KLP_ENABLED) {
				pr_notice("applying patch '%s' to loading module '%s'\n",
					  klp_patch_name(patch), mod->name);
				ret = klp_enable_object(obj);
				if (!ret)
					trace_klp_object(klp_patch_name(patch),
							 mod->name,
							 KLP_OBJ_APPLIED);
			}
			if (ret) {
				pr_warn("failed to apply patch '%s' to module '%s' (%d): refusing the module\n",
					klp_patch_name(patch), mod->name, ret);
				goto rollback;
			}
			break;
		}
	}
	return 0;

rollback:
	/* Only objects of patches up to the failing one have obj->mod set. */
	list_for_each_entry(patch, &klp_patches, list) {
		klp_for_each_object(patch, obj) {
			if (!klp_is_module(obj) || obj->mod != mod)
				continue;
			if (obj->state == KLP_ENABLED)
				klp_disable_object(obj);
			klp_free_object_loaded(obj);
		}
	}
	return ret;
}

static void klp_module_going(struct module *mod)
{
	struct klp_patch *patch;
	struct klp_object *obj;

	list_for_each_entry(patch, &klp_patches, list) {
		klp_for_each_object(patch, obj) {
			if (!klp_is_module(obj) || obj->mod != mod)
				continue;

			if (obj->state == KLP_ENABLED) {
				pr_notice("reverting patch '%s' on unloading module '%s'\n",
					  klp_patch_name(patch), mod->name);
				klp_disable_object(obj);
				trace_klp_object(klp_patch_name(patch),
						 mod->name, KLP_OBJ_REVERTED);
			}
			klp_free_object_loaded(obj);
			break;
		}
	}
}

static int klp_module_notify(struct notifier_block *nb, unsigned long action,
			     void *data)
{
	struct module *mod = data;
	int ret = 0;

	if (action != MODULE_STATE_COMING && action != MODULE_STATE_GOING)
		return NOTIFY_DONE;

	mutex_lock(&klp_mutex);
	if (action == MODULE_STATE_COMING)
		ret = klp_module_coming(mod);
	else
		klp_module_going(mod);
	mutex_unlock(&klp_mutex);

	return notifier_from_errno(ret);
}

static struct notifier_block klp_module_nb = {
	.notifier_call = klp_module_notify,
};

static int klp_stacks_show(struct seq_file *m, void *v)
{
	mutex_lock(&klp_mutex);
	klp_show_stacks(m);
	mutex_unlock(&klp_mutex);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(klp_stacks);

static int __init klp_init(void)
{
	int ret;

	ret = klp_symbols_init();
	if (ret)
		return ret;

	ret = register_module_notifier(&klp_module_nb);
	if (ret)
		return ret;

	klp_root_kobj = kobject_create_and_add("klp", kernel_kobj);
	if (!klp_root_kobj) {
		pr_err("cannot create %s\n", KLP_SYSFS_ROOT);
		unregister_module_notifier(&klp_module_nb);
		return -ENOMEM;
	}

	klp_debugfs_dir = debugfs_create_dir("klp", NULL);
	debugfs_create_file("stacks", 0400, klp_debugfs_dir, NULL,
			    &klp_stacks_fops);

	pr_info("live patching core ready at %s\n", KLP_SYSFS_ROOT);
	return 0;
}

/* Reached only with no patch registered: each patch module pins us. */
static void __exit klp_exit(void)
{
	debugfs_remove_recursive(klp_debugfs_dir);
	kobject_put(klp_root_kobj);
	unregister_module_notifier(&klp_module_nb);
}

module_init(klp_init);
module_exit(klp_exit);
MODULE_LICENSE("GPL");
MODULE_AUTHOR("klp developers");
MODULE_DESCRIPTION("Observable live patching core for stock kernels");
