// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * patch.c - func_stacks and the ftrace handler (the hot path)
 *
 * Every patched function has a func_stack: all enabled klp_funcs replacing
 * that function, the one on top wins.  The handler of the one shared
 * ftrace_ops (ftrace.c) finds the stack by ip in an RCU hash.  Pushing or
 * popping a func on a stack that stays non-empty is a single RCU pointer
 * update, so a switch between winners never lets the original run; a
 * patch's first and last funcs on their functions go in and out of ftrace
 * together, in one update.
 *
 * While a transition runs (transition.c), a stack whose winner differs
 * between the transition patch's two states carries both: the func a task
 * in the patched state runs (@with) and the one a task in the unpatched
 * state runs (@without), NULL for the original; the handler picks by the
 * task's state.  Outside transitions no stack is marked and the handler
 * reads only the winner's copy.
 *
 * The handler reads the winner's copy before the mark, so a mark may be
 * set at once (it is set before the winner changes) but never cleared
 * while a handler may still hold an older winner: when a transition
 * completes, its stacks are first settled (both sides the target's, the
 * mark kept), the funcs it takes off popped, and only after a wait for
 * every handler (klp_synchronize_handlers()) are the marks cleared.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ftrace.h>
#include <linux/hashtable.h>
#include <linux/rculist.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include "core.h"
#include "patch.h"
#include "stack.h"
#include "compat.h"
#include "fault.h"
#include "symbols.h"
#include "transition.h"
#include "klp_trace.h"

#define KLP_STACK_HASH_BITS	12

/*
 * Hashed so that switching N functions costs O(N), not O(N^2).  While a
 * transition runs, @tr_patch is its patch and @tr_nops says that a
 * function it does not patch goes back to its original in the patched
 * state (an atomic replace, upstream's "nop" funcs).  @tr_settled is -1
 * while tasks switch, then the target state once every task is in it:
 * from then on a marked stack sends both states to the target's func,
 * and @tr_changed says a winner changed since.
 */
static struct klp_stacks {
	DECLARE_HASHTABLE(by_ip, KLP_STACK_HASH_BITS);
	DECLARE_HASHTABLE(by_addr, KLP_STACK_HASH_BITS);
	struct klp_patch *tr_patch;
	bool tr_nops;
	int tr_settled;
	bool tr_changed;
} klp_stacks = { .tr_settled = -1 };

/**
 * klp_find_stack() - the func_stack of a patched function
 * @old_addr:	the function
 *
 * Return: its stack, or NULL if no func patches it
 */
struct klp_func_stack *klp_find_stack(unsigned long old_addr)
{
	struct klp_func_stack *stack;

	hash_for_each_possible(klp_stacks.by_addr, stack, addr_node, old_addr)
		if (stack->old_addr == old_addr)
			return stack;
	return NULL;
}

/*
 * The func current runs in its state of the transition (NULL: the
 * original).  Out of line, as klp_traced_winner(): the handler's own code
 * stays two straight paths (host/10 checks the traced one's layout).
 */
static noinline notrace struct klp_func *
klp_transition_func(struct klp_func_stack *stack)
{
	smp_rmb();	/* the mark, then the task's state and the sides */
	return klp_task_patched() ? READ_ONCE(stack->with) :
				    READ_ONCE(stack->without);
}

/* The func a call reaches while klp_redirect is traced (NULL: original). */
static noinline notrace struct klp_func *
klp_traced_winner(struct klp_func_stack *stack)
{
	struct klp_func *func;

	func = list_first_or_null_rcu(&stack->funcs, struct klp_func,
				      stack_node);
	klp_fault_redirect_delay();
	smp_rmb();	/* the winner, then the mark: see klp_push() */
	if (unlikely(READ_ONCE(stack->trans)))
		func = klp_transition_func(stack);
	return func;
}

/**
 * klp_ftrace_handler() - redirect a patched function to its winner
 * @ip:		the function's ftrace location
 * @parent_ip:	its caller
 * @fops:	the shared ftrace_ops
 * @fregs:	the registers, whose ip is set to the winner
 *
 * Recursion guard, RCU lookup of the stack by ip, ip rewrite, one
 * tracepoint: nothing else belongs here.  ftrace_test_recursion_trylock()
 * disables preemption, which is the RCU read side that the removal of a
 * stack waits for.  A function found with no stack, or an empty one, is
 * being unhooked: its original runs.
 *
 * With no listener on klp_redirect the winner's new_func is read from the
 * stack itself: one load fewer than through the winner, which pays for
 * the hash lookup.  With one, it is read from the winner the event names,
 * so that each call is counted on the winner it reached.  A stack marked
 * by a transition sends the task where its state says (transition.c).
 */
