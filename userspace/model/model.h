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
enum model_core {
	MODEL_CORE_KLP,
	MODEL_CORE_LIVEPATCH,
	MODEL_NR_CORES,
};

extern const char *const model_core_names[MODEL_NR_CORES];

struct model_patch {
	char name[KLP_NAME_LEN];
	enum model_core core;
	bool enabled;
	bool seen;		/* found by the current resync */
	/* from the state file only: "" or 0 until a resync saw them */
	char srcversion[KLP_NAME_LEN];
	char cve[KLP_CVE_MAX_LEN + 1];
	/*
	 * Which load of the patch (builtin: its sysfs directory's inode
	 * number, struct klp_lp_rec's patch_id); 0: not known.  A patch
	 * loaded again under its name keeps its funcs and their counts.
	 */
	unsigned long long instance;
	unsigned long long enabled_ns;	/* CLOCK_REALTIME; 0 while disabled */
	char replaced_by[KLP_NAME_LEN];	/* the replace patch that disabled it */
	char *json_name;	/* klptop --json: the name as a JSON string */
};

struct model_fn;

/* One klp_func: one patch's replacement of one function. */
struct model_func {
	unsigned int id;
	struct model_patch *patch;
	struct model_fn *fn;
	unsigned long long hits_interval;
	unsigned long long hits_total;
	bool seen;
	bool uncounted;		/* its calls cannot be counted (a probe that
				 * failed to attach): its hits are unknown */
	signed char obj_patched;	/* builtin: its object's sysfs "patched"
					 * (-1: no such file, before 6.0) */
	void *priv;		/* the tool's own (klp-exporter: its counter) */
	char *json_head;	/* klptop --json: its unchanging start */
};

/* One patched function: its func_stack (winner first) and its counts. */
struct model_fn {
	char object[KLP_NAME_LEN];
	char name[KLP_FUNC_LEN];
	unsigned long long old_addr;
	struct model_func **stack;		/* winner first */
	unsigned int depth;
	struct model_func **funcs;		/* every known func of this function */
	unsigned int nr_funcs;
	unsigned int cap;		/* of stack and of funcs */
	unsigned long long hits_interval;
	unsigned long long hits_total;
	double rate;
	char *json_head;	/* klptop --json: the row's unchanging start */
	struct model_fn *hnext;	/* next in its bucket of model's fn_hash */
};

struct model {
	struct model_patch **patches;
	size_t nr_patches;
	struct model_fn **fns;
	size_t nr_fns;
	/* fns by object and name, for model_fn_find(): a power of 2 buckets */
	struct model_fn **fn_hash;
	size_t fn_hash_size;
	struct model_func *by_id[KLP_MAX_HIT_KEYS];
	const char *state_path;		/* NULL: KLP_STATE_PATH */
	unsigned long long snap_seq;	/* events up to it are in the model */
	bool need_resync;		/* only the state file can tell now */
	bool quiet;			/* a failed resync says nothing */
	struct model_trset trs;		/* transitions in progress (transition.h) */
	/* funcs freed so far: a pointer to a func kept since may be stale */
	unsigned long long funcs_freed;
};

struct model_patch *model_patch_find(struct model *m, const char *name,
				     bool create);
void model_patch_free(struct model *m, struct model_patch *p);
struct model_fn *model_fn_find(struct model *m, const char *object,
			       const char *name, bool create);
struct model_func *model_func_bind(struct model *m, struct model_patch *p,
				   struct model_fn *fn, unsigned int id);
int model_stack_index(const struct model_fn *fn, const struct model_func *f);
void model_stack_push(struct model_fn *fn, struct model_func *f);
void model_stack_remove(struct model_fn *fn, struct model_func *f);
void model_unsee(struct model *m, enum model_core core);
void model_sweep(struct model *m, enum model_core core);
void model_stack_append(struct model_fn *fn, struct model_func *f);
enum model_core model_fn_core(const struct model_fn *fn);
bool model_fn_uncounted(const struct model_fn *fn);
void model_count(const struct model *m, unsigned int *enabled,
		 unsigned int *disabled, unsigned int *patched_fns);
unsigned int model_replaced(const struct model *m);
void model_interval_start(struct model *m);
void model_func_add_hits(struct model_func *f, unsigned long long delta);
void model_free(struct model *m);

#endif /* _KLP_MODEL_H */
