/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * source_klp.h - the klp core as a source of the model (model.h): its
 * state file, its events and its call counters
 *
 *   source_klp.c              the source, in the shape of every source
 *                             (source_livepatch.h): open, update the
 *                             model, the counts of what was lost, close
 *   source_klp_attach.c       bpf/klptop.bpf.c loaded and attached to the
 *                             klp:* tracepoints, and its ring buffer
 *   source_klp_events.c       each event moves the model and becomes a
 *                             line of the log
 *   source_klp_transitions.c  the transitions in the events and the state
 *                             file
 *   source_klp_counters.c     where redirections are counted into the
 *                             model: the per-CPU counters, read as deltas
 *   source_klp_state.c        the model read whole again from the state
 *                             file (snapshot_lib.c parses it)
 *
 * What goes wrong is said on stderr, in terms of what to do.  klptop
 * updates the model with klp_source_update(); klp-exporter, which counts
 * each event and each winner before the model moves, calls the parts.
 */
#ifndef _KLP_SOURCE_KLP_H
#define _KLP_SOURCE_KLP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include "model.h"

struct klp_snapshot;

/* --- the model read whole (source_klp_state.c) ---------------------------- */

int klp_model_resync(struct model *m);
void klp_model_drop(struct model *m);

/* --- the events (source_klp_events.c, source_klp_transitions.c) ----------- */

void klp_event_apply(struct model *m, struct model_log *log,
		     const struct klp_transition_event *e);
void klp_tr_from_snapshot(struct model_trset *s, const struct klp_snapshot *snap);
int klp_tr_event(struct model_trset *s, const struct klp_transition_event *e,
		 bool fresh);

/* --- the counters (source_klp_counters.c) --------------------------------- */

struct klp_counters {
	const volatile unsigned long long *hits; /* the map, mapped: ncpus
						  * slices of KLP_MAX_HIT_KEYS */
	int ncpus;
	unsigned long long *now;	/* by id: this read's sums over CPUs */
	unsigned long long *last;	/* by id: the last read's */
	unsigned long long interval_unknown;	/* hits of ids we cannot name */
	bool unknown_tried[KLP_MAX_HIT_KEYS];
};

int klp_counters_init(struct klp_counters *c,
		      const volatile unsigned long long *hits, int ncpus);
int klp_counters_update(struct klp_counters *c, struct model *m);
void klp_counters_free(struct klp_counters *c);

/* --- the BPF programs (source_klp_attach.c) ------------------------------ */

struct klptop_bpf;
struct ring_buffer;
enum libbpf_print_level;

/* Called with each transition event; returns 0 (else consuming stops). */
typedef int (*klp_event_fn)(void *ctx, void *data, size_t size);

struct klp_bpf {
	struct klptop_bpf *skel;
	struct ring_buffer *rb;
	const volatile unsigned long long *hits; /* the hits map, mapped */
	size_t hits_len;
	int ncpus;			/* its slices */
};

int klp_bpf_check_environment(void);
/* klp_source_open()'s and klp_bpf_attach()'s flags */
enum {
	KLP_SOURCE_CALLS = 1 << 0,	/* count the redirected calls */
	KLP_SOURCE_QUIET = 1 << 1,	/* say nothing of a failure */
};

int klp_bpf_attach(struct klp_bpf *b, klp_event_fn on_event, void *ctx,
		   unsigned int flags);
int klp_bpf_consume(struct klp_bpf *b);
int klp_bpf_events_fd(const struct klp_bpf *b);
unsigned long long klp_bpf_lost_events(const struct klp_bpf *b);
unsigned long long klp_bpf_lost_hits(const struct klp_bpf *b);
void klp_bpf_detach(struct klp_bpf *b);
int klp_bpf_print_all(enum libbpf_print_level level, const char *format,
		      va_list args);

/* --- the source (source_klp.c) ------------------------------------------ */

struct klp_source {
	struct klp_bpf bpf;
	struct klp_counters counters;
	unsigned long long lost_events_seen;	/* by the last update */
};

int klp_source_open(struct klp_source *s, klp_event_fn on_event, void *ctx,
		    unsigned int flags);
int klp_source_consume(struct klp_source *s);
int klp_source_events_fd(const struct klp_source *s);
int klp_source_update(struct klp_source *s, struct model *m);
unsigned long long klp_source_lost_events(const struct klp_source *s);
unsigned long long klp_source_lost_hits(const struct klp_source *s);
void klp_source_close(struct klp_source *s);

#endif /* _KLP_SOURCE_KLP_H */
