// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * model.c - the patches of both cores, the functions they patch, each
 * function's func_stack (winner first) and the calls counted
 *
 * A model_func is one patch's replacement of one function; klp's funcs are
 * named by the core's func id (the id klp:klp_redirect and the BPF
 * counters carry), the builtin's have none.  The sources fill it: each
 * marks its own core's patches and funcs unseen, reads its core whole and
 * sweeps what it did not see again (model_unsee(), model_sweep()),
 * or moves it an event at a time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hindex.h"
#include "model.h"

const char *const model_core_names[MODEL_NR_CORES] = {
	[MODEL_CORE_KLP] = "klp",
	[MODEL_CORE_LIVEPATCH] = "livepatch",
};

/* A new zeroed element, under the same policy. */
static void *model_zalloc(size_t size)
{
	return memset(xrealloc(NULL, 1, size), 0, size);
}

struct model_patch *model_patch_find(struct model *m, const char *name,
				     bool create)
{
	struct model_patch *p;
	size_t i;

	for (i = 0; i < m->nr_patches; i++)
		if (!strncmp(m->patches[i]->name, name, KLP_NAME_LEN - 1))
			return m->patches[i];
	if (!create)
		return NULL;
	p = model_zalloc(sizeof(*p));
	copy_name(p->name, sizeof(p->name), name);
	m->patches = xrealloc(m->patches, m->nr_patches + 1,
			      sizeof(*m->patches));
	m->patches[m->nr_patches++] = p;
	return p;
}

/*
 * The bucket of a function, from what model_fn_find() compares: the first
 * KLP_NAME_LEN - 1 characters of its object, KLP_FUNC_LEN - 1 of its name
 * (FNV-1a, with a NUL between them: no name holds one).  A model of 1000
 * builtin functions looks each up several
 * times an interval: a scan of all of them each time cost klptop more
 * than the rest of its interval (doc/performance.md).
 */
static size_t fn_bucket(const struct model *m, const char *object,
			const char *name)
{
	unsigned long long h = HINDEX_FNV1A_INIT;

	h = hindex_fnv1a(h, object, strnlen(object, KLP_NAME_LEN - 1));
	h = hindex_fnv1a(h, "", 1);
	h = hindex_fnv1a(h, name, strnlen(name, KLP_FUNC_LEN - 1));
	return h & (m->fn_hash_size - 1);
}

/* Room for one more function: at most one a bucket on average. */
static void fn_hash_grow(struct model *m)
{
	size_t i, b;

	if (m->nr_fns < m->fn_hash_size)
		return;
	free(m->fn_hash);
	m->fn_hash_size = m->fn_hash_size ? m->fn_hash_size * 2 : 64;
	m->fn_hash = xrealloc(NULL, m->fn_hash_size, sizeof(*m->fn_hash));
	memset(m->fn_hash, 0, m->fn_hash_size * sizeof(*m->fn_hash));
	for (i = 0; i < m->nr_fns; i++) {
		b = fn_bucket(m, m->fns[i]->object, m->fns[i]->name);
		m->fns[i]->hnext = m->fn_hash[b];
		m->fn_hash[b] = m->fns[i];
	}
}

struct model_fn *model_fn_find(struct model *m, const char *object,
			       const char *name, bool create)
{
	struct model_fn *fn;
	size_t b;

	if (m->fn_hash_size) {
		b = fn_bucket(m, object, name);
		for (fn = m->fn_hash[b]; fn; fn = fn->hnext)
			if (!strncmp(fn->object, object, KLP_NAME_LEN - 1) &&
			    !strncmp(fn->name, name, KLP_FUNC_LEN - 1))
				return fn;
	}
	if (!create)
		return NULL;
	fn_hash_grow(m);
	fn = model_zalloc(sizeof(*fn));
	copy_name(fn->object, sizeof(fn->object), object);
	copy_name(fn->name, sizeof(fn->name), name);
	m->fns = xrealloc(m->fns, m->nr_fns + 1, sizeof(*m->fns));
	m->fns[m->nr_fns++] = fn;
	b = fn_bucket(m, fn->object, fn->name);
	fn->hnext = m->fn_hash[b];
	m->fn_hash[b] = fn;
	return fn;
}

int model_stack_index(const struct model_fn *fn, const struct model_func *f)
{
	unsigned int i;

	for (i = 0; i < fn->depth; i++)
		if (fn->stack[i] == f)
			return i;
	return -1;
}

void model_stack_remove(struct model_fn *fn, struct model_func *f)
{
	int i = model_stack_index(fn, f);

	if (i < 0)
		return;
	memmove(&fn->stack[i], &fn->stack[i + 1],
		(fn->depth - i - 1) * sizeof(*fn->stack));
	fn->depth--;
}