void notrace klp_ftrace_handler(unsigned long ip, unsigned long parent_ip,
				struct ftrace_ops *fops,
				struct ftrace_regs *fregs)
{
	struct klp_func_stack *stack;
	struct klp_func *func;
	void *new_func;
	int bit;

	bit = ftrace_test_recursion_trylock(ip, parent_ip);
	if (WARN_ON_ONCE(bit < 0))
		return;

	hash_for_each_possible_rcu_notrace(klp_stacks.by_ip, stack, ip_node, ip) {
		if (stack->ip != ip)
			continue;
		/*
		 * The winner is read before the mark: a func pushed in a
		 * transition is published after its stack is marked.
		 */
		if (!trace_klp_redirect_enabled()) {
			/* pairs with klp_stack_publish()'s release */
			new_func = smp_load_acquire(&stack->new_func);
			klp_fault_redirect_delay();
			if (unlikely(READ_ONCE(stack->trans))) {
				func = klp_transition_func(stack);
				new_func = func ? func->new_func : NULL;
			}
			if (new_func)
				klp_set_ip(fregs, (unsigned long)new_func);
			break;
		}
		func = klp_traced_winner(stack);
		if (!func)
			break;
		klp_set_ip(fregs, (unsigned long)func->new_func);
		/*
		 * A func popped now keeps its kobject's name until a grace
		 * period has passed (klp_free_patch()).
		 */
		trace_klp_redirect(stack->old_addr,
				   (unsigned long)func->new_func, func->id,
				   kobject_name(&func->kobj),
				   klp_patch_name(func->obj->patch));
		break;
	}
	ftrace_test_recursion_unlock(bit);
}

/**
 * klp_stack_top() - the winner of a func_stack
 * @stack:	the stack
 *
 * Return: its top func, or NULL for an empty stack
 */
struct klp_func *klp_stack_top(struct klp_func_stack *stack)
{
	return list_first_entry_or_null(&stack->funcs, struct klp_func,
					stack_node);
}

/* The func below @func on its stack, NULL for the original. */
static struct klp_func *klp_stack_below(struct klp_func_stack *stack,
					struct klp_func *func)
{
	if (list_is_last(&func->stack_node, &stack->funcs))
		return NULL;
	return list_next_entry(func, stack_node);
}

/*
 * Mark a stack for the transition running, or unmark it: what a task runs
 * in each state of the transition patch.  Unchanged for every task unless
 * that patch's func is the winner, or, in an atomic replace, the patch
 * has no func on it (its patched state runs the original).
 */
static void klp_stack_mark_as(struct klp_func_stack *stack,
			      struct klp_func *top, struct klp_func *below)
{
	struct klp_patch *patch = klp_stacks.tr_patch;
	struct klp_func *with = top, *without = top;

	if (top && patch && top->obj->patch == patch)
		without = below;
	else if (top && patch && klp_stacks.tr_nops)
		with = NULL;
	if (klp_stacks.tr_settled >= 0) {
		/* every task is in the target state: both sides are its */
		if (klp_stacks.tr_settled)
			without = with;
		else
			with = without;
		if (!stack->trans) {
			/* unmarked: the transition changed nothing here */
			WARN_ON_ONCE(with != top);
			return;
		}
		WRITE_ONCE(stack->with, with);
		WRITE_ONCE(stack->without, without);
		return;
	}
	if (with == without) {
		WRITE_ONCE(stack->trans, false);
		return;
	}
	WRITE_ONCE(stack->with, with);
	WRITE_ONCE(stack->without, without);
	/* the funcs before the mark, the mark before the winner */
	smp_store_release(&stack->trans, true);
}

static void klp_stack_mark(struct klp_func_stack *stack)
{
	struct klp_func *top = klp_stack_top(stack);

	klp_stack_mark_as(stack, top, top ? klp_stack_below(stack, top) : NULL);
}

/**
 * klp_stack_publish() - the handler's copy of the winner, after a change
 * @stack:	a stack whose funcs changed
 *
 * During a transition the stack is marked first, then the winner
 * published: the handler, which reads them the other way round, never
 * sends a task to a func its state has not reached.
 */
void klp_stack_publish(struct klp_func_stack *stack)
{
	struct klp_func *top = klp_stack_top(stack);

	if (klp_stacks.tr_settled >= 0)
		klp_stacks.tr_changed = true;
	if (klp_stacks.tr_patch) {
		klp_stack_mark(stack);
		smp_wmb();	/* the mark before the winner */
	}
	/* pairs with the handler's acquire */
	smp_store_release(&stack->new_func, top ? top->new_func : NULL);
}

