// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * klp-exporter_counters.c - the totals that only grow: redirects, winner
 * changes, transition events and failed enables, each a counter family
 *
 * Counters are kept by label set, not by func or id: a func that goes
 * (its patch unregistered, the core reloaded) and comes back under the
 * same names resumes its count, so no counter goes backwards while its
 * series is there.  A series whose function or patch has left the model
 * is served on for EX_GONE_NS (every scraper sees its last increments),
 * then dropped: each rollout of a new patch would otherwise add series
 * for good.  One that comes back later starts again from its first
 * count, a reset that rate() and increase() take as one.
 * Redirects come from the sources' counters (klp's per-CPU counts, the
 * builtin's probes), the rest from the core's transition events and
 * from what a read of a core's state whole changed.
 */
#include <errno.h>
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "klp-exporter.h"

#define EX_GONE_NS	(600 * MODEL_NSEC_PER_SEC)

/*
 * A counter, and the subject of its labels it lives as long as: a func
 * of a function (object, function, patch), a function (patch NULL), a
 * patch (object, function NULL).
 */
struct ex_count {
	char *labels;
	unsigned long long value;
	char *object, *function, *patch;
	unsigned long long gone_ns;	/* its subject first seen gone; 0: there */
};

static int cmp_count(const void *a, const void *b)
{
	return strcmp(((const struct ex_count *)a)->labels,
		      ((const struct ex_count *)b)->labels);
}

static char *dup_or_null(const char *s)
{
	char *d;

	if (!s)
		return NULL;
	d = xrealloc(NULL, strlen(s) + 1, 1);
	return strcpy(d, s);
}

/*
 * Add delta to the family's counter for the labels in key (taken over)
 * of the subject object, function, patch (copied; NULL where it has
 * none); returns the counter, which lives until ex_totals_prune() finds
 * its subject gone long enough.
 */
static struct ex_count *family_add(struct ex_family *f, struct strbuf *key,
				   unsigned long long delta, const char *object,
				   const char *function, const char *patch)
{
	struct ex_count probe = { .labels = key->s }, *c, **slot;

	slot = tfind(&probe, &f->root, cmp_count);
	if (!slot) {
		c = xrealloc(NULL, 1, sizeof(*c));
		memset(c, 0, sizeof(*c));
		c->labels = key->s;
		c->object = dup_or_null(object);
		c->function = dup_or_null(function);
		c->patch = dup_or_null(patch);
		key->s = NULL;
		slot = tsearch(c, &f->root, cmp_count);
		if (!slot) {
			fprintf(stderr, "%s: out of memory\n",
				program_invocation_short_name);
			exit(1);
		}
	}
	(*slot)->value += delta;
	free(key->s);
	memset(key, 0, sizeof(*key));
	return *slot;
}

static unsigned int top_id(const struct model_fn *fn)
{
	return fn && fn->depth ? fn->stack[0]->id : 0;
}

/* The name of a function's winning patch; "" for none. */
static const char *top_patch(const struct model_fn *fn)
{
	return fn && fn->depth ? fn->stack[0]->patch->name : "";
}

/* The label set of a function's winner changes, counted once more. */
static void winner_changed(struct ex_totals *t, const char *object,
			   const char *name, enum model_core core)
{
	struct strbuf key = {};

	ex_put_labels(&key, "object", object, "function", name, "core",
		      model_core_names[core], NULL);
	family_add(&t->winner_changes, &key, 1, object, name, NULL);
}

/**
 * ex_count_event() - count one transition event of the core
 * @t: the totals
 * @m: the model before the event is applied to it
 * @e: the event, its strings terminated
 *
 * Every event counts once in klp_transitions_total; a failed enable in
 * klp_enable_failures_total; a push or pop that changes its function's
 * top func in klp_func_winner_changes_total, unless the model's state
 * file already had it (what the model shows is then after the event).
 */
