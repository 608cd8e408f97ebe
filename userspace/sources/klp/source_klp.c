// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * source_klp.c - the klp core as a source of the model, in the shape of
 * every source (the builtin's: source_livepatch.c): open, update the
 * model, the counts of what was lost, close
 *
 * Opened, the source is attached to the klp:* tracepoints before the
 * model is read (klp_model_resync()): the state file's seq then says which
 * of the events to come the model already holds.  Between updates the
 * tool may consume the events as they come (klp_source_consume(), when
 * klp_source_events_fd() is readable), so the ring buffer never fills
 * while it waits.
 */
#include <string.h>
#include "source_klp.h"

/**
 * klp_source_open() - attach to the klp core: its BPF programs, its ring
 * buffer of events, its counters
 * @s:        zeroed, or closed
 * @on_event: called with each struct klp_transition_event consumed
 *            (klp_event_apply() moves the model with it)
 * @ctx:      its first argument
 * @flags:    KLP_SOURCE_CALLS to count the redirected calls (without, no
 *            cost per call, and every count reads 0); KLP_SOURCE_QUIET
 *            to say nothing of a failure
 *
 * Return: 0, or -errno after saying why unless quiet (@s is then closed).
 */
int klp_source_open(struct klp_source *s, klp_event_fn on_event, void *ctx,
		    unsigned int flags)
{
	int err = klp_bpf_attach(&s->bpf, on_event, ctx, flags);

	if (!err)
		err = klp_counters_init(&s->counters, s->bpf.hits, s->bpf.ncpus);
	if (err)
		klp_source_close(s);
	return err;
}

/**
 * klp_source_consume() - hand every event waiting to on_event
 * @s: opened
 *
 * Return: 0, or -errno after saying why.
 */
int klp_source_consume(struct klp_source *s)
{
	return klp_bpf_consume(&s->bpf);
}

/* Readable when events wait: then klp_source_consume(). */
int klp_source_events_fd(const struct klp_source *s)
{
	return klp_bpf_events_fd(&s->bpf);
}

/**
 * klp_source_update() - the klp core's part of the model brought up to now
 * @s: opened
 * @m: the model: moved by the events waiting, read whole again from the
 *     state file when they left it unsure or some were lost, then counted
 *     (the calls of this interval since the last update)
 *
 * Return: 0, or -errno after saying why.
 */
int klp_source_update(struct klp_source *s, struct model *m)
{
	unsigned long long lost;
	int err = klp_source_consume(s);

	if (err)
		return err;
	lost = klp_bpf_lost_events(&s->bpf);
	if (lost != s->lost_events_seen) {
		/* the ring buffer overflowed: only the state file knows now */
		s->lost_events_seen = lost;
		m->need_resync = true;
	}
	/* the model current first: the counters name their ids from it */
	if (m->need_resync) {
		err = klp_model_resync(m);
		if (err)
			return err;
	}
	return klp_counters_update(&s->counters, m);
}

/* What the BPF programs could not record: events (ring buffer full). */
unsigned long long klp_source_lost_events(const struct klp_source *s)
{
	return klp_bpf_lost_events(&s->bpf);
}

/* ... and calls (a func id or a CPU beyond the counters). */
unsigned long long klp_source_lost_hits(const struct klp_source *s)
{
	return klp_bpf_lost_hits(&s->bpf);
}

/* Detach and free; the core can go from now on. */
void klp_source_close(struct klp_source *s)
{
	klp_bpf_detach(&s->bpf);
	klp_counters_free(&s->counters);
	memset(s, 0, sizeof(*s));
}
