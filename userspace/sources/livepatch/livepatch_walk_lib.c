// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * livepatch_walk_lib.c - the builtin livepatch's klp_ops list and each
 * one's func_stack, walked from userspace through /proc/kcore
 *
 * The same walk as bpf/livepatch.bpf.c's lp_walk, for a tool that loads
 * no BPF (klp-trace): from the list head (the static klp_ops of
 * kernel/livepatch/patch.c, its address from /proc/kallsyms) along each
 * struct klp_ops' node, and on each its func_stack from the top (the
 * func the builtin's ftrace handler runs) down.  The kernel changes these
 * lists while the walk reads them, without a lock we could take: every
 * pointer is checked (non-NULL, aligned, inside kcore) before it is
 * followed, the walk takes at most KLP_LP_MAX_STEPS steps, and a walk that
 * does not reach the head again is walked again (lpw_walk_tries()).  A
 * walk that read freed memory can still end: its records are as good as
 * the kernel's lists were while it read them, as the BPF walk's.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "kcore.h"
#include "livepatch_walk.h"

#define NAME_CHUNK	16

struct walk {
	const struct kcore *kc;
	const struct lpw_offsets *off;
	struct lpw_result *res;
};

/* A word at addr (an address of any alignment: a name, a function); 0 when unreadable. */
static unsigned long long read_word(const struct walk *w, unsigned long long addr)
{
	unsigned long long p;

	if (kcore_read(w->kc, addr, &p, sizeof(p)))
		return 0;
	return p;
}

/* A list or kobject pointer at addr; 0 when unreadable or misaligned. */
static unsigned long long read_ptr(const struct walk *w, unsigned long long addr)
{
	unsigned long long p = read_word(w, addr);

	return p % sizeof(void *) ? 0 : p;
}

static unsigned char read_bool(const struct walk *w, unsigned long long addr)
{
	unsigned char b = 0;

	kcore_read(w->kc, addr, &b, 1);
	return b;
}

/* The string at addr, cut at size - 1; "" when unreadable. */
static void read_str(const struct walk *w, unsigned long long addr,
		     char *dst, size_t size)
{
	size_t got = 0, n;

	dst[0] = '\0';
	while (addr && got + 1 < size) {
		n = size - 1 - got < NAME_CHUNK ? size - 1 - got : NAME_CHUNK;
		/* near a segment's end a chunk fails: a byte at a time then */
		if (kcore_read(w->kc, addr + got, dst + got, n)) {
			n = 1;
			if (kcore_read(w->kc, addr + got, dst + got, n))
				break;
		}
		if (memchr(dst + got, '\0', n))
			return;
		got += n;
	}
	dst[got] = '\0';
}

/* A kobject's name, from its address (0: none). */
static void kobj_name(const struct walk *w, unsigned long long kobj,
		      char *dst, size_t size)
{
	dst[0] = '\0';
	if (kobj)
		read_str(w, read_word(w, kobj + w->off->kobj_name), dst, size);
}

/* The func whose stack_node is at fnode, recorded. */
static int record(struct walk *w, unsigned long long fnode, unsigned int ops,
		  unsigned int pos)
{
	const struct lpw_offsets *o = w->off;
	unsigned long long f = fnode - o->func_stack_node, obj, patch;
	struct klp_lp_rec *r;

	if (w->res->nr >= KLP_LP_MAX_RECS)
		return KLP_LP_WALK_TRUNCATED;
	r = &w->res->recs[w->res->nr];
	memset(r, 0, sizeof(*r));
	r->func = f;
	r->old_func = read_word(w, f + o->func_old_func);
	r->new_func = read_word(w, f + o->func_new_func);
	r->ops = ops;
	r->pos = pos;
	r->transition = read_bool(w, f + o->func_transition);
	r->patched = read_bool(w, f + o->func_patched);
	r->nop = read_bool(w, f + o->func_nop);
	/* func's kobject is in its object's, the object's in its patch's */
	obj = read_ptr(w, f + o->func_kobj + o->kobj_parent);
	patch = obj ? read_ptr(w, obj + o->kobj_parent) : 0;
	kobj_name(w, f + o->func_kobj, r->name, sizeof(r->name));
	kobj_name(w, obj, r->object, sizeof(r->object));
	kobj_name(w, patch, r->patch, sizeof(r->patch));
	w->res->nr++;
	return 0;
}

