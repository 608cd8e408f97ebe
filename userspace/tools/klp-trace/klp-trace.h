/* SPDX-License-Identifier: GPL-2.0 */
/*
 * klp-trace.h - klp-trace's rooms
 *
 *   klp-trace.c         options, signals, the read loop, the core's order
 *                       (seqorder_lib.c)
 *   klp-trace_select.c  the cores and the events to trace
 *   klp-trace_instance.c  the private tracefs instance: checked, created
 *                       with the events enabled, removed
 *   klp-trace_owner.c   whose an instance or kprobe group is (pid and
 *                       start time in its name); those of klp-traces
 *                       that died removed at the start
 *   klp-trace_format.c  one record as a line of text or of JSON, every
 *                       field by name from the event's format file
 *   klp-trace_builtin.c the kernel's builtin livepatch: kprobe events on
 *                       its own functions, created, enabled and removed
 *   klp-trace_builtin_rec.c  what those probes' hits mean: the builtin's
 *                       records, in klp's names (no tracefs in it)
 *   klp-trace_calls.c   each call of a builtin func: a kprobe event on
 *                       its new function, found by a walk of the
 *                       builtin's func_stacks through /proc/kcore
 *   klp-trace_blocked.c the tasks that hold a builtin transition back,
 *                       read from /proc every interval
 */
#ifndef _KLP_TRACE_H
#define _KLP_TRACE_H

#include <stdbool.h>
#include <stdio.h>
#include <event-parse.h>

struct tracefs_instance;
#include "ksyms.h"
#include "seqorder.h"
#include "klp-trace_builtin.h"
#include "hindex.h"
#include "kcore.h"
#include "livepatch_walk.h"
#include "livepatch_transitions.h"

#define KLP_SYSTEM		"klp"
#define KLP_REDIRECT		"klp_redirect"
#define MAX_EVENTS		32
#define CORE_KLP		"klp"

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

/* A klp-trace, as its instance's and kprobe group's names say it. */
struct kt_owner {
	int pid;
	unsigned long long start;	/* since boot, clock ticks */
};

int kt_owner_of(int pid, struct kt_owner *o);
bool kt_owner_parse(const char *name, bool group, struct kt_owner *o);
void kt_instance_name(char *buf, size_t size, const struct kt_owner *o);
void kt_group_name(char *buf, size_t size, const struct kt_owner *o);
void kt_reap_orphans(void);

/* The private tracefs instance, instances/klp-trace.<pid>.<start>. */
struct trace_instance {
	struct tracefs_instance *tfs;
	bool mono_clock;		/* record timestamps are CLOCK_MONOTONIC */
};

/* --- the builtin's probes in tracefs (klp-trace_builtin.c) --------- */

struct tracefs_dynevent;

struct lp_trace {
	bool on;				/* its records are traced */
	char group[64];				/* klp_trace_<pid>_<start> */
	struct lpt_offsets off;
	struct tracefs_dynevent *dev[LPT_NR];
	struct tep_event *event[LPT_NR];
	bool enabled[LPT_NR];
	struct lpt_decoder dec;
};

int lpt_check(struct lp_trace *lp, bool say_absent);
int lpt_create(struct lp_trace *lp, const struct kt_owner *owner,
	       struct tep_handle *tep, struct tracefs_instance *inst);
void lpt_disable(struct lp_trace *lp, struct tracefs_instance *inst);
void lpt_destroy(struct lp_trace *lp);
int lpt_read(struct lp_trace *lp, struct tep_event *event,
	     struct tep_record *rec, struct lpt_rec out[2]);

/* --- each call of a builtin func (klp-trace_calls.c) --------------- */

/*
 * A call's life: live while its func is on a stack, its event enabled;
 * draining once a walk finds the func gone, its event disabled and its
 * last records still in the buffers; after the next read of the buffers
 * its event is removed and its slot goes to the next func found.
 */
enum lpc_state {
	LPC_LIVE = 1,
	LPC_DRAINING,
};

