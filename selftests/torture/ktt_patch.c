// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ktt_patch.c - the torture's patch pool, one source for both sides
 *
 * Built once per kind and side: ktt_<kind>_k against <klp/livepatch.h>
 * (KTT_SIDE_k), ktt_<kind>_b against the kernel's <linux/livepatch.h>
 * (KTT_SIDE_b), each written to upstream's API: klp_enable_patch() in
 * its init, nothing in its exit.  The kind (KTT_KIND_<kind>) says what
 * the patch changes and how; each function it changes returns the
 * kind's number (KTT_VER), and its callbacks write to the side's log
 * what the other side's must write too: the callback, the object, the
 * states klp_get_state()/klp_get_prev_state() hand over and the shadow
 * variable they see.
 *
 *  kind  ver  functions                      how
 *  p1a   11   f1
 *  p1b   12   f1
 *  p2a   21   f1 f2
 *  p2b   22   f1 f2
 *  pp    31   outer inner                    a caller and its callee
 *  vm    41   vm                             vmlinux
 *  rc    51   f1 f2 f3 outer inner vm        atomic replace, cumulative
 *  rn    61   f3                             atomic replace: the others' functions go back to the original
 *  cb    71   f2 vm                          callbacks on both objects
 *  sh    81   f3                             a shadow variable, allocated and freed in callbacks
 *  st1   91   f1 vm                          state 1, version 1
 *  st2   92   f1 f2 f3 outer inner vm        atomic replace, state 1, version 2
 *  st0   93   f2 vm                          state 1, version 0: refused beside a higher version
 *
 * klp_get_prev_state() may be called only in a transition (the builtin
 * warns otherwise): the callbacks of a module object also run when its
 * module comes or goes, so only the vmlinux object's ask for it.
 */
#include <linux/module.h>
#include <linux/seq_file.h>
#if defined(KTT_SIDE_k)
#include <klp/livepatch.h>
#define KTT_SIDE	KTT_K
#define KTT_TGT		"ktt_tgt_k"
#define KTT_VM_NAME	"cmdline_proc_show"
#elif defined(KTT_SIDE_b)
#include <linux/livepatch.h>
#define KTT_SIDE	KTT_B
#define KTT_TGT		"ktt_tgt_b"
#define KTT_VM_NAME	"version_proc_show"
#else
#error "KTT_SIDE_k or KTT_SIDE_b"
#endif
#include "ktt.h"

#if defined(KTT_KIND_p1a)
#define KTT_VER 11
#define KTT_HAS_F1
#elif defined(KTT_KIND_p1b)
#define KTT_VER 12
#define KTT_HAS_F1
#elif defined(KTT_KIND_p2a)
#define KTT_VER 21
#define KTT_HAS_F1
#define KTT_HAS_F2
#elif defined(KTT_KIND_p2b)
#define KTT_VER 22
#define KTT_HAS_F1
#define KTT_HAS_F2
#elif defined(KTT_KIND_pp)
#define KTT_VER 31
#define KTT_HAS_PAIR
#elif defined(KTT_KIND_vm)
#define KTT_VER 41
#define KTT_HAS_VMF
#elif defined(KTT_KIND_rc)
#define KTT_VER 51
#define KTT_HAS_F1
#define KTT_HAS_F2
#define KTT_HAS_F3
#define KTT_HAS_PAIR
#define KTT_HAS_VMF
#define KTT_REPLACE
#elif defined(KTT_KIND_rn)
#define KTT_VER 61
#define KTT_HAS_F3
#define KTT_REPLACE
#elif defined(KTT_KIND_cb)
#define KTT_VER 71
#define KTT_HAS_F2
#define KTT_HAS_VMF
#define KTT_CALLBACKS
#elif defined(KTT_KIND_sh)
#define KTT_VER 81
#define KTT_HAS_F3
#define KTT_CALLBACKS
#define KTT_SHADOW
#elif defined(KTT_KIND_st1)
#define KTT_VER 91
#define KTT_HAS_F1
#define KTT_HAS_VMF
#define KTT_CALLBACKS
#define KTT_STATE 1
#elif defined(KTT_KIND_st2)
#define KTT_VER 92
#define KTT_HAS_F1
#define KTT_HAS_F2
#define KTT_HAS_F3
#define KTT_HAS_PAIR
#define KTT_HAS_VMF
#define KTT_REPLACE
#define KTT_CALLBACKS
#define KTT_STATE 2
#elif defined(KTT_KIND_st0)
#define KTT_VER 93
#define KTT_HAS_F2
#define KTT_HAS_VMF
#define KTT_CALLBACKS
#define KTT_STATE 0
#else
#error "KTT_KIND_<kind>: see the table above"
#endif

