/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * snapshot.h - the state of every klp func_stack, read from sysfs
 *
 * Walks /sys/kernel/klp/<patch>/{enabled,<object>/{loaded,<function>/...}}
 * and returns one record per patch and one per (patch, object, function):
 * a klp_func.  The funcs come sorted by object and function, each
 * function's stack winner first, funcs not on a stack last, so a caller
 * can walk the stacks in order.
 */
#ifndef _KLP_SNAPSHOT_H
#define _KLP_SNAPSHOT_H

#include <stddef.h>

struct klp_snap_patch {
	char *name;
	int enabled;			/* <patch>/enabled */
};

struct klp_snap_func {
	const char *patch;		/* points at its klp_snap_patch name */
	char *object;			/* "vmlinux" or a module name */
	char *func;			/* the patched function */
	unsigned int id;		/* as in klp:klp_redirect and the BPF counters */
	int loaded;			/* <object>/loaded */
	int patched;			/* on the function's func_stack */
	int stack_pos;			/* 1 the winner, 2 below it, ...; 0 not on the stack */
	unsigned int stack_depth;	/* funcs on that stack; 0 when not patched */
	unsigned long long old_addr;	/* 0 when unreadable (root only) */
	unsigned long long new_func;	/* 0 when unreadable (root only) */
};

struct klp_snapshot {
	struct klp_snap_patch *patches;
	size_t nr_patches;
	struct klp_snap_func *funcs;
	size_t nr_funcs;
};

/*
 * Read the whole tree under root (NULL: KLP_SYSFS_ROOT).  A transition
 * racing the walk can tear it; the read is retried until every stack is
 * consistent (positions 1..depth, each once) or gives -EAGAIN.  A patch
 * that goes away during the walk is left out.
 * Returns 0, -ENOENT when the core is not loaded, or another -errno.
 */
int klp_snapshot_read(struct klp_snapshot *snap, const char *root);
void klp_snapshot_free(struct klp_snapshot *snap);

/* 0 when every func_stack in snap is consistent, else -EAGAIN. */
int klp_snapshot_check(const struct klp_snapshot *snap);

#endif /* _KLP_SNAPSHOT_H */
