// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * shadow.c - shadow variables: the fields a patch adds to structures that
 * exist already
 *
 * A fix that needs a field the running kernel's structure lacks keeps it
 * in a shadow variable: zeroed data of any size attached to a parent (any
 * address: the structure's) under a number the patch chooses (its "id",
 * telling the variable's kind or version).  <obj, id> names one variable;
 * a parent may carry several ids.  The contract is upstream livepatch's
 * (Documentation/livepatch/shadow-vars.rst): the same calls, constructor
 * and destructor, the same rules for duplicates.
 *
 * Every variable lives in one hash table keyed by its parent's address.
 * Lookups walk it under RCU and take no lock, so klp_shadow_get() works
 * wherever RCU readers may run; allocations take the GFP flags of their
 * caller's context.  Updates hold klp_shadows.lock with interrupts off,
 * and constructors and destructors run under it, so they must not sleep.
 * A variable is freed after a grace period: a reader that found it may
 * still read it.  Callers keep their own exclusion between freeing a
 * variable and using its data, as upstream's do.
 *
 * Observable: klp:klp_shadow_add and klp:klp_shadow_del fire on each
 * allocation (its result) and each free (how many it freed), and debugfs
 * klp/allocated counts the live variables ("shadow_vars").
 *
 * One difference from upstream: allocating <obj, id> again while it
 * exists logs an error naming the pair and returns NULL, without upstream's
 * WARN (a stack dump and a taint; a panic where panic_on_warn is set): it
 * is the patch's mistake, reported to the patch.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hashtable.h>
#include <linux/overflow.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include "core.h"
#include "klp_trace.h"

/**
 * struct klp_shadow - one shadow variable
 * @node:	in klp_shadows.hash, keyed by @obj
 * @rcu:	for the free after a grace period
 * @obj:	the parent
 * @id:		the variable's number
 * @data:	what klp_shadow_get() returns
 */
struct klp_shadow {
	struct hlist_node node;
	struct rcu_head rcu;
	void *obj;
	unsigned long id;
	char data[];
};

#define KLP_SHADOW_HASH_BITS	12

static struct {
	spinlock_t lock;	/* serializes updates; readers use RCU */
	DECLARE_HASHTABLE(hash, KLP_SHADOW_HASH_BITS);
} klp_shadows = {
	.lock = __SPIN_LOCK_UNLOCKED(klp_shadows.lock),
};

/* Under rcu_read_lock() or klp_shadows.lock. */
static struct klp_shadow *klp_shadow_find(void *obj, unsigned long id)
{
	struct klp_shadow *s;

	hash_for_each_possible_rcu(klp_shadows.hash, s, node,
				   (unsigned long)obj) {
		if (s->obj == obj && s->id == id)
			return s;
	}
	return NULL;
}

/**
 * klpcore_shadow_get() - the data of a shadow variable
 * @obj: its parent
 * @id:  its number
 *
 * Return: the variable's data, or NULL when <@obj, @id> has none
 */
void *klpcore_shadow_get(void *obj, unsigned long id)
{
	struct klp_shadow *s;
	void *data = NULL;

	rcu_read_lock();
	s = klp_shadow_find(obj, id);
	if (s)
		data = s->data;
	rcu_read_unlock();
	return data;
}
EXPORT_SYMBOL_GPL(klpcore_shadow_get);

/* Allocate and add <obj, id>, or return the one there (unless @excl). */
static void *klp_shadow_add(void *obj, unsigned long id, size_t size,
			    gfp_t gfp_flags, klp_shadow_ctor_t ctor,
			    void *ctor_data, bool excl)
{
	struct klp_shadow *new, *s;
	unsigned long flags;
	void *data;
	int err;

	data = klpcore_shadow_get(obj, id);
	if (data)
		goto exists;

	new = kzalloc(struct_size(new, data, size), gfp_flags);
	if (!new) {
		trace_klp_shadow_add((unsigned long)obj, id, size, -ENOMEM);
		return NULL;
	}
	new->obj = obj;
	new->id = id;

	spin_lock_irqsave(&klp_shadows.lock, flags);
	s = klp_shadow_find(obj, id);
	if (s) {
		/* another CPU added it since the lookup above */
		data = s->data;
		spin_unlock_irqrestore(&klp_shadows.lock, flags);
		kfree(new);
		goto exists;
	}
	if (ctor) {
		err = ctor(obj, new->data, ctor_data);
		if (err) {
			spin_unlock_irqrestore(&klp_shadows.lock, flags);
			kfree(new);
			pr_err("shadow variable <%p, %lx>: its constructor failed (%d)\n",
			       obj, id, err);
			trace_klp_shadow_add((unsigned long)obj, id, size, err);
			return NULL;
		}
	}
	hash_add_rcu(klp_shadows.hash, &new->node, (unsigned long)obj);
	klp_mem_alloc(KLP_MEM_SHADOW);
	spin_unlock_irqrestore(&klp_shadows.lock, flags);
	trace_klp_shadow_add((unsigned long)obj, id, size, 0);
	return new->data;

exists:
	if (!excl)
		return data;
	pr_err("shadow variable <%p, %lx> exists already: not allocated again\n",
	       obj, id);
	trace_klp_shadow_add((unsigned long)obj, id, size, -EEXIST);
	return NULL;
}

/**
 * klpcore_shadow_alloc() - allocate and add a new shadow variable
 * @obj:       its parent
 * @id:        its number
 * @size:      the size of its data
 * @gfp_flags: for the allocation, as the caller's context allows
 * @ctor:      optional: fills the zeroed data before anyone can see it;
 *             runs under a spinlock with interrupts off, so must not
 *             sleep; a non-zero return frees the variable
 * @ctor_data: @ctor's third argument
 *
 * Fails when <@obj, @id> exists already, and says so in the kernel log.
 *
 * Return: the new variable's data, or NULL (exists, no memory, or @ctor
 * failed)
 */
void *klpcore_shadow_alloc(void *obj, unsigned long id, size_t size,
			   gfp_t gfp_flags, klp_shadow_ctor_t ctor,
			   void *ctor_data)
{
	return klp_shadow_add(obj, id, size, gfp_flags, ctor, ctor_data, true);
}
EXPORT_SYMBOL_GPL(klpcore_shadow_alloc);

/**
 * klpcore_shadow_get_or_alloc() - a shadow variable, allocated if missing
 * @obj:       its parent
 * @id:        its number
 * @size:      the size of its data
 * @gfp_flags: for the allocation, as the caller's context allows
 * @ctor:      as for klp_shadow_alloc(); not called for a variable that
 *             exists
 * @ctor_data: @ctor's third argument
 *
 * Of two CPUs that ask for the same missing variable, both get the one
 * variable that one of them added.
 *
 * Return: the variable's data, or NULL (no memory, or @ctor failed)
 */
void *klpcore_shadow_get_or_alloc(void *obj, unsigned long id, size_t size,
				  gfp_t gfp_flags, klp_shadow_ctor_t ctor,
				  void *ctor_data)
{
	return klp_shadow_add(obj, id, size, gfp_flags, ctor, ctor_data,
			      false);
}
EXPORT_SYMBOL_GPL(klpcore_shadow_get_or_alloc);

/* Unhash @s, destroy it, free it after a grace period. */
static void klp_shadow_del(struct klp_shadow *s, klp_shadow_dtor_t dtor)
{
	lockdep_assert_held(&klp_shadows.lock);

	hash_del_rcu(&s->node);
	if (dtor)
		dtor(s->obj, s->data);
	kfree_rcu(s, rcu);
	klp_mem_free(KLP_MEM_SHADOW);
}

/**
 * klpcore_shadow_free() - detach and free a shadow variable
 * @obj:  its parent
 * @id:   its number
 * @dtor: optional: called with the variable's data before it goes; runs
 *        under a spinlock with interrupts off, so must not sleep
 *
 * Nothing happens when <@obj, @id> has no variable.
 */
void klpcore_shadow_free(void *obj, unsigned long id, klp_shadow_dtor_t dtor)
{
	struct klp_shadow *s;
	unsigned long flags;

	spin_lock_irqsave(&klp_shadows.lock, flags);
	s = klp_shadow_find(obj, id);
	if (s)
		klp_shadow_del(s, dtor);
	spin_unlock_irqrestore(&klp_shadows.lock, flags);
	trace_klp_shadow_del((unsigned long)obj, id, s ? 1 : 0);
}
EXPORT_SYMBOL_GPL(klpcore_shadow_free);

/* Free every variable of @id, or every variable when @all; how many. */
static unsigned int klp_shadow_del_all(unsigned long id, bool all,
				       klp_shadow_dtor_t dtor)
{
	struct hlist_node *tmp;
	struct klp_shadow *s;
	unsigned int count = 0;
	unsigned long flags;
	int bkt;

	spin_lock_irqsave(&klp_shadows.lock, flags);
	hash_for_each_safe(klp_shadows.hash, bkt, tmp, s, node) {
		if (all || s->id == id) {
			klp_shadow_del(s, dtor);
			count++;
		}
	}
	spin_unlock_irqrestore(&klp_shadows.lock, flags);
	return count;
}

/**
 * klpcore_shadow_free_all() - detach and free every shadow variable of a
 * number, whatever its parent
 * @id:   the number
 * @dtor: as for klp_shadow_free(), called for each
 */
void klpcore_shadow_free_all(unsigned long id, klp_shadow_dtor_t dtor)
{
	unsigned int count = klp_shadow_del_all(id, false, dtor);

	trace_klp_shadow_del(0, id, count);
}
EXPORT_SYMBOL_GPL(klpcore_shadow_free_all);

/**
 * klp_shadow_exit() - free what is left as the core goes
 *
 * A module that used the calls pins the core while it is loaded, so what
 * is left here was left by a module that has gone: its destructor went
 * with it.  Freed without one, and counted in the log.
 */
void klp_shadow_exit(void)
{
	unsigned int count = klp_shadow_del_all(0, true, NULL);

	if (count)
		pr_warn("%u shadow variables left by modules that are gone: freed\n",
			count);
}
