// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * klptop_counters.c - where redirections are counted into the model
 *
 * bpf/klptop.bpf.c counts every klp:klp_redirect per (patched function,
 * winning func id) in per-CPU counters that only grow.  Each interval this
 * reads them all (in batches where the kernel has them), sums the CPUs,
 * and adds each counter's growth since the last read to its func and
 * function.  A counter whose id the model cannot name makes it read the
 * core's state file once; hits that stay unnamed are counted apart.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "klptop.h"

#ifndef ENOTSUPP
#define ENOTSUPP	524		/* kernel-internal, seen by userspace */
#endif

/**
 * kt_counters_init() - get ready to read a hits map
 * @c:  the counters, zeroed
 * @fd: the map (bpf/klptop.bpf.c's hits)
 *
 * Returns 0 or -errno.
 */
int kt_counters_init(struct kt_counters *c, int fd)
{
	c->fd = fd;
	c->ncpus = libbpf_num_possible_cpus();
	if (c->ncpus < 0) {
		fprintf(stderr, "%s: cannot count the possible CPUs: %s\n",
			program_invocation_short_name, strerror(-c->ncpus));
		return c->ncpus;
	}
	c->value_size = (sizeof(__u64) + 7) & ~7UL;	/* round_up(size, 8) */
	return 0;
}

static int cmp_hit(const void *pa, const void *pb)
{
	const struct klp_hit_key *a = &((const struct kt_hit *)pa)->key;
	const struct klp_hit_key *b = &((const struct kt_hit *)pb)->key;

	if (a->old_addr != b->old_addr)
		return a->old_addr < b->old_addr ? -1 : 1;
	if (a->id != b->id)
		return a->id < b->id ? -1 : 1;
	return 0;
}

/* One key's per-CPU values, summed. */
static unsigned long long sum_values(const struct kt_counters *c,
				     const void *vals)
{
	unsigned long long sum = 0;
	int cpu;

	for (cpu = 0; cpu < c->ncpus; cpu++)
		sum += *(const __u64 *)((const char *)vals + cpu * c->value_size);
	return sum;
}

static void add_hit(struct kt_counters *c, const struct klp_hit_key *key,
		    const void *vals)
{
	if (c->nr_hits == c->cap_hits) {
		c->cap_hits = c->cap_hits ? c->cap_hits * 2 : 64;
		c->hits = kt_realloc(c->hits, c->cap_hits, sizeof(*c->hits));
	}
	c->hits[c->nr_hits].key = *key;
	c->hits[c->nr_hits].sum = sum_values(c, vals);
	c->nr_hits++;
}

static void grow_batch(struct kt_counters *c, unsigned int keys)
{
	if (keys <= c->batch_cap)
		return;
	c->keys = kt_realloc(c->keys, keys, sizeof(*c->keys));
	c->values = kt_realloc(c->values, (size_t)keys * c->ncpus,
			       c->value_size);
	c->batch_cap = keys;
}

/* The whole map in few syscalls; -EINVAL etc. where batches are missing. */
static int read_hits_batch(struct kt_counters *c)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	unsigned int chunk = 256;
	__u32 in, out, n, i;
	void *inp = NULL;
	int err;

	for (;;) {
		grow_batch(c, chunk);
		n = chunk;
		err = bpf_map_lookup_batch(c->fd, inp, &out, c->keys, c->values,
					   &n, &opts);
		if (err == -ENOSPC && !n && chunk < KLP_MAX_HIT_KEYS) {
			chunk *= 2;	/* a bucket bigger than the chunk */
			continue;
		}
		if (err && err != -ENOENT)
			return err;
		for (i = 0; i < n; i++)
			add_hit(c, &c->keys[i], (char *)c->values +
				(size_t)i * c->value_size * c->ncpus);
		if (err == -ENOENT)
			return 0;	/* that was the last batch */
		in = out;
		inp = &in;
	}
}

