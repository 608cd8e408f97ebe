/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef _KLP_CORE_H
#define _KLP_CORE_H

#include <linux/atomic.h>
#include <linux/mutex.h>
#include <klp/livepatch.h>
#include <klp/uapi.h>

/*
 * klp_mutex protects klp_patches and every state transition of anything
 * reachable from it.  The ftrace handler alone reads the func_stacks
 * without it, under RCU.
 */
extern struct mutex klp_mutex;
extern struct list_head klp_patches;

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

static inline const char *klp_patch_name(const struct klp_patch *patch)
{
	return patch->mod->name;
}

/*
 * A func's name in sysfs, klp/state and the events: its old_name, with
 * ",<sympos>" appended for a symbol position above 1 (set once its
 * sysfs directory exists).
 */
static inline const char *klp_func_name(struct klp_func *func)
{
	return kobject_name(&func->kobj) ?: func->old_name;
}

static inline bool klp_is_object_loaded(struct klp_object *obj)
{
	return !klp_is_module(obj) || obj->mod;
}

/*
 * What the core allocates for itself, by kind, counted while allocated:
 * debugfs klp/allocated shows the counts, so a test can prove that module
 * churn or a failed enable leaves nothing of the core's behind.
 */
enum klp_mem_kind {
	KLP_MEM_ALIVE_MOD,	/* module.c: a module between COMING and GOING */
	KLP_MEM_STACK,		/* patch.c: a patched function's func_stack */
	KLP_MEM_MODREF,		/* reloc.c: a reference on an exporting module */
	KLP_MEM_OBJECT_KOBJ,	/* sysfs.c: an object's directory */
	KLP_MEM_SHADOW,		/* shadow.c: a shadow variable */
	KLP_NR_MEM_KINDS
};

extern atomic_t klp_allocated[KLP_NR_MEM_KINDS];

static inline void klp_mem_alloc(enum klp_mem_kind kind)
{
	atomic_inc(&klp_allocated[kind]);
}

static inline void klp_mem_free(enum klp_mem_kind kind)
{
	atomic_dec(&klp_allocated[kind]);
}

/* events.c: klp_events.ko, the tracepoints and their numbers */
u64 klp_next_seq(void);
u64 klp_last_seq(void);

/* callbacks.c */
int klp_pre_patch_callback(struct klp_object *obj, enum klp_cause cause);
void klp_post_patch_callback(struct klp_object *obj, enum klp_cause cause);
void klp_pre_unpatch_callback(struct klp_object *obj, enum klp_cause cause);
void klp_post_unpatch_callback(struct klp_object *obj, enum klp_cause cause);

/* replace.c */
void klp_replace_patches(struct klp_patch *patch);
void klp_replace_finish(struct klp_patch *patch);

/* state.c */
extern struct klp_patch *klp_transition_patch;
int klp_check_states(struct klp_patch *patch);

/* core.c */
bool klp_is_patch_registered(struct klp_patch *patch);
int klp_set_patch_state(struct klp_patch *patch, int state, int unregistered);
int klp_load_object(struct klp_object *obj);
void klp_unload_object(struct klp_object *obj);
int klp_enable_object(struct klp_object *obj, enum klp_cause cause);
int klp_disable_object(struct klp_object *obj, enum klp_cause cause);
int klp_disable_patch_all(struct klp_patch *patch, enum klp_cause cause);
void klp_free_patch(struct klp_patch *patch);
void klp_release_patch(struct klp_patch *patch);
void klp_trace_failure(struct klp_object *obj, struct klp_func *func,
		       int err);

/* debugfs.c */
void klp_debugfs_init(void);
void klp_debugfs_exit(void);

/* module.c */
struct module *klp_find_loaded_module(const char *name);
int klp_module_init(void);
void klp_module_exit(void);

/* reloc.c */
int klp_write_object_relocations(struct module *pmod, struct klp_object *obj);
void klp_put_module_refs(struct module *mod);

/* shadow.c */
void klp_shadow_exit(void);

/* sysfs.c */
int klp_sysfs_add_patch(struct klp_patch *patch);
int klp_sysfs_add_object(struct klp_object *obj);
int klp_sysfs_add_func(struct klp_func *func);
int klp_sysfs_init(void);
void klp_sysfs_exit(void);

#endif /* _KLP_CORE_H */