#define KTT_SHADOW_ID	7
/* the shadow variable's parent: any address both sides' patches share */
#define KTT_SHADOW_OBJ	((void *)ktt_call)

#define KTT_NEW_FN(name, fn)						\
static noinline int name(void)						\
{									\
	ktt_enter(KTT_SIDE, fn, KTT_VER, KBUILD_MODNAME);		\
	return KTT_VER;							\
}

#ifdef KTT_HAS_F1
KTT_NEW_FN(ktt_new_f1, KTT_F1)
#endif
#ifdef KTT_HAS_F2
KTT_NEW_FN(ktt_new_f2, KTT_F2)
#endif
#ifdef KTT_HAS_F3
KTT_NEW_FN(ktt_new_f3, KTT_F3)
#endif
#ifdef KTT_HAS_PAIR
KTT_NEW_FN(ktt_new_inner, KTT_INNER)

static noinline int ktt_new_outer(void)
{
	ktt_enter(KTT_SIDE, KTT_OUTER, KTT_VER, KBUILD_MODNAME);
	ktt_pair_check(KTT_SIDE, KTT_VER, ktt_call(KTT_SIDE, KTT_INNER));
	return KTT_VER;
}
#endif
#ifdef KTT_HAS_VMF
static noinline int ktt_new_vm(struct seq_file *m, void *v)
{
	ktt_enter(KTT_SIDE, KTT_VM, KTT_VER, KBUILD_MODNAME);
	seq_printf(m, "ktt %d\n", KTT_VER);
	return 0;
}
#endif

#if defined(KTT_HAS_F1) || defined(KTT_HAS_F2) || defined(KTT_HAS_F3) || defined(KTT_HAS_PAIR)
#define KTT_TGT_OBJ
#endif

#ifdef KTT_TGT_OBJ
static struct klp_func ktt_tgt_funcs[] = {
#ifdef KTT_HAS_F1
	{ .old_name = "ktt_f1", .new_func = ktt_new_f1 },
#endif
#ifdef KTT_HAS_F2
	{ .old_name = "ktt_f2", .new_func = ktt_new_f2 },
#endif
#ifdef KTT_HAS_F3
	{ .old_name = "ktt_f3", .new_func = ktt_new_f3 },
#endif
#ifdef KTT_HAS_PAIR
	{ .old_name = "ktt_outer", .new_func = ktt_new_outer },
	{ .old_name = "ktt_inner", .new_func = ktt_new_inner },
#endif
	{ }
};
#endif

#ifdef KTT_HAS_VMF
static struct klp_func ktt_vm_funcs[] = {
	{ .old_name = KTT_VM_NAME, .new_func = ktt_new_vm },
	{ }
};
#endif

static struct klp_patch ktt_patch;

#ifdef KTT_CALLBACKS
/* One log line: "<kind> <callback> <object> [state ...] [shadow ...]". */
static void ktt_cb_log(struct klp_object *obj, const char *cb)
{
	struct klp_state *state = NULL, *prev = NULL;
	int *shadow;

#ifdef KTT_STATE
	state = klp_get_state(&ktt_patch, 1);
	if (!obj->name)
		prev = klp_get_prev_state(1);
#endif
	shadow = klp_shadow_get(KTT_SHADOW_OBJ, KTT_SHADOW_ID);
	ktt_log(KTT_SIDE, "%s %s %s state=%d prev=%d shadow=%d",
		__stringify(KTT_VER), cb, obj->name ? "tgt" : "vmlinux",
		state ? (int)state->version : -1,
		prev ? (int)prev->version : -1, shadow ? *shadow : -1);
}

#ifdef KTT_SHADOW
static int ktt_shadow_ctor(void *obj, void *shadow_data, void *ctor_data)
{
	*(int *)shadow_data = KTT_VER;
	return 0;
}
#endif

