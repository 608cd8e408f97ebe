/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * event_log.h - the last state changes of both cores, each a line of text
 * with what it was about (event_log.c)
 *
 * A source adds a line for each event it applies (klp's: each
 * klp_transition_event of its ring buffer; the builtin's: its enables and
 * transitions); the tools show the lines (klptop's footer and JSON).  An
 * event is the struct klp_transition_event of include/klp/uapi.h whatever
 * its core; its type and cause have one name each, as the tracepoints
 * print them.
 */
#ifndef _KLP_EVENT_LOG_H
#define _KLP_EVENT_LOG_H

#include <klp/uapi.h>

#define MODEL_LOG_LEN		64	/* lines kept */
#define MODEL_TEXT_LEN		384

/* A line of the log. */
struct model_transition {
	unsigned long long ts_ns;	/* CLOCK_MONOTONIC, as bpf_ktime_get_ns() */
	unsigned long long seq;		/* the core's transition number */
	unsigned int type;		/* enum klp_event_type */
	int cause;			/* enum klp_cause; 0 for none */
	int ret;
	char patch[KLP_NAME_LEN];
	char func[KLP_FUNC_LEN];	/* "" unless about one function */
	char text[MODEL_TEXT_LEN];
};

/* The last MODEL_LOG_LEN lines, oldest first from n - MODEL_LOG_LEN. */
struct model_log {
	struct model_transition ring[MODEL_LOG_LEN];
	unsigned long long n;		/* lines logged so far */
	unsigned long long shown;	/* ... of which printed */
};

void model_log_add(struct model_log *log, const struct klp_transition_event *e,
		   const char *func, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void model_event_terminate(struct klp_transition_event *e);
const char *model_event_name(unsigned int type);
const char *model_cause_name(int cause);

#endif /* _KLP_EVENT_LOG_H */
