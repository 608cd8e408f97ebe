/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef _KLP_CORE_H
#define _KLP_CORE_H

#include <linux/mutex.h>
#include <klp/livepatch.h>

extern struct mutex klp_mutex;

#define klp_for_each_object(patch, obj) \
	for (obj = (patch)->objs; obj->funcs || obj->name; obj++)

#define klp_for_each_func(obj, func) \
	for (func = (obj)->funcs; func->old_name; func++)

static inline bool klp_is_module(struct klp_object *obj)
{
	return obj->name;
}

static inline const char *klp_obj_name(struct klp_object *obj)
{
	return klp_is_module(obj) ? obj->name : "vmlinux";
}

static inline const char *klp_patch_name(struct klp_patch *patch)
{
	return patch->mod->name;
}

#endif /* _KLP_CORE_H */
