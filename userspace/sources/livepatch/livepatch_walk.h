/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * livepatch_walk.h - the builtin livepatch's func_stacks read from
 * userspace, without BPF: its klp_ops list walked through /proc/kcore
 * (kcore.h), struct offsets from the kernel's BTF.  The records are those
 * bpf/livepatch.bpf.c's lp_walk gives klptop (struct klp_lp_rec), in the
 * same order: each klp_ops, then its func_stack from the top (the winner).
 */
#ifndef _KLP_LIVEPATCH_WALK_H
#define _KLP_LIVEPATCH_WALK_H

#include <stddef.h>
#include <klp/livepatch_source.h>

struct kcore;

#define LPW_TRIES	3	/* walks before a changing list is given up */

/* Byte offsets of the members the walk reads (the kernel's BTF). */
struct lpw_offsets {
	unsigned int ops_node;		/* struct klp_ops: node */
	unsigned int ops_func_stack;	/* func_stack */
	unsigned int func_stack_node;	/* struct klp_func: stack_node */
	unsigned int func_old_func;	/* old_func */
	unsigned int func_new_func;	/* new_func */
	unsigned int func_kobj;		/* kobj */
	unsigned int func_transition;	/* transition (bool) */
	unsigned int func_patched;	/* patched (bool) */
	unsigned int func_nop;		/* nop (bool) */
	unsigned int kobj_name;		/* struct kobject: name */
	unsigned int kobj_parent;	/* parent */
};

/* One walk's records. */
struct lpw_result {
	struct klp_lp_rec *recs;	/* KLP_LP_MAX_RECS of them */
	size_t nr;
	unsigned int nr_ops;
	int status;			/* enum klp_lp_walk_status */
};

int lpw_walk(const struct kcore *kc, const struct lpw_offsets *off,
	     unsigned long long head, struct lpw_result *res);
int lpw_walk_tries(const struct kcore *kc, const struct lpw_offsets *off,
		   unsigned long long head, struct lpw_result *res);
void lpw_func_name(char *dst, size_t size, const char *sysfs);

#endif /* _KLP_LIVEPATCH_WALK_H */