/**
 * klp_trace_stack_change() - emit klp:klp_func_push or klp:klp_func_pop
 * @func:	the func pushed or popped
 * @stack:	its stack after the change, NULL if it went
 * @push:	pushed (or popped)
 * @cause:	why
 */
void klp_trace_stack_change(struct klp_func *func, struct klp_func_stack *stack,
			    bool push, enum klp_cause cause)
{
	struct klp_func *top = stack ? klp_stack_top(stack) : NULL;
	const char *winner = top ? klp_patch_name(top->obj->patch) : "";
	unsigned int depth = stack ? stack->depth : 0;
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

static void klp_free_stack(struct klp_func_stack *stack)
{
	kfree(stack);
	klp_mem_free(KLP_MEM_STACK);
}

/**
 * klp_push() - a func goes on top of a stack that stays non-empty
 * @stack:	the stack
 * @func:	the func, which wins at once
 * @cause:	why, for klp:klp_func_push
 */
void klp_push(struct klp_func_stack *stack, struct klp_func *func,
	      enum klp_cause cause)
{
	if (klp_stacks.tr_patch) {
		/* marked for func as the winner before it can be seen */
		klp_stack_mark_as(stack, func, klp_stack_top(stack));
		smp_wmb();	/* the mark before the func is on the list */
	}
	list_add_rcu(&func->stack_node, &stack->funcs);
	klp_stack_publish(stack);
	stack->depth++;
	func->state = KLP_ENABLED;
	klp_trace_stack_change(func, stack, true, cause);
}

/**
 * klp_pop() - a func leaves a stack that stays non-empty
 * @stack:	the stack
 * @func:	the func; the func below (never none) takes over at once
 * @cause:	why, for klp:klp_func_pop
 */
void klp_pop(struct klp_func_stack *stack, struct klp_func *func,
	     enum klp_cause cause)
{
	list_del_rcu(&func->stack_node);
	klp_stack_publish(stack);
	stack->depth--;
	func->state = KLP_DISABLED;
	klp_trace_stack_change(func, stack, false, cause);
}

/**
 * klp_new_stack() - a stack for the first func of a function
 * @func:	the func, its only one
 *
 * Hashed but not yet hooked: the handler cannot be called for its ip
 * before the batch's ftrace update.
 *
 * Return: the stack, or an ERR_PTR()
 */
struct klp_func_stack *klp_new_stack(struct klp_func *func)
{
	struct klp_func_stack *stack;
	unsigned long ip;

	ip = klp_ftrace_location(func->old_addr);
	if (!ip) {
		pr_err("function '%s' cannot be patched: it has no ftrace location (notrace or inlined?)\n",
		       func->old_name);
		return ERR_PTR(-EINVAL);
	}

	stack = klp_fault("alloc_ops") ? NULL : kzalloc(sizeof(*stack), GFP_KERNEL);
	if (!stack)
		return ERR_PTR(-ENOMEM);
	klp_mem_alloc(KLP_MEM_STACK);

	stack->old_addr = func->old_addr;
	stack->ip = ip;
	stack->depth = 1;
	INIT_LIST_HEAD(&stack->funcs);
	list_add(&func->stack_node, &stack->funcs);
	klp_stack_publish(stack);
	hash_add(klp_stacks.by_addr, &stack->addr_node, stack->old_addr);
	hash_add_rcu(klp_stacks.by_ip, &stack->ip_node, stack->ip);
	return stack;
}

/**
 * klp_drop_stacks() - unhash and free stacks out of ftrace
 * @stacks:	stacks taken out of ftrace, or never put in, by batch_node
 * @hooked:	the handler may still run for them: free after an RCU grace
 *		period
 */
void klp_drop_stacks(struct list_head *stacks, bool hooked)
{
	struct klp_func_stack *stack, *tmp;

	list_for_each_entry(stack, stacks, batch_node) {
		hash_del_rcu(&stack->ip_node);
		hash_del(&stack->addr_node);
	}
	if (hooked && !list_empty(stacks))
		synchronize_rcu();
	list_for_each_entry_safe(stack, tmp, stacks, batch_node) {
		list_del(&stack->batch_node);
		klp_free_stack(stack);
	}
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
	struct klp_func_stack *stack;
	struct klp_func *f;
	int pos = 0;

	lockdep_assert_held(&klp_mutex);

	*depth = 0;
	if (func->state != KLP_ENABLED)
		return 0;

	stack = klp_find_stack(func->old_addr);
	if (WARN_ON(!stack))
		return 0;

	*depth = stack->depth;
	list_for_each_entry(f, &stack->funcs, stack_node) {
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
	struct klp_func_stack *stack;
	struct klp_func *top, *f;
	int bkt;

	lockdep_assert_held(&klp_mutex);

	hash_for_each(klp_stacks.by_addr, bkt, stack, addr_node) {
		top = klp_stack_top(stack);
		seq_printf(m, "%s%s %s %u", prefix, klp_obj_name(top->obj),
			   klp_func_name(top), stack->depth);
		list_for_each_entry(f, &stack->funcs, stack_node)
			seq_printf(m, " %s:%u", klp_patch_name(f->obj->patch),
				   f->id);
		seq_putc(m, '\n');
	}
}

/**
 * klp_stacks_transition() - mark the func_stacks for a transition
 * @patch:	the transition patch, or NULL when no transition runs
 * @nops:	an atomic replace: in @patch's patched state, a function it
 *		does not patch runs its original
 *
 * From now on every push and pop marks its stack too (klp_stack_mark());
 * called again after a module changed stacks, and with NULL once the
 * funcs the transition takes off are popped: no stack is marked then.
 */
void klp_stacks_transition(struct klp_patch *patch, bool nops)
{
	struct klp_func_stack *stack;
	int bkt;

	lockdep_assert_held(&klp_mutex);

	klp_stacks.tr_patch = patch;
	klp_stacks.tr_nops = nops;
	klp_stacks.tr_settled = -1;
	klp_stacks.tr_changed = false;
	hash_for_each(klp_stacks.by_addr, bkt, stack, addr_node)
		klp_stack_mark(stack);
}

/**
 * klp_stacks_settle() - every task is in the target state of the transition
 * @target:	that state, KLP_ENABLED or KLP_DISABLED
 *
 * Each marked stack sends both states to the target's func and stays
 * marked, and so do the pops that complete the transition: a handler that
 * read the winner before a pop, or the mark before it is cleared, still
 * picks the target's func.  klp_stacks_transition(NULL, false) clears the
 * marks, once klp_synchronize_handlers() has waited for those handlers.
 */
void klp_stacks_settle(int target)
{
	struct klp_func_stack *stack;
	int bkt;

	lockdep_assert_held(&klp_mutex);

	if (WARN_ON(!klp_stacks.tr_patch))
		return;
	klp_stacks.tr_settled = target;
	klp_stacks.tr_changed = false;
	hash_for_each(klp_stacks.by_addr, bkt, stack, addr_node)
		klp_stack_mark(stack);
}

/**
 * klp_stacks_settled_changed() - did a winner change since klp_stacks_settle()
 *
 * Return: true if a func went on or off a stack since
 */
bool klp_stacks_settled_changed(void)
{
	lockdep_assert_held(&klp_mutex);
	return klp_stacks.tr_changed;
}

/**
 * klp_stacks_walk_changed() - the code a transition's tasks are checked against
 * @patch:	the transition patch
 * @fn:		called with each function the transition may change for a
 *		task: the funcs a task runs there in the patched and in the
 *		unpatched state (NULL: the original)
 * @data:	passed to @fn
 *
 * Every marked stack, and every other stack that holds a func of @patch:
 * one below another patch's func changes nothing for a call, but a task
 * may still be inside it (a transition that put that other patch on top
 * was forced), and after a disable that task must not run the rest of
 * the patch's functions unpatched (upstream checks every func of the
 * patch too).
 */
void klp_stacks_walk_changed(struct klp_patch *patch,
			     void (*fn)(void *data,
					const struct klp_change *change),
			     void *data)
{
	struct klp_func_stack *stack;
	struct klp_change change;
	struct klp_func *f, *top;
	int bkt;

	lockdep_assert_held(&klp_mutex);

	hash_for_each(klp_stacks.by_addr, bkt, stack, addr_node) {
		top = klp_stack_top(stack);
		change.old_addr = stack->old_addr;
		change.old_size = top->old_size;
		if (stack->trans) {
			change.with = stack->with;
			change.without = stack->without;
			change.name = klp_func_name(top);
			fn(data, &change);
			continue;
		}
		list_for_each_entry(f, &stack->funcs, stack_node) {
			if (f->obj->patch != patch)
				continue;
			change.with = f;
			change.without = klp_stack_below(stack, f);
			change.name = klp_func_name(f);
			fn(data, &change);
		}
	}
}