static int read_hits_iter(struct kt_counters *c)
{
	struct klp_hit_key key, next;
	void *prev = NULL;
	int err;

	grow_batch(c, 1);
	while (!(err = bpf_map_get_next_key(c->fd, prev, &next))) {
		/* deleted meanwhile cannot happen: nothing deletes */
		if (!bpf_map_lookup_elem(c->fd, &next, c->values))
			add_hit(c, &next, c->values);
		key = next;
		prev = &key;
	}
	return err == -ENOENT ? 0 : err;
}

static int read_hits(struct kt_counters *c)
{
	int err;

	c->nr_hits = 0;
	if (!c->no_batch) {
		err = read_hits_batch(c);
		if (err != -EINVAL && err != -ENOTSUPP && err != -EOPNOTSUPP)
			return err;
		c->no_batch = true;	/* a kernel without batch ops for it */
		c->nr_hits = 0;
	}
	return read_hits_iter(c);
}

/* Each counter's growth since the last read, to its func and function. */
static void add_deltas(struct kt_counters *c, struct kt_model *m)
{
	size_t i, j, nr_new = 0;

	for (i = 0; i < m->nr_fns; i++) {
		m->fns[i]->hits_interval = 0;
		for (j = 0; j < m->fns[i]->nr_funcs; j++)
			m->fns[i]->funcs[j]->hits_interval = 0;
	}
	c->interval_unknown = 0;

	for (i = 0; i < c->nr_hits; i++) {
		struct kt_hit *h = &c->hits[i], *l = NULL;
		unsigned long long delta;
		struct kt_func *f;

		if (c->nr_last)
			l = bsearch(h, c->last, c->nr_last, sizeof(*l), cmp_hit);
		if (l) {
			delta = h->sum >= l->sum ? h->sum - l->sum : 0;
			l->sum = h->sum;
		} else {
			delta = h->sum;
			nr_new++;
		}
		if (!delta)
			continue;
		f = h->key.id < KLP_MAX_HIT_KEYS ? m->by_id[h->key.id] : NULL;
		if (!f) {
			c->interval_unknown += delta;
			continue;
		}
		f->hits_interval += delta;
		f->hits_total += delta;
		f->fn->hits_interval += delta;
		f->fn->hits_total += delta;
	}
	if (nr_new) {
		/* this read holds every key (nothing deletes): it becomes last */
		c->last = kt_realloc(c->last, c->nr_hits, sizeof(*c->last));
		memcpy(c->last, c->hits, c->nr_hits * sizeof(*c->last));
		qsort(c->last, c->nr_hits, sizeof(*c->last), cmp_hit);
		c->nr_last = c->nr_hits;
	}
}

/**
 * kt_counters_update() - read every counter into the model
 * @c: the counters
 * @m: the model; read again from the state file first when it cannot
 *     name a counter's id (once per id) or an event left it unsure
 *
 * Returns 0, or -errno after saying why on stderr.
 */
int kt_counters_update(struct kt_counters *c, struct kt_model *m)
{
	size_t i;
	int err;

	err = read_hits(c);
	if (err) {
		fprintf(stderr, "%s: cannot read the hits map: %s (%d)\n",
			program_invocation_short_name, strerror(-err), err);
		return err;
	}
	for (i = 0; i < c->nr_hits; i++) {
		unsigned int id = c->hits[i].key.id;

		if (id < KLP_MAX_HIT_KEYS && !m->by_id[id] &&
		    !c->unknown_tried[id]) {
			c->unknown_tried[id] = true;
			m->need_resync = true;
		}
	}
	if (m->need_resync) {
		err = kt_model_resync(m);
		if (err)
			return err;
	}
	add_deltas(c, m);
	return 0;
}

void kt_counters_free(struct kt_counters *c)
{
	free(c->last);
	free(c->hits);
	free(c->keys);
	free(c->values);
}