/* A push puts the func on top: it wins from now on. */
void model_stack_push(struct model_fn *fn, struct model_func *f)
{
	if (model_stack_index(fn, f) >= 0)
		return;
	memmove(&fn->stack[1], &fn->stack[0], fn->depth * sizeof(*fn->stack));
	fn->stack[0] = f;
	fn->depth++;
}

static void free_fn(struct model *m, struct model_fn *fn)
{
	struct model_fn **pp;
	size_t i;

	/* the stored names hash as the ones it was found by */
	pp = m->fn_hash_size ?
		&m->fn_hash[fn_bucket(m, fn->object, fn->name)] : NULL;
	while (pp && *pp && *pp != fn)
		pp = &(*pp)->hnext;
	if (pp && *pp)
		*pp = fn->hnext;
	for (i = 0; i < m->nr_fns; i++) {
		if (m->fns[i] != fn)
			continue;
		memmove(&m->fns[i], &m->fns[i + 1],
			(m->nr_fns - i - 1) * sizeof(*m->fns));
		m->nr_fns--;
		break;
	}
	free(fn->stack);
	free(fn->funcs);
	free(fn->json_head);
	free(fn);
}

/* Drop a func; its function goes with its last func. */
static void free_func(struct model *m, struct model_func *f)
{
	struct model_fn *fn = f->fn;
	unsigned int i;

	m->funcs_freed++;
	model_stack_remove(fn, f);
	for (i = 0; i < fn->nr_funcs; i++) {
		if (fn->funcs[i] != f)
			continue;
		memmove(&fn->funcs[i], &fn->funcs[i + 1],
			(fn->nr_funcs - i - 1) * sizeof(*fn->funcs));
		fn->nr_funcs--;
		break;
	}
	if (f->id < KLP_MAX_HIT_KEYS && m->by_id[f->id] == f)
		m->by_id[f->id] = NULL;
	free(f->json_head);
	free(f);
	if (!fn->nr_funcs)
		free_fn(m, fn);
}

/**
 * model_func_bind() - the func of a patch for a function, bound to an id
 * @m:  the model
 * @p:  the patch
 * @fn: the function
 * @id: the core's func id (< KLP_MAX_HIT_KEYS); 0 for a func of another
 *      core, which klp's counters do not count
 *
 * Ids are unique among registered funcs, so a different func holding @id
 * belongs to a patch that was unregistered: it goes.
 */
struct model_func *model_func_bind(struct model *m, struct model_patch *p,
				   struct model_fn *fn, unsigned int id)
{
	struct model_func *f = NULL, *old;
	unsigned int i;

	for (i = 0; i < fn->nr_funcs; i++)
		if (fn->funcs[i]->patch == p)
			f = fn->funcs[i];
	if (!f) {
		if (fn->nr_funcs == fn->cap) {
			fn->cap = fn->cap ? fn->cap * 2 : 4;
			fn->stack = xrealloc(fn->stack, fn->cap,
					     sizeof(*fn->stack));
			fn->funcs = xrealloc(fn->funcs, fn->cap,
					     sizeof(*fn->funcs));
		}
		f = model_zalloc(sizeof(*f));
		f->patch = p;
		f->fn = fn;
		fn->funcs[fn->nr_funcs++] = f;
	}
	if (f->id != id) {
		if (f->id < KLP_MAX_HIT_KEYS && m->by_id[f->id] == f)
			m->by_id[f->id] = NULL;
		f->id = id;
	}
	if (!id)
		return f;	/* no klp id: the builtin's funcs (its source counts) */
	old = m->by_id[id];
	if (old && old != f)
		free_func(m, old);	/* never frees fn: f is one of its funcs */
	m->by_id[id] = f;
	return f;
}

/* A patch and its funcs, and the functions left with no func. */
void model_patch_free(struct model *m, struct model_patch *p)
{
	size_t i, j;

	for (i = 0; i < m->nr_fns; ) {
		struct model_fn *fn = m->fns[i];
		struct model_func *victim = NULL;

		for (j = 0; j < fn->nr_funcs; j++)
			if (fn->funcs[j]->patch == p)
				victim = fn->funcs[j];
		if (victim && fn->nr_funcs == 1) {
			free_func(m, victim);	/* frees fn: fns[i] is the next */
			continue;
		}
		if (victim)
			free_func(m, victim);
		i++;
	}
	for (i = 0; i < m->nr_patches; i++) {
		if (m->patches[i] != p)
			continue;
		memmove(&m->patches[i], &m->patches[i + 1],
			(m->nr_patches - i - 1) * sizeof(*m->patches));
		m->nr_patches--;
		break;
	}
	free(p->json_name);
	free(p);
}

/*
 * A func below those already on its function's stack.  A func is on its
 * stack once, and only on its own function's (model_func_bind() made it one
 * of fn's funcs), so depth <= nr_funcs <= cap whatever the file said.
 */