void ex_count_event(struct ex_totals *t, const struct model *m,
		    const struct klp_transition_event *e)
{
	struct strbuf key = {};
	const struct model_fn *fn;
	unsigned int after;

	if (!strcmp(model_event_name(e->type), "unknown"))
		return;
	ex_put_labels(&key, "patch", e->patch, "event",
		      model_event_name(e->type), NULL);
	family_add(&t->transitions, &key, 1, NULL, NULL, e->patch);
	if (e->type == KLP_EV_PATCH_ENABLE && e->ret) {
		ex_put_labels(&key, "patch", e->patch, NULL);
		family_add(&t->enable_failures, &key, 1, NULL, NULL, e->patch);
	}
	if ((e->type != KLP_EV_FUNC_PUSH && e->type != KLP_EV_FUNC_POP) ||
	    e->seq <= m->snap_seq)
		return;
	fn = model_fn_find((struct model *)m, e->object, e->func, false);
	after = e->depth ? e->winner_id : 0;
	if (top_id(fn) != after)
		winner_changed(t, e->object, e->func, MODEL_CORE_KLP);
}

/**
 * ex_winners_save() - each function's winner, before a state reload
 * @m: the model
 * @w: set to a new array of m->nr_fns, for ex_count_winner_changes()
 *
 * Returns the number of functions saved.
 */
size_t ex_winners_save(const struct model *m, struct ex_winner **w)
{
	size_t i;

	*w = xrealloc(NULL, m->nr_fns, sizeof(**w));
	for (i = 0; i < m->nr_fns; i++) {
		copy_name((*w)[i].object, sizeof((*w)[i].object),
			  m->fns[i]->object);
		copy_name((*w)[i].name, sizeof((*w)[i].name),
			  m->fns[i]->name);
		copy_name((*w)[i].patch, sizeof((*w)[i].patch),
			  top_patch(m->fns[i]));
		(*w)[i].id = top_id(m->fns[i]);
		(*w)[i].core = model_fn_core(m->fns[i]);
	}
	return m->nr_fns;
}

static int ptr_cmp(const void *a, const void *b)
{
	const void *x = *(const void *const *)a, *y = *(const void *const *)b;

	return x < y ? -1 : x > y;
}

/**
 * ex_count_winner_changes() - count the winners a state reload changed
 * @t:      the totals
 * @m:      the model after the reload
 * @before: ex_winners_save()'s, taken before it; freed here
 * @nr:     its length
 *
 * After lost events this is all there is to know: one change for every
 * function whose winner differs (a function that came or went counts
 * when it has a winner).  A winner is its func's id and its patch's
 * name: the builtin's funcs have no id.
 */
void ex_count_winner_changes(struct ex_totals *t, const struct model *m,
			     struct ex_winner *before, size_t nr)
{
	/* the functions there before, as found now: sorted, to look up */
	const struct model_fn **had = xrealloc(NULL, nr, sizeof(*had));
	size_t i, n = 0;

	for (i = 0; i < nr; i++) {
		const struct model_fn *fn = model_fn_find((struct model *)m,
							  before[i].object,
							  before[i].name, false);

		if (fn)
			had[n++] = fn;
		if (top_id(fn) != before[i].id ||
		    strcmp(top_patch(fn), before[i].patch))
			winner_changed(t, before[i].object, before[i].name,
				       before[i].core);
	}
	/*
	 * A function none of them is came since: by a search, where a scan
	 * of all of them for each was a million string comparisons a
	 * scrape with 1000 functions (the builtin's are read every scrape).
	 */
	qsort(had, n, sizeof(*had), ptr_cmp);
	for (i = 0; i < m->nr_fns; i++) {
		const struct model_fn *fn = m->fns[i];

		if (fn->depth && !bsearch(&fn, had, n, sizeof(*had), ptr_cmp))
			winner_changed(t, fn->object, fn->name,
				       model_fn_core(fn));
	}
	free(had);
	free(before);
}

/**
 * ex_count_redirects() - add the last counter read to the totals
 * @t:            the totals
 * @m:            the model, its funcs' hits_interval just read
 * @unattributed: hits of ids the model could not name in that read
 *
 * A func's labels never change, so its counter is looked up once and
 * kept in the func (priv): a read of 1000 busy functions builds no label
 * set and searches no tree.
 */
void ex_count_redirects(struct ex_totals *t, struct model *m,
			unsigned long long unattributed)
{
	struct strbuf key = {};
	struct ex_count *c;
	size_t i, j;

	for (i = 0; i < m->nr_fns; i++) {
		const struct model_fn *fn = m->fns[i];

		for (j = 0; j < fn->nr_funcs; j++) {
			struct model_func *f = fn->funcs[j];

			if (!f->hits_interval)
				continue;
			c = f->priv;
			if (c) {
				c->value += f->hits_interval;
				continue;
			}
			ex_put_labels(&key, "object", fn->object, "function",
				   fn->name, "patch", f->patch->name, "core",
				   model_core_names[f->patch->core], NULL);
			f->priv = family_add(&t->redirects, &key,
					     f->hits_interval, fn->object,
					     fn->name, f->patch->name);
		}
	}
	t->unattributed += unattributed;
}

