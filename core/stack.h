/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stack.h - the func_stack, shared by patch.c (the stacks and the
 * handler) and batch.c (a patch's funcs switched in one ftrace update)
 */
#ifndef _KLP_STACK_H
#define _KLP_STACK_H

#include <linux/list.h>
#include <linux/types.h>
#include <klp/livepatch.h>
#include <klp/uapi.h>

/**
 * struct klp_func_stack - the enabled funcs replacing one function
 * @ip_node:	node in klp_stacks.by_ip (RCU: the handler)
 * @ip:		the function's ftrace location, what the handler is called
 *		with
 * @new_func:	the winner's new_func, NULL with none (the handler's, while
 *		klp_redirect has no listener)
 * @trans:	marked: the transition patch changes this function; the
 *		handler picks @with or @without by the task's state
 * @with:	the func a task in the patched state runs (NULL: original)
 * @without:	the func a task in the unpatched state runs (NULL: original)
 * @funcs:	the enabled klp_funcs for old_addr, the winner first
 * @addr_node:	node in klp_stacks.by_addr (klp_mutex)
 * @batch_node:	node in the list of a batch being switched (klp_mutex)
 * @old_addr:	the patched function
 * @depth:	number of funcs on @funcs
 *
 * What the handler reads comes first.
 */
struct klp_func_stack {
	struct hlist_node ip_node;
	unsigned long ip;
	void *new_func;
	bool trans;
	struct klp_func *with;
	struct klp_func *without;
	struct list_head funcs;
	struct hlist_node addr_node;
	struct list_head batch_node;
	unsigned long old_addr;
	unsigned int depth;
};

/* patch.c */
struct klp_func_stack *klp_find_stack(unsigned long old_addr);
struct klp_func *klp_stack_top(struct klp_func_stack *stack);
void klp_stack_publish(struct klp_func_stack *stack);
void klp_trace_stack_change(struct klp_func *func, struct klp_func_stack *stack,
			    bool push, enum klp_cause cause);
void klp_push(struct klp_func_stack *stack, struct klp_func *func,
	      enum klp_cause cause);
void klp_pop(struct klp_func_stack *stack, struct klp_func *func,
	     enum klp_cause cause);
struct klp_func_stack *klp_new_stack(struct klp_func *func);
void klp_drop_stacks(struct list_head *stacks, bool hooked);

#endif /* _KLP_STACK_H */
