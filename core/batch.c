// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * batch.c - a patch's funcs switched in batches (patch.c has the stacks
 * and the handler)
 *
 * Enabling an object or a patch pushes all its funcs, disabling pops
 * them: the functions patched for the first time are hooked together in
 * one ftrace update, and those left with no func unhooked together, so
 * switching N functions costs one update, not N.  Nothing is published
 * before every step that can fail has succeeded; a failure says which
 * function, and why (klp:klp_enable_failed).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mm.h>
#include <linux/module.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include "core.h"
#include "patch.h"
#include "stack.h"
#include "builtin.h"
#include "fault.h"
#include "symbols.h"

/* Objects a batch switches: @only, or every one in the given state. */
static bool klp_batch_has(struct klp_object *obj, struct klp_object *only,
			  enum klp_enable_state state)
{
	if (only)
		return obj == only;
	return obj->state == state && klp_is_object_loaded(obj);
}

/* ftrace lets one IPMODIFY user own a function: say who has it. */
static void klp_report_busy(struct klp_func *func)
{
	char owner[MODULE_NAME_LEN];

	if (klp_builtin_owner(func->old_addr, owner, sizeof(owner)))
		pr_err("function '%s' is already live patched by the kernel's builtin livepatch (patch '%s', see /sys/kernel/livepatch/%s): both cannot patch it\n",
		       func->old_name, owner, owner);
	else
		pr_err("function '%s' is already modified by another IPMODIFY ftrace user (not the builtin livepatch: another live patching core or tracer)\n",
		       func->old_name);
}

static unsigned long *klp_batch_ips(struct list_head *stacks, unsigned int n)
{
	struct klp_func_stack *stack;
	unsigned long *ips;
	unsigned int i = 0;

	ips = klp_fault("alloc_ips") ? NULL :
	      kvmalloc_array(n, sizeof(*ips), GFP_KERNEL);
	if (ips)
		list_for_each_entry(stack, stacks, batch_node)
			ips[i++] = stack->ip;
	return ips;
}

/*
 * Hook the functions of the new stacks, in one ftrace update.  On failure
 * *failed is the func to blame: the contested one for -EBUSY, else the
 * first.
 */
static int klp_hook_stacks(struct list_head *fresh, unsigned int n,
			   struct klp_func **failed)
{
	struct klp_func_stack *stack;
	unsigned long *ips;
	int ret, busy;

	stack = list_first_entry(fresh, struct klp_func_stack, batch_node);
	*failed = klp_stack_top(stack);

	ips = klp_batch_ips(fresh, n);
	if (!ips)
		return -ENOMEM;

	ret = klp_ftrace_add(ips, n);
	if (ret == -EBUSY && !klp_ftrace_enabled()) {
		/* The shared ops is PERMANENT: refused while the sysctl is 0. */
		pr_err("function '%s' cannot be patched: ftrace is disabled (sysctl kernel.ftrace_enabled = 0)\n",
		       (*failed)->old_name);
	} else if (ret == -EBUSY) {
		busy = klp_ftrace_contested(ips, n);
		list_for_each_entry(stack, fresh, batch_node)
			if (busy-- == 0)
				*failed = klp_stack_top(stack);
		klp_report_busy(*failed);
	} else if (ret) {
		pr_err("failed to set the ftrace filter for %u functions, '%s' first (%d)\n",
		       n, (*failed)->old_name, ret);
	}
	kvfree(ips);
	return ret;
}

/*
 * The next enabled func of the batch's objects before @func, last first:
 * start with NULL, stop at NULL.
 */
static struct klp_func *klp_batch_prev(struct klp_patch *patch,
				       struct klp_object *only,
				       struct klp_func *func)
{
	struct klp_object *obj;

	if (func) {
		obj = func->obj;
	} else {
		klp_for_each_object(patch, obj)
			;
	}
	for (;;) {
		while (func && func-- != obj->funcs)
			if (func->state == KLP_ENABLED)
				return func;
		/* the batch's object before obj, from its last func */
		do {
			if (obj == patch->objs)
				return NULL;
			obj--;
		} while (!klp_batch_has(obj, only, KLP_ENABLED));
		klp_for_each_func(obj, func)
			;
	}
}

/*
 * Pop the enabled funcs of the batch's objects, last first: first the
 * last funcs of their functions, unhooked
 * together in one ftrace update (their stacks freed after an RCU grace
 * period), then, last first, the funcs above others, each of which goes
 * at once.  If ftrace refuses the update, the funcs it was to unhook stay
 * enabled (ftrace may still call the handler for them) and so do their
 * objects; the others are popped all the same.
 */
static int klp_unpatch_funcs(struct klp_patch *patch, struct klp_object *only,
			     enum klp_cause cause)
{
	struct klp_func_stack *stack;
	struct klp_object *obj;
	struct klp_func *func;
	LIST_HEAD(last);
	unsigned long *ips;
	unsigned int n = 0;
	int ret = 0;

	for (func = NULL; (func = klp_batch_prev(patch, only, func));) {
		stack = klp_find_stack(func->old_addr);
		if (!WARN_ON(!stack) && stack->depth == 1) {
			list_add_tail(&stack->batch_node, &last);
			n++;
		}
	}

