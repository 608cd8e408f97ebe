/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * livepatch_source.h - what bpf/livepatch.bpf.c and the tools'
 * userspace/sources/livepatch/source_livepatch.c share: the records of a
 * walk of the kernel's builtin livepatch (its klp_ops list and each one's
 * func_stack) and its call counters.
 *
 * Included by the BPF program (after vmlinux.h) and by userspace.
 */
#ifndef _KLP_LIVEPATCH_SOURCE_H
#define _KLP_LIVEPATCH_SOURCE_H

#include <klp/uapi.h>

/* Records one walk holds: the builtin's funcs on any func_stack. */
#define KLP_LP_MAX_RECS		4096
/* Steps of a walk: one per klp_ops and one per func on its stack. */
#define KLP_LP_MAX_STEPS	(2 * KLP_LP_MAX_RECS)
/* Counter slots (1 to KLP_LP_MAX_KEYS - 1), per possible CPU. */
#define KLP_LP_MAX_KEYS		4096

/*
 * One builtin klp_func on the func_stack of one klp_ops (one patched
 * function), as the walk found it.  The names are the builtin's sysfs
 * names: its patch's module, its object ("vmlinux" or a module) and the
 * func's own directory "<old_name>,<sympos>".
 */
struct klp_lp_rec {
	__u64 func;		/* the struct klp_func's address: its identity */
	__u64 old_func;
	__u64 new_func;
	/*
	 * Which load of its patch: the kernfs id of the patch's sysfs
	 * directory (its inode number there), never reused in a boot.  A
	 * patch module unloaded and loaded again, the same .ko at the same
	 * addresses too, gets another.  0: not read (the kcore walk).
	 */
	__u64 patch_id;
	__u32 ops;		/* which klp_ops (function) of this walk, from 1 */
	__u32 pos;		/* on its stack: 0 the top (the winner) */
	__u8 transition;	/* klp_func.transition */
	__u8 patched;		/* klp_func.patched */
	__u8 nop;		/* klp_func.nop (a replace patch's no-op) */
	__u8 pad[5];
	char patch[KLP_NAME_LEN];
	char object[KLP_NAME_LEN];
	char name[KLP_FUNC_LEN];
};

/* The walk's outcome, beside the records (the BPF program's .bss). */
enum klp_lp_walk_status {
	KLP_LP_WALK_DONE = 1,		/* the list's end was reached */
	KLP_LP_WALK_TRUNCATED = 2,	/* more funcs than KLP_LP_MAX_RECS */
	KLP_LP_WALK_FAULT = 3,		/* a read of the kernel's lists failed */
	KLP_LP_WALK_STEPS = 4,		/* KLP_LP_MAX_STEPS ran out (a changing list) */
};

#endif /* _KLP_LIVEPATCH_SOURCE_H */
