// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * patch.c - func_stacks and the ftrace handler (the hot path)
 *
 * One klp_ops, holding one ftrace_ops with IPMODIFY, per patched function:
 * all enabled klp_funcs replacing that function sit on its func_stack and
 * the one on top wins.  Pushing or popping a func is a single RCU pointer
 * update, so a switch between winners never lets the original run.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ftrace.h>
#include <linux/hashtable.h>
#include <linux/rculist.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include "core.h"
#include "patch.h"
#include "builtin.h"
#include "compat.h"
#include "fault.h"
#include "symbols.h"
#include "klp_trace.h"

/**
 * struct klp_ops - the one ftrace_ops shared by all funcs patching a function
 * @node:	node in klp_ops_table, hashed by old_addr
 * @old_addr:	the patched function
 * @depth:	number of funcs on func_stack
 * @func_stack:	the enabled klp_funcs for old_addr, the winner first
 * @fops:	the registered ftrace_ops
 */
struct klp_ops {
	struct hlist_node node;
	unsigned long old_addr;
	unsigned int depth;
	struct list_head func_stack;
	struct ftrace_ops fops;
};

/* Hashed so that enabling N functions costs O(N), not O(N^2) (klp_mutex). */
static DEFINE_HASHTABLE(klp_ops_table, 10);

static struct klp_ops *klp_find_ops(unsigned long old_addr)
{
	struct klp_ops *ops;

	hash_for_each_possible(klp_ops_table, ops, node, old_addr)
		if (ops->old_addr == old_addr)
			return ops;

	return NULL;
}

/*
 * Recursion guard, RCU read of the stack top, ip rewrite, one tracepoint:
 * nothing else belongs here.  ftrace_test_recursion_trylock() disables
 * preemption, which is the RCU read side the func_stack updates wait for.
 */
static void notrace klp_ftrace_handler(unsigned long ip,
				       unsigned long parent_ip,
				       struct ftrace_ops *fops,
				       struct ftrace_regs *fregs)
{
	struct klp_ops *ops = container_of(fops, struct klp_ops, fops);
	struct klp_func *func;
	int bit;

	bit = ftrace_test_recursion_trylock(ip, parent_ip);
	if (WARN_ON_ONCE(bit < 0))
		return;

	func = list_first_or_null_rcu(&ops->func_stack, struct klp_func,
				      stack_node);
	/* Never NULL: the last func leaves only after the ops is unregistered. */
	if (WARN_ON_ONCE(!func))
		goto unlock;

	klp_set_ip(fregs, (unsigned long)func->new_func);
	trace_klp_redirect(ops->old_addr, (unsigned long)func->new_func,
			   func->id, klp_func_name(func),
			   klp_patch_name(func->obj->patch));
unlock:
	ftrace_test_recursion_unlock(bit);
}

static struct klp_func *klp_stack_top(struct klp_ops *ops)
{
	return list_first_entry_or_null(&ops->func_stack, struct klp_func,
					stack_node);
}

static void klp_trace_stack_change(struct klp_func *func, struct klp_ops *ops,
				   bool push, enum klp_cause cause)
{
	struct klp_func *top = ops ? klp_stack_top(ops) : NULL;
	const char *winner = top ? klp_patch_name(top->obj->patch) : "";
	unsigned int depth = ops ? ops->depth : 0;
	unsigned int winner_id = top ? top->id : 0;
	const char *obj = klp_obj_name(func->obj);
	const char *patch = klp_patch_name(func->obj->patch);

	if (push)
		trace_klp_func_push(klp_next_seq(), obj, klp_func_name(func), patch,
				    func->old_addr, func->id, depth, winner,
				    winner_id, cause);
	else
		trace_klp_func_pop(klp_next_seq(), obj, klp_func_name(func), patch,
				   func->old_addr, func->id, depth, winner,
				   winner_id, cause);
}

/*
 * Emptying the filter still leaves its hash allocated on the ftrace_ops:
 * free it with the ops, or every load/unload cycle leaks it.
 */
static void klp_free_ops(struct klp_ops *ops)
{
	ftrace_free_filter(&ops->fops);
	kfree(ops);
	klp_mem_free(KLP_MEM_OPS);
}

/**
 * klp_unpatch_func() - pop a func off its function's func_stack
 * @func:	an enabled func
 * @cause:	why, for klp:klp_func_pop
 *
 * The func below takes over at once; with the last func gone the
 * ftrace_ops is unregistered (which waits until no CPU is in the handler)
 * and freed.  If ftrace refuses to unregister it, ftrace may still call
 * the handler: the ops, and func on its stack, are kept.
 *
 * Return: 0, or ftrace's error with func still enabled.
 */