struct family_walk {
	struct strbuf *b;
	const char *name;
};

/* In label order: each node once, between its subtrees. */
static void walk_count(const void *node, VISIT which, void *closure)
{
	const struct ex_count *c = *(struct ex_count *const *)node;
	struct family_walk *w = closure;

	if (which != postorder && which != leaf)
		return;
	sb_puts(w->b, w->name);
	sb_put(w->b, "{", 1);
	sb_puts(w->b, c->labels);
	sb_put(w->b, "}", 1);
	ex_put_value(w->b, c->value);
}

/* A counter family: HELP, TYPE and a sample a label set, in label order. */
void ex_family_render(struct strbuf *b, enum ex_format fmt, const char *name,
		      const char *help, const struct ex_family *f)
{
	struct family_walk w = { .b = b, .name = name };

	ex_header(b, fmt, name, "counter", help);
	twalk_r(f->root, walk_count, &w);
}

static void free_count(void *node)
{
	struct ex_count *c = node;

	free(c->labels);
	free(c->object);
	free(c->function);
	free(c->patch);
	free(c);
}

/* Whether the counter's subject is in the model. */
static bool count_there(struct model *m, const struct ex_count *c)
{
	const struct model_fn *fn;
	size_t i;

	if (!c->function)
		return model_patch_find(m, c->patch, false) != NULL;
	fn = model_fn_find(m, c->object, c->function, false);
	if (!fn || !c->patch)
		return fn != NULL;
	for (i = 0; i < fn->nr_funcs; i++)
		if (!strncmp(fn->funcs[i]->patch->name, c->patch,
			     KLP_NAME_LEN - 1))
			return true;
	return false;
}

struct prune_walk {
	struct model *m;
	unsigned long long now;
	struct ex_count **drop;		/* gone for EX_GONE_NS */
	size_t nr_drop;
};

static void walk_prune(const void *node, VISIT which, void *closure)
{
	struct ex_count *c = *(struct ex_count *const *)node;
	struct prune_walk *w = closure;

	if (which != postorder && which != leaf)
		return;
	if (count_there(w->m, c))
		c->gone_ns = 0;
	else if (!c->gone_ns)
		c->gone_ns = w->now;
	else if (w->now - c->gone_ns >= EX_GONE_NS) {
		w->drop = xrealloc(w->drop, w->nr_drop + 1, sizeof(*w->drop));
		w->drop[w->nr_drop++] = c;
	}
}

static void family_prune(struct ex_family *f, struct model *m,
			 unsigned long long now)
{
	struct prune_walk w = { .m = m, .now = now };
	size_t i;

	twalk_r(f->root, walk_prune, &w);
	for (i = 0; i < w.nr_drop; i++) {
		tdelete(w.drop[i], &f->root, cmp_count);
		free_count(w.drop[i]);
	}
	free(w.drop);
}

/**
 * ex_totals_prune() - drop the series of what has been gone EX_GONE_NS
 * @t:   the totals
 * @m:   the model as the update left it
 * @now: CLOCK_MONOTONIC, in ns (never 0)
 *
 * A redirect counter lives with its func (the model's funcs point to
 * theirs, priv: none of them is dropped), a winner change counter with
 * its function, a transition or failed enable counter with its patch.
 */
void ex_totals_prune(struct ex_totals *t, struct model *m,
		     unsigned long long now)
{
	family_prune(&t->redirects, m, now);
	family_prune(&t->winner_changes, m, now);
	family_prune(&t->transitions, m, now);
	family_prune(&t->enable_failures, m, now);
}

void ex_totals_free(struct ex_totals *t)
{
	tdestroy(t->redirects.root, free_count);
	tdestroy(t->winner_changes.root, free_count);
	tdestroy(t->transitions.root, free_count);
	tdestroy(t->enable_failures.root, free_count);
	memset(t, 0, sizeof(*t));
}
