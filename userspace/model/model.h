/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * model.h - the model: the patches of both live patching cores, the
 * functions they patch, each function's func_stack (winner first), the
 * calls counted, the transitions in progress and the last state changes;
 * one picture whatever core fed it, each patch marked with its core
 *
 *   model.c             patches, functions, func_stacks, counts
 *   transition_model.c  the transitions in progress and the tasks that
 *                       hold them back (transition.h)
 *   event_log.c         the last state changes as lines (event_log.h)
 *
 * A source fills it, one a core (sources/klp/source_klp.h,
 * sources/livepatch/source_livepatch.h); the tools show it.  The BPF side
 * shares only what include/klp/uapi.h declares (the func ids, the events).
 * Out of memory, it says so and exits (alloc.h): a model missing a func
 * would show a wrong winner, and there is nothing to give back.
 */
#ifndef _KLP_MODEL_H
#define _KLP_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <klp/uapi.h>
#include "alloc.h"
#include "event_log.h"
#include "transition.h"

/*
 * The live patching core a patch runs on: each one is a source that feeds
 * the model (klp: sources/klp/source_klp.h; the kernel's builtin
 * livepatch: sources/livepatch/source_livepatch.h).
 */
enum kt_core {
	KT_CORE_KLP,
	KT_CORE_LIVEPATCH,
	KT_NR_CORES,
};

extern const char *const kt_core_names[KT_NR_CORES];

struct kt_patch {
	char name[KLP_NAME_LEN];
	enum kt_core core;
	bool enabled;
	bool seen;		/* found by the current resync */
	/* from the state file only: "" or 0 until a resync saw them */
	char srcversion[KLP_NAME_LEN];
	char cve[KLP_CVE_MAX_LEN + 1];
	unsigned long long enabled_ns;	/* CLOCK_REALTIME; 0 while disabled */
	char replaced_by[KLP_NAME_LEN];	/* the replace patch that disabled it */
	char *json_name;	/* klptop --json: the name as a JSON string */
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
	signed char obj_patched;	/* builtin: its object's sysfs "patched"
					 * (-1: no such file, before 6.0) */
	void *priv;		/* the tool's own (klp-exporter: its counter) */
	char *json_head;	/* klptop --json: its unchanging start */
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
	char *json_head;	/* klptop --json: the row's unchanging start */
	struct kt_fn *hnext;	/* next in its bucket of kt_model's fn_hash */
};

struct kt_model {
	struct kt_patch **patches;
	size_t nr_patches;
	struct kt_fn **fns;
	size_t nr_fns;
	/* fns by object and name, for kt_fn_find(): a power of 2 buckets */
	struct kt_fn **fn_hash;
	size_t fn_hash_size;
	struct kt_func *by_id[KLP_MAX_HIT_KEYS];
	const char *state_path;		/* NULL: KLP_STATE_PATH */
	unsigned long long snap_seq;	/* events up to it are in the model */
	bool need_resync;		/* only the state file can tell now */
	bool quiet;			/* a failed resync says nothing */
	struct kt_trset trs;		/* transitions in progress (transition.h) */
	/* funcs freed so far: a pointer to a func kept since may be stale */
	unsigned long long funcs_freed;
};

struct kt_patch *kt_patch_find(struct kt_model *m, const char *name,
			       bool create);
void kt_patch_free(struct kt_model *m, struct kt_patch *p);
struct kt_fn *kt_fn_find(struct kt_model *m, const char *object,
			 const char *name, bool create);
struct kt_func *kt_func_bind(struct kt_model *m, struct kt_patch *p,
			     struct kt_fn *fn, unsigned int id);
int kt_stack_index(const struct kt_fn *fn, const struct kt_func *f);
void kt_stack_push(struct kt_fn *fn, struct kt_func *f);
void kt_stack_remove(struct kt_fn *fn, struct kt_func *f);
void kt_model_unsee(struct kt_model *m, enum kt_core core);
void kt_model_sweep(struct kt_model *m, enum kt_core core);
void kt_stack_append(struct kt_fn *fn, struct kt_func *f);
enum kt_core kt_fn_core(const struct kt_fn *fn);
void kt_model_count(const struct kt_model *m, unsigned int *enabled,
		    unsigned int *disabled, unsigned int *patched_fns);
unsigned int kt_model_replaced(const struct kt_model *m);
void kt_model_interval_start(struct kt_model *m);
void kt_func_add_hits(struct kt_func *f, unsigned long long delta);
void kt_model_free(struct kt_model *m);

#endif /* _KLP_MODEL_H */
