// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * source_klp_counters.c - where redirections are counted into the model
 *
 * bpf/klptop.bpf.c counts every klp:klp_redirect by the winning func's id
 * in its CPU's slice of an array that only grows, which source_klp_attach.c
 * maps.  Each read sums an id's slices, for the ids up to the model's
 * highest, with plain loads (no syscall), and adds each id's growth since
 * the last read to its func and function.  An id the model cannot name
 * that has hits makes it read the core's state file once; hits that stay
 * unnamed are counted apart.  Ids of funcs registered after the model's
 * last news are read once the model has them: their counts only grow, so
 * nothing is missed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "source_klp.h"

/**
 * klp_counters_init() - get ready to read a hits map
 * @c:     the counters, zeroed
 * @hits:  the map, mapped (struct klp_bpf's)
 * @ncpus: its slices
 *
 * Returns 0.
 */
int klp_counters_init(struct klp_counters *c,
		      const volatile unsigned long long *hits, int ncpus)
{
	c->hits = hits;
	c->ncpus = ncpus;
	/* untouched pages of these stay unallocated: ids are few and low */
	c->now = xrealloc(NULL, KLP_MAX_HIT_KEYS, sizeof(*c->now));
	c->last = calloc(KLP_MAX_HIT_KEYS, sizeof(*c->last));
	if (!c->last) {
		fprintf(stderr, "%s: out of memory\n",
			program_invocation_short_name);
		exit(1);
	}
	return 0;
}

/* The highest func id the model knows. */
static unsigned int max_id(const struct model *m)
{
	unsigned int hi = 0;
	size_t i, j;

	for (i = 0; i < m->nr_fns; i++)
		for (j = 0; j < m->fns[i]->nr_funcs; j++)
			if (m->fns[i]->funcs[j]->id > hi)
				hi = m->fns[i]->funcs[j]->id;
	return hi < KLP_MAX_HIT_KEYS ? hi : KLP_MAX_HIT_KEYS - 1;
}

/* Sum ids 1..hi over the CPUs' slices into c->now. */
static void read_hits(struct klp_counters *c, unsigned int hi)
{
	unsigned int id;
	int cpu;

	for (id = 1; id <= hi; id++)
		c->now[id] = 0;
	for (cpu = 0; cpu < c->ncpus; cpu++) {
		const volatile unsigned long long *slice =
			c->hits + (size_t)cpu * KLP_MAX_HIT_KEYS;

		for (id = 1; id <= hi; id++)
			c->now[id] += slice[id];
	}
}

/* Each id's growth since the last read, to its func and function. */
static void add_deltas(struct klp_counters *c, struct model *m,
		       unsigned int hi)
{
	unsigned long long delta;
	struct model_func *f;
	unsigned int id;

	/*
	 * klptop starts each interval itself, whichever sources are open;
	 * klp-exporter still counts on this one when it reads klp's
	 */
	model_interval_start(m);
	c->interval_unknown = 0;

	for (id = 1; id <= hi; id++) {
		delta = c->now[id] - c->last[id];
		if (!delta)
			continue;
		c->last[id] = c->now[id];
		f = m->by_id[id];
		if (!f) {
			c->interval_unknown += delta;
			continue;
		}
		model_func_add_hits(f, delta);
	}
}

/**
 * klp_counters_update() - read every counter into the model
 * @c: the counters
 * @m: the model; read again from the state file first when it cannot
 *     name an id with hits (once per id) or an event left it unsure
 *
 * Returns 0, or -errno after saying why on stderr.
 */
int klp_counters_update(struct klp_counters *c, struct model *m)
{
	unsigned int hi = max_id(m), id;
	int err;

	read_hits(c, hi);
	for (id = 1; id <= hi; id++) {
		if (c->now[id] != c->last[id] && !m->by_id[id] &&
		    !c->unknown_tried[id]) {
			c->unknown_tried[id] = true;
			m->need_resync = true;
		}
	}
	if (m->need_resync) {
		err = klp_model_resync(m);
		if (err)
			return err;
	}
	add_deltas(c, m, hi);
	return 0;
}

void klp_counters_free(struct klp_counters *c)
{
	free(c->now);
	free(c->last);
}