void model_stack_append(struct model_fn *fn, struct model_func *f)
{
	if (model_stack_index(fn, f) < 0)
		fn->stack[fn->depth++] = f;
}

/*
 * Mark core's patches and funcs unseen and empty the stacks of the
 * functions they patch, for a reload by that core's source; the other
 * core's stay as they are.
 */
void model_unsee(struct model *m, enum model_core core)
{
	size_t i, j;

	for (i = 0; i < m->nr_patches; i++)
		if (m->patches[i]->core == core)
			m->patches[i]->seen = false;
	for (i = 0; i < m->nr_fns; i++) {
		for (j = 0; j < m->fns[i]->nr_funcs; j++) {
			if (m->fns[i]->funcs[j]->patch->core != core)
				continue;
			m->fns[i]->funcs[j]->seen = false;
			m->fns[i]->depth = 0;
		}
	}
}

/* Drop core's patches and funcs the reload did not see. */
void model_sweep(struct model *m, enum model_core core)
{
	size_t i, j;

	for (i = 0; i < m->nr_patches; ) {
		if (!m->patches[i]->seen && m->patches[i]->core == core)
			model_patch_free(m, m->patches[i]);
		else
			i++;
	}
	for (i = 0; i < m->nr_fns; ) {
		struct model_fn *fn = m->fns[i];
		struct model_func *stale = NULL;

		for (j = 0; j < fn->nr_funcs; j++)
			if (!fn->funcs[j]->seen &&
			    fn->funcs[j]->patch->core == core)
				stale = fn->funcs[j];
		if (!stale) {
			i++;
			continue;
		}
		free_func(m, stale);	/* may free fn: look at fns[i] again */
	}
}

/* The core of a function's patches (a function is one core's: each
 * core's ftrace ops modifies its ip, and a second is refused). */
enum model_core model_fn_core(const struct model_fn *fn)
{
	return fn->nr_funcs ? fn->funcs[0]->patch->core : MODEL_CORE_KLP;
}

/*
 * Whether a function's calls are unknown: a func on its stack cannot be
 * counted (its row's sums would be short by that func's calls).
 */
bool model_fn_uncounted(const struct model_fn *fn)
{
	unsigned int i;

	for (i = 0; i < fn->depth; i++)
		if (fn->stack[i]->uncounted)
			return true;
	return false;
}

/* How many patches are enabled and disabled, and functions patched. */
void model_count(const struct model *m, unsigned int *enabled,
		 unsigned int *disabled, unsigned int *patched_fns)
{
	size_t i;

	*enabled = *disabled = *patched_fns = 0;
	for (i = 0; i < m->nr_patches; i++) {
		if (m->patches[i]->enabled)
			(*enabled)++;
		else
			(*disabled)++;
	}
	for (i = 0; i < m->nr_fns; i++)
		if (m->fns[i]->depth)
			(*patched_fns)++;
}

/* How many patches are disabled because a replace patch replaced them. */
unsigned int model_replaced(const struct model *m)
{
	unsigned int n = 0;
	size_t i;

	for (i = 0; i < m->nr_patches; i++)
		if (!m->patches[i]->enabled && m->patches[i]->replaced_by[0])
			n++;
	return n;
}

/**
 * model_interval_start() - a new interval: every func's and function's
 * calls of the last one back to 0
 * @m: the model
 *
 * The tool's loop calls it once an interval, before any source counts
 * into it (model_func_add_hits()), whichever sources are open.
 */
void model_interval_start(struct model *m)
{
	size_t i, j;

	for (i = 0; i < m->nr_fns; i++) {
		m->fns[i]->hits_interval = 0;
		for (j = 0; j < m->fns[i]->nr_funcs; j++)
			m->fns[i]->funcs[j]->hits_interval = 0;
	}
}

/* A source's count of a func's calls: to the interval and the total,
 * of the func and of its function. */
void model_func_add_hits(struct model_func *f, unsigned long long delta)
{
	f->hits_interval += delta;
	f->hits_total += delta;
	f->fn->hits_interval += delta;
	f->fn->hits_total += delta;
}

void model_free(struct model *m)
{
	while (m->nr_patches)
		model_patch_free(m, m->patches[0]);
	while (m->nr_fns) {	/* none left with a func, but be tidy */
		if (m->fns[0]->nr_funcs)
			free_func(m, m->fns[0]->funcs[0]);
		else
			free_fn(m, m->fns[0]);
	}
	free(m->patches);
	free(m->fns);
	free(m->fn_hash);
	model_tr_free(&m->trs);
	m->patches = NULL;
	m->fns = NULL;
	m->fn_hash = NULL;
	m->fn_hash_size = 0;
}