	if (n) {
		ips = klp_batch_ips(&last, n);
		ret = ips ? klp_ftrace_remove(ips, n) : -ENOMEM;
		kvfree(ips);
	}
	if (ret) {
		list_for_each_entry(stack, &last, batch_node)
			pr_err("failed to unregister the ftrace handler of function '%s' (%d): it stays patched\n",
			       klp_stack_top(stack)->old_name, ret);
		INIT_LIST_HEAD(&last);
	}
	list_for_each_entry(stack, &last, batch_node) {
		func = klp_stack_top(stack);
		list_del_rcu(&func->stack_node);
		klp_stack_publish(stack);
		func->state = KLP_DISABLED;
		klp_trace_stack_change(func, NULL, false, cause);
	}
	/* Unregistering the ops (the last functions) waited for the handler. */
	klp_drop_stacks(&last, klp_ftrace_hooked());

	for (func = NULL; (func = klp_batch_prev(patch, only, func));) {
		stack = klp_find_stack(func->old_addr);
		if (!WARN_ON(!stack) && stack->depth > 1)
			klp_pop(stack, func, cause);
	}

	klp_for_each_object(patch, obj) {
		if (!klp_batch_has(obj, only, KLP_ENABLED))
			continue;
		obj->state = KLP_DISABLED;
		klp_for_each_func(obj, func)
			if (func->state == KLP_ENABLED)
				obj->state = KLP_ENABLED;
	}
	return ret;
}

/**
 * klp_unpatch_objects() - pop the funcs of a patch's objects, one ftrace update
 * @patch:	the patch
 * @only:	the one object to unpatch, or NULL for every enabled object
 *		of @patch
 * @cause:	why, for the klp:klp_func_pop events
 *
 * Each function falls back to the func below or, with none left, to its
 * original; those left with none are unhooked together in one ftrace
 * update.  If ftrace refuses, they stay patched (and their objects
 * enabled); the others are popped all the same.
 *
 * Return: 0, or ftrace's error
 */
int klp_unpatch_objects(struct klp_patch *patch, struct klp_object *only,
			enum klp_cause cause)
{
	lockdep_assert_held(&klp_mutex);

	return klp_unpatch_funcs(patch, only, cause);
}

/*
 * First pass of a batch: a new stack, hashed but not hooked, for every
 * function patched for the first time.  Nothing is published: the
 * handler is not called for these functions yet, and no func goes on an
 * existing stack.
 */
static int klp_prepare_stacks(struct klp_patch *patch, struct klp_object *only,
			      struct list_head *fresh, unsigned int *n,
			      struct klp_func **failed)
{
	struct klp_func_stack *stack;
	struct klp_object *obj;
	struct klp_func *func;
	int ret = 0;

	klp_for_each_object(patch, obj) {
		if (!klp_batch_has(obj, only, KLP_DISABLED))
			continue;
		klp_for_each_func(obj, func) {
			if (WARN_ON(!func->old_addr || func->state != KLP_DISABLED))
				ret = -EINVAL;
			ret = ret ?: klp_fault("enable_func");
			if (ret) {
				*failed = func;
				return ret;
			}
			if (klp_find_stack(func->old_addr))
				continue;
			stack = klp_new_stack(func);
			if (IS_ERR(stack)) {
				*failed = func;
				return PTR_ERR(stack);
			}
			list_add_tail(&stack->batch_node, fresh);
			(*n)++;
		}
	}
	return 0;
}

/**
 * klp_patch_objects() - push the funcs of a patch's objects, one ftrace update
 * @patch:	the patch
 * @only:	the one object to patch, or NULL for every loaded, disabled
 *		object of @patch
 * @cause:	why, for the klp:klp_func_push events
 *
 * Nothing is published until every step that can fail has succeeded:
 * the functions patched for the first time get new stacks, hooked
 * together in one ftrace update (from which they win), and only then do
 * the other funcs go on top of their functions' stacks (each wins at
 * once).  On failure (logged and traced, klp:klp_enable_failed) the new
 * stacks are dropped and no func was ever pushed: no caller ran a new
 * func of the patch.
 *
 * Return: 0, or error with every func of the objects disabled
 */
int klp_patch_objects(struct klp_patch *patch, struct klp_object *only,
		      enum klp_cause cause)
{
	struct klp_func *failed = NULL;
	struct klp_func_stack *stack, *tmp;
	struct klp_object *obj;
	struct klp_func *func;
	LIST_HEAD(fresh);
	unsigned int n = 0;
	int ret;

	lockdep_assert_held(&klp_mutex);

	ret = klp_prepare_stacks(patch, only, &fresh, &n, &failed);
	if (!ret && n)
		ret = klp_hook_stacks(&fresh, n, &failed);
	if (ret) {
		pr_err("failed to patch function '%s' of object '%s' for patch '%s' (%d)\n",
		       failed->old_name, klp_obj_name(failed->obj),
		       klp_patch_name(patch), ret);
		klp_trace_failure(failed->obj, failed, ret);
		klp_drop_stacks(&fresh, false);
		return ret;
	}

	/* The hooked ones won first: say so, then push the others. */
	list_for_each_entry_safe(stack, tmp, &fresh, batch_node) {
		list_del_init(&stack->batch_node);
		func = klp_stack_top(stack);
		func->state = KLP_ENABLED;
		klp_trace_stack_change(func, stack, true, cause);
	}
	klp_for_each_object(patch, obj) {
		if (!klp_batch_has(obj, only, KLP_DISABLED))
			continue;
		klp_for_each_func(obj, func)
			if (func->state == KLP_DISABLED)
				klp_push(klp_find_stack(func->old_addr), func,
					 cause);
		obj->state = KLP_ENABLED;
	}
	return 0;
}
