// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sysfs.c - the /sys/kernel/klp tree
 *
 * /sys/kernel/klp
 * /sys/kernel/klp/<patch>
 * /sys/kernel/klp/<patch>/enabled       (the state it is in or goes to)
 * /sys/kernel/klp/<patch>/transition    (1 while its transition runs)
 * /sys/kernel/klp/<patch>/force         (write 1: complete its transition)
 * /sys/kernel/klp/<patch>/cve           (the patch's cve, "" for none)
 * /sys/kernel/klp/<patch>/replace       (1 for a replace patch)
 * /sys/kernel/klp/<patch>/replaced_by   (the patch that replaced it, or "")
 * /sys/kernel/klp/<patch>/<object>
 * /sys/kernel/klp/<patch>/<object>/loaded
 * /sys/kernel/klp/<patch>/<object>/patched   (upstream's, since 6.0)
 * /sys/kernel/klp/<patch>/<object>/<function>   (<function>,<sympos> for a
 *                                                symbol position above 1)
 * /sys/kernel/klp/<patch>/<object>/<function>/{id,patched,stack_pos,stack_depth}
 * /sys/kernel/klp/<patch>/<object>/<function>/{old_addr,new_func}   (root only)
 *
 * Show and store take klp_mutex and check that the patch is still
 * registered: kobjects are released only after klp_mutex is dropped, so a
 * reader blocked on the mutex never deadlocks an unregister.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kobject.h>
#include <linux/slab.h>
#include <linux/sysfs.h>
#include "core.h"
#include "patch.h"
#include "transition.h"
#include <klp/uapi.h>

static struct kobject *klp_root_kobj;

static ssize_t enabled_store(struct kobject *kobj, struct kobj_attribute *attr,
			     const char *buf, size_t count)
{
	struct klp_patch *patch = container_of(kobj, struct klp_patch, kobj);
	unsigned int val;
	int ret;

	ret = kstrtouint(buf, 10, &val);
	if (ret || val > KLP_ENABLED)
		return -EINVAL;

	ret = klp_set_patch_state(patch, val, -ENODEV);
	return ret ?: count;
}

/* A number about a patch, read under klp_mutex while it is registered. */
static ssize_t klp_show_locked(struct kobject *kobj, char *buf,
			       int (*value)(struct klp_patch *patch))
{
	struct klp_patch *patch = container_of(kobj, struct klp_patch, kobj);
	ssize_t ret = -ENODEV;

	mutex_lock(&klp_mutex);
	if (klp_is_patch_registered(patch))
		ret = sysfs_emit(buf, "%d\n", value(patch));
	mutex_unlock(&klp_mutex);
	return ret;
}

static ssize_t enabled_show(struct kobject *kobj,
			    struct kobj_attribute *attr, char *buf)
{
	return klp_show_locked(kobj, buf, klp_transition_target);
}

static int klp_transition_of(struct klp_patch *patch)
{
	return klp_in_transition(patch);
}

static ssize_t transition_show(struct kobject *kobj,
			       struct kobj_attribute *attr, char *buf)
{
	return klp_show_locked(kobj, buf, klp_transition_of);
}

static ssize_t force_store(struct kobject *kobj, struct kobj_attribute *attr,
			   const char *buf, size_t count)
{
	struct klp_patch *patch = container_of(kobj, struct klp_patch, kobj);
	bool val;
	int ret;

	ret = kstrtobool(buf, &val);
	if (ret)
		return ret;
	/* a false value asks for nothing: done, as upstream answers it */
	if (!val)
		return count;

	mutex_lock(&klp_mutex);
	if (!klp_is_patch_registered(patch))
		ret = -ENODEV;
	else if (!klp_in_transition(patch))
		ret = -EINVAL;
	else
		ret = klp_transition_force(patch);
	mutex_unlock(&klp_mutex);
	if (ret == -EINVAL)
		pr_warn("force: patch '%s' is not in transition\n",
			klp_patch_name(patch));
	return ret ?: count;
}

/* Fixed at registration and checked then (klp_check_cve()): no lock. */
static ssize_t cve_show(struct kobject *kobj, struct kobj_attribute *attr,
			char *buf)
{
	struct klp_patch *patch = container_of(kobj, struct klp_patch, kobj);

	return sysfs_emit(buf, "%s\n", patch->cve ?: "");
}

/* Fixed at registration: no lock. */
static ssize_t replace_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	struct klp_patch *patch = container_of(kobj, struct klp_patch, kobj);

	return sysfs_emit(buf, "%d\n", patch->replace);
}

static ssize_t replaced_by_show(struct kobject *kobj,
				struct kobj_attribute *attr, char *buf)
{
	struct klp_patch *patch = container_of(kobj, struct klp_patch, kobj);
	ssize_t ret = -ENODEV;

	mutex_lock(&klp_mutex);
	if (klp_is_patch_registered(patch))
		ret = sysfs_emit(buf, "%s\n", patch->replaced_by);
	mutex_unlock(&klp_mutex);
	return ret;
}

static struct kobj_attribute enabled_kobj_attr = __ATTR_RW(enabled);
static struct kobj_attribute transition_kobj_attr = __ATTR_RO(transition);
static struct kobj_attribute force_kobj_attr = __ATTR_WO(force);
static struct kobj_attribute cve_kobj_attr = __ATTR_RO(cve);
static struct kobj_attribute replace_kobj_attr = __ATTR_RO(replace);
static struct kobj_attribute replaced_by_kobj_attr = __ATTR_RO(replaced_by);
static struct attribute *klp_patch_attrs[] = {
	&enabled_kobj_attr.attr,
	&transition_kobj_attr.attr,
	&force_kobj_attr.attr,
	&cve_kobj_attr.attr,
	&replace_kobj_attr.attr,
	&replaced_by_kobj_attr.attr,
	NULL
};
ATTRIBUTE_GROUPS(klp_patch);

static void klp_kobj_release_patch(struct kobject *kobj)
{
	/*
	 * The patch module's reference is dropped by whoever frees the
	 * patch (klp_release_patch(), or the module's own unregister).
	 */
}

static const struct kobj_type klp_ktype_patch = {
	.release = klp_kobj_release_patch,
	.sysfs_ops = &kobj_sysfs_ops,
	.default_groups = klp_patch_groups,
};

/* A number about an object, read under klp_mutex while its patch is registered. */
static ssize_t klp_obj_show(struct kobject *kobj, char *buf,
			    int (*value)(struct klp_object *obj))
{
	struct klp_patch *patch = container_of(kobj->parent, struct klp_patch,
					       kobj);
	struct klp_object *obj;
	int val = -1;

	mutex_lock(&klp_mutex);
	if (klp_is_patch_registered(patch))
		klp_for_each_object(patch, obj)
			if (obj->kobj == kobj)
				val = value(obj);
	mutex_unlock(&klp_mutex);

	return val < 0 ? -ENODEV : sysfs_emit(buf, "%d\n", val);
}

static int klp_obj_loaded(struct klp_object *obj)
{
	return klp_is_object_loaded(obj);
}

static ssize_t loaded_show(struct kobject *kobj, struct kobj_attribute *attr,
			   char *buf)
{
	return klp_obj_show(kobj, buf, klp_obj_loaded);
}

/* upstream's (6.0): 1 while the object's funcs are on their stacks */
static int klp_obj_patched(struct klp_object *obj)
{
	return obj->state == KLP_ENABLED;
}

static ssize_t obj_patched_show(struct kobject *kobj,
				struct kobj_attribute *attr, char *buf)
{
	return klp_obj_show(kobj, buf, klp_obj_patched);
}

static struct kobj_attribute loaded_kobj_attr = __ATTR_RO(loaded);
static struct kobj_attribute obj_patched_kobj_attr =
	__ATTR(patched, 0444, obj_patched_show, NULL);
static struct attribute *klp_object_attrs[] = {
	&loaded_kobj_attr.attr,
	&obj_patched_kobj_attr.attr,
	NULL
};
ATTRIBUTE_GROUPS(klp_object);

static void klp_kobj_release_object(struct kobject *kobj)
{
	kfree(kobj);
	klp_mem_free(KLP_MEM_OBJECT_KOBJ);
}

static const struct kobj_type klp_ktype_object = {
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

static const struct kobj_type klp_ktype_func = {
	.release = klp_kobj_release_func,
	.sysfs_ops = &kobj_sysfs_ops,
	.default_groups = klp_func_groups,
};

/**
 * klp_sysfs_add_patch() - create /sys/kernel/klp/<patch>
 * @patch:	the patch being registered
 *
 * Return: 0 on success, otherwise error (undone by klp_free_patch())
 */
int klp_sysfs_add_patch(struct klp_patch *patch)
{
	int ret;

	memset(&patch->kobj, 0, sizeof(patch->kobj));
	ret = kobject_init_and_add(&patch->kobj, &klp_ktype_patch,
				   klp_root_kobj, "%s", klp_patch_name(patch));
	if (ret)
		pr_err("cannot create %s/%s (%d)\n", KLP_SYSFS_ROOT,
		       klp_patch_name(patch), ret);
	return ret;
}

/**
 * klp_sysfs_add_object() - create the directory of an object
 * @obj:	an object of a patch whose directory exists
 *
 * Return: 0 on success, otherwise error (obj->kobj stays NULL)
 */
int klp_sysfs_add_object(struct klp_object *obj)
{
	int ret;

	obj->kobj = kzalloc(sizeof(*obj->kobj), GFP_KERNEL);
	if (!obj->kobj)
		return -ENOMEM;
	klp_mem_alloc(KLP_MEM_OBJECT_KOBJ);
	ret = kobject_init_and_add(obj->kobj, &klp_ktype_object,
				   &obj->patch->kobj, "%s", klp_obj_name(obj));
	if (ret) {
		kobject_put(obj->kobj);
		obj->kobj = NULL;
	}
	return ret;
}

/**
 * klp_sysfs_add_func() - create the directory of a func
 * @func:	a func of an object whose directory exists
 *
 * Return: 0 on success, otherwise error (nothing left to undo)
 */
int klp_sysfs_add_func(struct klp_func *func)
{
	int ret;

	memset(&func->kobj, 0, sizeof(func->kobj));
	if (func->old_sympos > 1)
		ret = kobject_init_and_add(&func->kobj, &klp_ktype_func,
					   func->obj->kobj, "%s,%lu",
					   func->old_name, func->old_sympos);
	else
		ret = kobject_init_and_add(&func->kobj, &klp_ktype_func,
					   func->obj->kobj, "%s", func->old_name);
	if (ret) {
		pr_err("cannot create sysfs entry for function '%s' in object '%s' (%d)\n",
		       func->old_name, klp_obj_name(func->obj), ret);
		kobject_put(&func->kobj);
	}
	return ret;
}

/**
 * klp_sysfs_init() - create /sys/kernel/klp
 *
 * Return: 0 on success, otherwise error
 */
int klp_sysfs_init(void)
{
	klp_root_kobj = kobject_create_and_add("klp", kernel_kobj);
	if (!klp_root_kobj) {
		pr_err("cannot create %s\n", KLP_SYSFS_ROOT);
		return -ENOMEM;
	}
	return 0;
}

/**
 * klp_sysfs_exit() - remove /sys/kernel/klp (no patch is registered)
 */
void klp_sysfs_exit(void)
{
	kobject_put(klp_root_kobj);
}
