/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * klptop.h - klptop's view of the klp core
 *
 * The BPF side shares only what include/klp/uapi.h declares (the hit key,
 * the transition event); this is the userspace model built from the
 * core's state file (debugfs klp/state) and kept current from those events.
 */
#ifndef _KLPTOP_H
#define _KLPTOP_H

#include <stdbool.h>
#include <klp/uapi.h>

#define KT_FOOTER_LINES		6	/* transitions in the screen's footer */
#define KT_LOG_LEN		64	/* transitions kept */
#define KT_TEXT_LEN		384

enum kt_sort {
	KT_SORT_RATE,		/* hits/s in the last interval, highest first */
	KT_SORT_TOTAL,		/* hits since start, highest first */
	KT_SORT_NAME,		/* object, then function */
	KT_SORT_DEPTH,		/* func_stack depth, deepest first */
	KT_NR_SORTS,
};

struct kt_patch {
	char name[KLP_NAME_LEN];
	bool enabled;
	bool seen;		/* found by the current resync */
};

struct kt_fn;

/* One klp_func: one patch's replacement of one function. */
struct kt_func {
	unsigned int id;
	struct kt_patch *patch;
	struct kt_fn *fn;
	unsigned long long hits_interval;
	unsigned long long hits_total;
	bool seen;
};

/* One patched function: its func_stack (winner first) and its counts. */
struct kt_fn {
	char object[KLP_NAME_LEN];
	char name[KLP_FUNC_LEN];
	unsigned long long old_addr;
	struct kt_func **stack;		/* winner first */
	unsigned int depth;
	struct kt_func **funcs;		/* every known func of this function */
	unsigned int nr_funcs;
	unsigned int cap;		/* of stack and of funcs */
	unsigned long long hits_interval;
	unsigned long long hits_total;
	double rate;
};

/* A line of the transition log. */
struct kt_transition {
	unsigned long long ts_ns;	/* CLOCK_MONOTONIC, as bpf_ktime_get_ns() */
	unsigned int type;		/* enum klp_event_type */
	int ret;
	char patch[KLP_NAME_LEN];
	char func[KLP_FUNC_LEN];	/* "" unless about one function */
	char text[KT_TEXT_LEN];
};

/* A push or pop waiting for the patch or object event that explains it. */
struct kt_pending {
	unsigned long long ts_ns;
	unsigned int type;		/* KLP_EV_FUNC_PUSH or _POP */
	char patch[KLP_NAME_LEN];
	char func[KLP_FUNC_LEN];
	char winner[KLP_NAME_LEN];
	unsigned int depth;
};

#endif /* _KLPTOP_H */