/* One builtin func, its kprobe event on its new function. */
struct lp_call {
	struct tracefs_dynevent *dev;
	int event_id;			/* its records' type */
	enum lpc_state state;
	bool enabled;			/* in our instance */
	bool seen;			/* on a stack in the last walk */
	char name[16];			/* call_<n> in our group */
	unsigned long long kfunc;	/* its struct klp_func */
	unsigned long long old_func;
	unsigned long long new_func;
	char patch[KLP_NAME_LEN];	/* the func's patch */
	char func[KLP_FUNC_LEN];	/* its function, as klp names it */
	char winner[KLP_NAME_LEN];	/* its function's top, last walk */
};

struct lp_calls {
	bool on;			/* the walk can run */
	bool rewalk;			/* a state change since the last walk */
	struct kcore kc;
	struct lpw_offsets off;
	unsigned long long head;	/* &klp_ops */
	struct lpw_result res;		/* the last walk */
	struct lp_call *calls;		/* live and draining, in the order added */
	size_t nr, cap;
	size_t live;
	/*
	 * the live calls by (kfunc, new_func, patch), the live and draining
	 * ones by event id; the walk's tops
	 */
	struct hindex by_key;
	struct hindex by_event;
	struct hindex tops;		/* res.recs at pos 0, by old_func */
	unsigned int next_id;
	unsigned int walks;
	unsigned long long said_sig;	/* what the last stderr line told */
	size_t said_nr;
	bool said, said_changing;
};

int lpc_open(struct lp_calls *c);
int lpc_sync(struct lp_calls *c, const char *group, struct tep_handle *tep,
	     struct tracefs_instance *inst);
const struct lp_call *lpc_find(const struct lp_calls *c,
			       const struct tep_event *event);
void lpc_print_fields(FILE *out, const struct ev_format *fmt,
		      const struct lp_call *k);
void lpc_close(struct lp_calls *c, const char *group,
	       struct tracefs_instance *inst);

/* --- tasks holding a builtin transition back (klp-trace_blocked.c) -- */

struct klp_trace;
int lpb_poll(struct klp_trace *t);

/* What the command line asked for. */
struct env {
	const char *events[MAX_EVENTS];
	int nr_events;
	bool no_redirect;
	const char *core;		/* NULL: both */
	bool json;
	long count;
	long duration;
	long interval;			/* s between polls of the builtin's */
};

/* The whole of klp-trace's state, passed around. */
struct klp_trace {
	struct env env;
	struct kt_owner owner;		/* this klp-trace */
	struct tep_handle *tep;
	struct klp_ksyms ksyms;
	struct ev_format fmt;
	struct trace_instance ti;
	struct ev_info evs[MAX_EVENTS];
	int nr_evs;
	bool klp_on;			/* the klp core's events are traced */
	struct lp_trace lp;		/* the builtin livepatch's */
	struct lp_calls calls;		/* and each call of its funcs */
	struct model_trset trs;		/* its transitions, polled */
	struct lp_glance glance;	/* of its sysfs, the last poll's */
	unsigned long long next_poll_ns;
	unsigned long long deadline_ns;	/* -t, CLOCK_MONOTONIC; 0: none */
	long printed;
	struct seq_order order;		/* transitions in the core's order */
	bool done;
	bool cmdlines_reloaded;
};

unsigned long long now_ns(void);	/* CLOCK_MONOTONIC */
FILE *line_open(struct klp_trace *t, char **text, size_t *len,
		unsigned long long ts, int cpu, int pid, const char *event,
		const char *core);
int line_close(struct klp_trace *t, FILE *out, char **text, size_t *len,
	       bool has_seq, unsigned long long seq);

int select_cores(struct klp_trace *t);
int select_events(struct klp_trace *t);
bool lp_wanted(const struct klp_trace *t, const char *name);

bool ti_klp_events_exist(void);
int ti_check_tracefs(void);
int ti_create(struct trace_instance *ti, const struct kt_owner *owner,
	      struct ev_info *evs, int nr);
void ti_destroy(struct trace_instance *ti, struct ev_info *evs, int nr);

int ev_info_init(struct ev_info *ei, struct tep_event *event);
void ev_info_free(struct ev_info *ei);
void ev_print_fields(FILE *out, const struct ev_format *fmt,
		     const struct ev_info *ei, struct tep_record *rec);

#endif /* _KLP_TRACE_H */