/* One klp_ops' func_stack, top first; 0 or the status that ends the walk. */
static int walk_stack(struct walk *w, unsigned long long ops_node,
		      unsigned int ops, unsigned int *steps)
{
	unsigned long long stack = ops_node - w->off->ops_node +
				   w->off->ops_func_stack;
	unsigned long long fnode = read_ptr(w, stack), next;
	unsigned int pos = 0;
	int err;

	while (fnode != stack) {
		/* a node is recorded only once its next can be followed */
		next = fnode ? read_ptr(w, fnode) : 0;	/* list_head.next */
		if (!next)
			return KLP_LP_WALK_FAULT;
		if (++*steps > KLP_LP_MAX_STEPS)
			return KLP_LP_WALK_STEPS;
		err = record(w, fnode, ops, pos++);
		if (err)
			return err;
		fnode = next;
	}
	return 0;
}

/**
 * lpw_walk() - one walk of the builtin's klp_ops list and func_stacks
 * @kc:   the kernel's memory
 * @off:  struct offsets from the kernel's BTF
 * @head: the address of the list head klp_ops
 * @res:  its recs has room for KLP_LP_MAX_RECS; nr, nr_ops, status set
 *
 * Return: res->status: KLP_LP_WALK_DONE when the walk came back to
 * @head, _TRUNCATED when the records were full, _FAULT when a pointer
 * could not be followed, _STEPS when KLP_LP_MAX_STEPS ran out.
 */
int lpw_walk(const struct kcore *kc, const struct lpw_offsets *off,
	     unsigned long long head, struct lpw_result *res)
{
	struct walk w = { .kc = kc, .off = off, .res = res };
	unsigned long long node = head;
	unsigned int steps = 0;
	int err;

	res->nr = 0;
	res->nr_ops = 0;
	res->status = KLP_LP_WALK_FAULT;
	if (!head)
		return res->status;
	for (;;) {
		node = read_ptr(&w, node);
		if (!node)
			return res->status = KLP_LP_WALK_FAULT;
		if (node == head)
			return res->status = KLP_LP_WALK_DONE;
		if (++steps > KLP_LP_MAX_STEPS)
			return res->status = KLP_LP_WALK_STEPS;
		err = walk_stack(&w, node, ++res->nr_ops, &steps);
		if (err)
			return res->status = err;
	}
}

/**
 * lpw_walk_tries() - lpw_walk() until it ends, at most LPW_TRIES times
 * @kc:   as lpw_walk()
 * @off:  as lpw_walk()
 * @head: as lpw_walk()
 * @res:  as lpw_walk()
 *
 * Return: 0 when a walk reached the end (or filled the records:
 * res->status says which), -EAGAIN when the lists changed under every
 * walk (or cannot be read: res->status says how the last one ended).
 */
int lpw_walk_tries(const struct kcore *kc, const struct lpw_offsets *off,
		   unsigned long long head, struct lpw_result *res)
{
	int i, st;

	for (i = 0; i < LPW_TRIES; i++) {
		st = lpw_walk(kc, off, head, res);
		if (st == KLP_LP_WALK_DONE || st == KLP_LP_WALK_TRUNCATED)
			return 0;
	}
	return -EAGAIN;
}

/**
 * lpw_func_name() - a builtin func's function name, as klp names its
 * functions: the sysfs name "<old_name>,<sympos>" with the sympos only
 * when above 1
 * @dst:   where to
 * @size:  its size
 * @sysfs: the func's kobject (sysfs directory) name
 */
void lpw_func_name(char *dst, size_t size, const char *sysfs)
{
	const char *comma = strrchr(sysfs, ',');
	size_t len = strlen(sysfs);

	if (comma && (!strcmp(comma, ",0") || !strcmp(comma, ",1")))
		len = comma - sysfs;
	snprintf(dst, size, "%.*s", (int)len, sysfs);
}
