/* SPDX-License-Identifier: GPL-2.0 */
/*
 * klp-trace_builtin.h - the builtin livepatch's records
 * (klp-trace_builtin_rec.c): what a hit of klp-trace's probes on its
 * functions means, with nothing of tracefs in it, so a host test drives
 * it alone
 */
#ifndef _KLP_TRACE_BUILTIN_H
#define _KLP_TRACE_BUILTIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define CORE_LIVEPATCH		"livepatch"

/* The builtin's functions klp-trace probes, as bpf/livepatch.bpf.c does. */
enum lpt_probe {
	LPT_INIT,		/* klp_init_transition(patch, state) */
	LPT_COMPLETE,		/* klp_complete_transition() */
	LPT_REVERSE,		/* klp_reverse_transition() */
	LPT_FORCE,		/* klp_force_transition() */
	LPT_ENABLE,		/* klp_enable_patch(patch), its entry */
	LPT_ENABLE_RET,		/* and its return */
	LPT_NR,
};

#define LPT_NAME_LEN		64	/* a module name (MODULE_NAME_LEN 56) */
#define LPT_MAX_PENDING		32	/* enables awaiting their entry/return */

/* Offsets the fetch args need, from the running kernel's BTF. */
struct lpt_offsets {
	unsigned int patch_mod;		/* struct klp_patch, mod */
	unsigned int module_name;	/* struct module, name[] */
};

/* One hit of a probe, as read from its record. */
struct lpt_hit {
	enum lpt_probe probe;
	int pid;
	unsigned long long ts;
	const char *patch;		/* LPT_ENABLE_RET: none */
	int target;			/* klp_target_state, or init's state */
	int ret;			/* LPT_ENABLE_RET */
};

/* A builtin record, in the names of klp's klp_patch_* / klp_transition. */
struct lpt_rec {
	const char *event;	/* klp_transition, klp_patch_enable, _disable */
	char patch[LPT_NAME_LEN];
	int target;		/* klp_transition: 1 enabling, 0 disabling */
	int action;		/* klp_transition: enum klp_transition_action */
	int ret;		/* klp_patch_*: the enable's result */
	unsigned int pending;	/* action sweep: tasks not switched */
	unsigned int total;	/* of tasks */
	unsigned long long ts;	/* the hit's */
};

/* An enable's entry without its return yet, or a return without entry. */
struct lpt_pending {
	int pid;
	bool is_ret;
	int ret;
	unsigned long long ts;
	char patch[LPT_NAME_LEN];
};

struct lpt_decoder {
	struct lpt_pending pending[LPT_MAX_PENDING];
	int nr_pending;
	unsigned long long dropped;	/* pendings pushed out when full */
};

extern const char *const lpt_functions[LPT_NR];
int lpt_fetch_args(char *buf, size_t size, enum lpt_probe probe,
		   const struct lpt_offsets *off);
int lpt_decode(struct lpt_decoder *d, const struct lpt_hit *hit,
	       struct lpt_rec out[2]);
void lpt_print_fields(FILE *out, bool json, const struct lpt_rec *r);

#endif /* _KLP_TRACE_BUILTIN_H */
