/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * source_livepatch.h - the kernel's builtin livepatch as a source of the
 * model (model.h), beside klp's own (source_klp.h)
 *
 * Patches, their objects and funcs from /sys/kernel/livepatch; each
 * function's func_stack, winner first, from the builtin's own klp_ops
 * (bpf/livepatch.bpf.c walks them through BPF CO-RE); the calls each
 * func's new function gets from a kprobe on it.  Nothing of klp needs to
 * be loaded for it.  The model's patches of this source have
 * core MODEL_CORE_LIVEPATCH and funcs with id 0 (klp's ids are the klp
 * core's).
 */
#ifndef _KLP_SOURCE_LIVEPATCH_H
#define _KLP_SOURCE_LIVEPATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <klp/livepatch_source.h>
#include "model.h"
#include "livepatch_sysfs.h"
#include "livepatch_transitions.h"
#include "strbuf.h"


struct livepatch_bpf;
struct bpf_link;
struct ring_buffer;

#define LP_NR_EVENT_PROGS	5	/* on the builtin's own functions */
#define LP_NR_GEN_PROGS		3	/* bump lp_gen after a change */

/* One builtin func seen on a func_stack, and the probe that counts it. */
struct lp_probe {
	unsigned long long kfunc;	/* its struct klp_func */
	unsigned long long new_func;
	unsigned long long patch_id;	/* its patch's load (klp_lp_rec's) */
	char patch[KLP_NAME_LEN];
	char object[KLP_NAME_LEN];
	char name[KLP_FUNC_LEN];	/* the model's name of the function */
	unsigned int slot;		/* its counter, the probe's cookie;
					 * 0: none was free (said) */
	struct bpf_link *link;		/* NULL: could not attach (said) */
	unsigned long long last;	/* the counter at the last read */
	bool seen;			/* on a stack in the last walk */
	struct model_func *func;		/* its func in the model, as the last
					 * walk or lookup found it; NULL: gone */
};

struct lp_source {
	bool present;			/* the kernel has the builtin livepatch */
	struct livepatch_bpf *skel;
	const volatile unsigned long long *hits;	/* ncpus slices */
	size_t hits_len;
	int ncpus;
	struct lp_probe **probes;
	size_t nr_probes;
	bool slot_used[KLP_LP_MAX_KEYS];
	struct bpf_link *ev_links[LP_NR_EVENT_PROGS];
	struct bpf_link *gen_links[LP_NR_GEN_PROGS];
	bool gen_ok;			/* lp_gen moves after every change */
	/*
	 * The last full read: lp_gen before it, and each patch's name,
	 * enabled and transition files as the cheap pass read them then.
	 * The next update reads again only when one of them moved, a
	 * transition runs or nothing was read yet; otherwise it only counts.
	 */
	unsigned long long last_gen;
	unsigned long long gen_now;	/* lp_source_check()'s */
	bool checked, need_read;	/* lp_source_check() ran; its answer */
	struct lp_glance now, last;	/* this update's glance, the last read's */
	unsigned long long reads;	/* full reads so far (0: none yet) */
	unsigned long long probe_failures; /* probes that could not attach */
	unsigned long long funcs_freed_seen;	/* the model's, at the last lookup */
	struct ring_buffer *rb;		/* its events */
	struct model_log *log;		/* where they go (the update's) */
	unsigned int walk_failures;	/* walks in a row that did not end */
	bool said_truncated;
	bool said_full;			/* no counter slot was free */
	struct model_func **rec_funcs;	/* a walk's funcs, by record */
	int kprobe_type;			/* the kprobe PMU's perf type; 0: not read yet */
	bool no_calls;			/* no probe: calls not counted */
};

int lp_source_open(struct lp_source *s, bool calls);
/* source_livepatch_sysfs.c */
void lp_sysfs_read(struct model *m);
bool lp_source_check(struct lp_source *s);
int lp_source_update(struct lp_source *s, struct model *m,
		     struct model_log *log);
unsigned long long lp_source_lost_hits(const struct lp_source *s);
unsigned long long lp_source_lost_events(const struct lp_source *s);
void lp_source_close(struct lp_source *s);
/* source_livepatch_probes.c */
struct lp_probe *lp_probe_find(struct lp_source *s,
			      const struct klp_lp_rec *r, size_t hint);
void lp_probes_drop_unseen(struct lp_source *s, struct model *m);
void lp_probes_add(struct lp_source *s, unsigned int n);
void lp_probes_count(struct lp_source *s, struct model *m);
/* source_livepatch_events.c */
void lp_log_event(struct model_log *log, const struct klp_transition_event *e);

#endif /* _KLP_SOURCE_LIVEPATCH_H */
