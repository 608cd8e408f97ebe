/* SPDX-License-Identifier: GPL-2.0 */
/*
 * klp-trace.h - klp-trace's rooms
 *
 *   klp-trace.c         options, signals, the read loop, the core's order
 *                       (seqorder_lib.c)
 *   klp-trace_instance.c  the private tracefs instance: checked, created
 *                       with the events enabled, removed
 *   klp-trace_format.c  one record as a line of text or of JSON, every
 *                       field by name from the event's format file
 */
#ifndef _KLP_TRACE_H
#define _KLP_TRACE_H

#include <stdbool.h>
#include <stdio.h>
#include <event-parse.h>

struct tracefs_instance;
#include "ksyms.h"

#define KLP_SYSTEM		"klp"

/* One field of a selected event, with what we know about printing it. */
struct ev_field {
	struct tep_format_field *field;
	struct tep_print_flag_sym *symbols;	/* from __print_symbolic() */
};

/* A selected event. */
struct ev_info {
	struct tep_event *event;
	struct ev_field *fields;
	int nr_fields;
	struct tep_format_field *seq;	/* the core's transition number */
	bool enabled;			/* in our instance */
};

/* How records print. */
struct ev_format {
	struct tep_handle *tep;
	struct klp_ksyms *ksyms;	/* addresses as symbols */
	bool json;
};

/* The private tracefs instance, instances/klp-trace.<pid>. */
struct trace_instance {
	struct tracefs_instance *tfs;
	bool mono_clock;		/* record timestamps are CLOCK_MONOTONIC */
};

int ti_check_tracefs(void);
int ti_create(struct trace_instance *ti, struct ev_info *evs, int nr);
void ti_destroy(struct trace_instance *ti, struct ev_info *evs, int nr);

int ev_info_init(struct ev_info *ei, struct tep_event *event);
void ev_info_free(struct ev_info *ei);
void ev_print_fields(FILE *out, const struct ev_format *fmt,
		     const struct ev_info *ei, struct tep_record *rec);

#endif /* _KLP_TRACE_H */