static int ktt_pre_patch(struct klp_object *obj)
{
	ktt_cb_log(obj, "pre_patch");
	return 0;
}

static void ktt_post_patch(struct klp_object *obj)
{
#ifdef KTT_SHADOW
	if (obj->name)
		klp_shadow_get_or_alloc(KTT_SHADOW_OBJ, KTT_SHADOW_ID, sizeof(int),
					GFP_KERNEL, ktt_shadow_ctor, NULL);
#endif
	ktt_cb_log(obj, "post_patch");
}

static void ktt_pre_unpatch(struct klp_object *obj)
{
	ktt_cb_log(obj, "pre_unpatch");
}

static void ktt_post_unpatch(struct klp_object *obj)
{
#ifdef KTT_SHADOW
	if (obj->name)
		klp_shadow_free(KTT_SHADOW_OBJ, KTT_SHADOW_ID, NULL);
#endif
	ktt_cb_log(obj, "post_unpatch");
}

#define KTT_OBJ_CALLBACKS .callbacks = {		\
		.pre_patch = ktt_pre_patch,		\
		.post_patch = ktt_post_patch,		\
		.pre_unpatch = ktt_pre_unpatch,		\
		.post_unpatch = ktt_post_unpatch,	\
	},
#else
#define KTT_OBJ_CALLBACKS
#endif

static struct klp_object ktt_objs[] = {
#ifdef KTT_TGT_OBJ
	{ .name = KTT_TGT, .funcs = ktt_tgt_funcs, KTT_OBJ_CALLBACKS },
#endif
#ifdef KTT_HAS_VMF
	{ .funcs = ktt_vm_funcs, KTT_OBJ_CALLBACKS },
#endif
	{ }
};

#ifdef KTT_STATE
static struct klp_state ktt_states[] = {
	{ .id = 1, .version = KTT_STATE },
	{ }
};
#endif

static struct klp_patch ktt_patch = {
	.mod = THIS_MODULE,
	.objs = ktt_objs,
#ifdef KTT_REPLACE
	.replace = true,
#endif
#ifdef KTT_STATE
	.states = ktt_states,
#endif
};

static int __init ktt_patch_init(void)
{
	return klp_enable_patch(&ktt_patch);
}

static void __exit ktt_patch_exit(void)
{
}

/*
 * What the torture driver knows of this patch, from the macros above:
 * `modinfo -F ktt` reads it, so that the table has one place.
 */
#ifdef KTT_HAS_F1
#define KTT_I_F1 "f1,"
#else
#define KTT_I_F1 ""
#endif
#ifdef KTT_HAS_F2
#define KTT_I_F2 "f2,"
#else
#define KTT_I_F2 ""
#endif
#ifdef KTT_HAS_F3
#define KTT_I_F3 "f3,"
#else
#define KTT_I_F3 ""
#endif
#ifdef KTT_HAS_PAIR
#define KTT_I_PAIR "outer,inner,"
#else
#define KTT_I_PAIR ""
#endif
#ifdef KTT_HAS_VMF
#define KTT_I_VM "vm,"
#else
#define KTT_I_VM ""
#endif
#ifdef KTT_REPLACE
#define KTT_I_REPLACE "1"
#else
#define KTT_I_REPLACE "0"
#endif
#ifdef KTT_CALLBACKS
#define KTT_I_CALLBACKS "1"
#else
#define KTT_I_CALLBACKS "0"
#endif
#ifdef KTT_STATE
#define KTT_I_STATE __stringify(KTT_STATE)
#else
#define KTT_I_STATE "-1"
#endif
MODULE_INFO(ktt, "ver=" __stringify(KTT_VER) " funcs=" KTT_I_F1 KTT_I_F2 KTT_I_F3
	    KTT_I_PAIR KTT_I_VM " replace=" KTT_I_REPLACE " callbacks="
	    KTT_I_CALLBACKS " state=" KTT_I_STATE);

module_init(ktt_patch_init);
module_exit(ktt_patch_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("klp torture: a patch of the pool");
#ifdef KTT_SIDE_b
MODULE_INFO(livepatch, "Y");
#endif