int klp_unpatch_func(struct klp_func *func, enum klp_cause cause)
{
	struct klp_ops *ops;
	int ret;

	lockdep_assert_held(&klp_mutex);

	if (WARN_ON(func->state != KLP_ENABLED))
		return -EINVAL;

	ops = klp_find_ops(func->old_addr);
	if (WARN_ON(!ops))
		return -EINVAL;

	if (list_is_singular(&ops->func_stack)) {
		ret = klp_fault("unregister_ftrace_function") ?:
		      unregister_ftrace_function(&ops->fops);
		if (ret) {
			pr_err("failed to unregister the ftrace handler of function '%s' (%d): it stays patched\n",
			       func->old_name, ret);
			return ret;
		}
		WARN_ON(ftrace_set_filter_ip(&ops->fops, func->old_addr, 1, 0));
		list_del_rcu(&func->stack_node);
		hash_del(&ops->node);
		klp_free_ops(ops);
		ops = NULL;
	} else {
		list_del_rcu(&func->stack_node);
		ops->depth--;
	}

	func->state = KLP_DISABLED;
	klp_trace_stack_change(func, ops, false, cause);
	return 0;
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

/*
 * ftrace_set_filter_ip() finds the function's ftrace call site itself, and
 * says -EINVAL when it has none.
 */
static int klp_register_ops(struct klp_ops *ops, struct klp_func *func)
{
	int ret;

	ret = klp_fault("ftrace_set_filter_ip") ?:
	      ftrace_set_filter_ip(&ops->fops, func->old_addr, 0, 0);
	if (ret == -EINVAL) {
		pr_err("function '%s' cannot be patched: it has no ftrace location (notrace or inlined?)\n",
		       func->old_name);
		return ret;
	}
	if (ret) {
		pr_err("failed to set ftrace filter for function '%s' (%d)\n",
		       func->old_name, ret);
		return ret;
	}

	ret = klp_fault("register_ftrace_function") ?:
	      register_ftrace_function(&ops->fops);
	if (ret) {
		/* A permanent ops is refused while the sysctl is 0. */
		if (ret == -EBUSY && !klp_ftrace_enabled())
			pr_err("function '%s' cannot be patched: ftrace is disabled (sysctl kernel.ftrace_enabled = 0)\n",
			       func->old_name);
		else if (ret == -EBUSY)
			klp_report_busy(func);
		else
			pr_err("failed to register ftrace handler for function '%s' (%d)\n",
			       func->old_name, ret);
		ftrace_set_filter_ip(&ops->fops, func->old_addr, 1, 0);
	}
	return ret;
}

/**
 * klp_patch_func() - push func on its function's func_stack
 * @func:	a disabled func whose old_addr is resolved
 * @cause:	why, for klp:klp_func_push
 *
 * func wins from now on.  The first func of a function registers the
 * function's ftrace_ops.
 *
 * Return: 0 on success, otherwise error (func stays disabled)
 */
int klp_patch_func(struct klp_func *func, enum klp_cause cause)
{
	struct klp_ops *ops;
	int ret;

	lockdep_assert_held(&klp_mutex);

	if (WARN_ON(!func->old_addr))
		return -EINVAL;

	if (WARN_ON(func->state != KLP_DISABLED))
		return -EINVAL;

	ops = klp_find_ops(func->old_addr);
	if (ops) {
		list_add_rcu(&func->stack_node, &ops->func_stack);
		ops->depth++;
	} else {
		ops = klp_fault("alloc_ops") ? NULL :
		      kzalloc(sizeof(*ops), GFP_KERNEL);
		if (!ops)
			return -ENOMEM;
		klp_mem_alloc(KLP_MEM_OPS);

		ops->old_addr = func->old_addr;
		ops->depth = 1;
		ops->fops.func = klp_ftrace_handler;
		/*
		 * PERMANENT: kernel.ftrace_enabled cannot be set to 0 while
		 * a patch is applied (it would silently turn every patch
		 * off), and a patch cannot be applied while it is 0.
		 */
		ops->fops.flags = FTRACE_OPS_FL_DYNAMIC |
				  FTRACE_OPS_FL_PERMANENT |
#ifndef CONFIG_HAVE_DYNAMIC_FTRACE_WITH_ARGS
				  FTRACE_OPS_FL_SAVE_REGS |
#endif
				  FTRACE_OPS_FL_IPMODIFY;
		INIT_LIST_HEAD(&ops->func_stack);
		list_add_rcu(&func->stack_node, &ops->func_stack);

		ret = klp_register_ops(ops, func);
		if (ret) {
			list_del_rcu(&func->stack_node);
			klp_free_ops(ops);
			return ret;
		}
		hash_add(klp_ops_table, &ops->node, ops->old_addr);
	}

	func->state = KLP_ENABLED;
	klp_trace_stack_change(func, ops, true, cause);
	return 0;
}

/**
 * klp_func_stack_pos() - where func sits on its function's func_stack
 * @func:	a func
 * @depth:	set to the depth of that stack (0 when func is not on one)
 *
 * Return: 1 for the winner, 2 for the func below it, ...; 0 when func is
 * not on a stack.
 */
int klp_func_stack_pos(struct klp_func *func, unsigned int *depth)
{
	struct klp_ops *ops;
	struct klp_func *f;
	int pos = 0;

	lockdep_assert_held(&klp_mutex);

	*depth = 0;
	if (func->state != KLP_ENABLED)
		return 0;

	ops = klp_find_ops(func->old_addr);
	if (WARN_ON(!ops))
		return 0;

	*depth = ops->depth;
	list_for_each_entry(f, &ops->func_stack, stack_node) {
		pos++;
		if (f == func)
			return pos;
	}
	return 0;
}

/**
 * klp_show_stacks() - print every func_stack, one line each
 * @m:		the seq_file
 * @prefix:	printed at the start of each line ("" for none)
 *
 * Lines read "<prefix><object> <function> <depth> <patch>:<id>
 * [<patch>:<id> ...]", winner first.
 */
void klp_show_stacks(struct seq_file *m, const char *prefix)
{
	struct klp_ops *ops;
	struct klp_func *top, *f;
	int bkt;

	lockdep_assert_held(&klp_mutex);

	hash_for_each(klp_ops_table, bkt, ops, node) {
		top = klp_stack_top(ops);
		seq_printf(m, "%s%s %s %u", prefix, klp_obj_name(top->obj),
			   klp_func_name(top), ops->depth);
		list_for_each_entry(f, &ops->func_stack, stack_node)
			seq_printf(m, " %s:%u", klp_patch_name(f->obj->patch),
				   f->id);
		seq_putc(m, '\n');
	}
}
