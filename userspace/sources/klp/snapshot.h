/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * snapshot.h - the whole klp state, from one read of debugfs klp/state
 *
 * The core writes that file under one hold of its mutex (format in
 * core/debugfs.c), so the picture is never torn.  Parsed, it gives one
 * record per patch and one per (patch, object, function): a klp_func.
 * The funcs come sorted by object and function, each function's stack
 * winner first, funcs not on a stack last, so a caller can walk the
 * stacks in order.  Every name is whole (no longer than the tools hold,
 * include/klp/uapi.h), and no patch, func or func id is listed twice:
 * each (object, function) is one function, each (patch, function) one
 * func on it, whatever the file said.
 */
#ifndef _KLP_SNAPSHOT_H
#define _KLP_SNAPSHOT_H

#include <stddef.h>
#include <stdio.h>

struct klp_snap_patch {
	char *name;
	int enabled;
	char *srcversion;		/* the patch module's; NULL for none */
	char *cve;			/* the patch's cve list; NULL for none */
	unsigned long long enabled_ns;	/* CLOCK_REALTIME of its enable; 0 */
	int replace;			/* a replace patch */
	char *replaced_by;		/* the patch that replaced it; NULL */
	size_t line;			/* of its "patch" line */
};

struct klp_snap_func {
	const char *patch;		/* points at its klp_snap_patch name */
	char *object;			/* "vmlinux" or a module name */
	char *func;			/* the patched function */
	unsigned int id;		/* as in klp:klp_redirect and the BPF counters */
	int loaded;			/* its object is loaded */
	int patched;			/* on the function's func_stack */
	int stack_pos;			/* 1 the winner, 2 below it, ...; 0 not on the stack */
	unsigned int stack_depth;	/* funcs on that stack; 0 when not patched */
	unsigned long long old_addr;	/* 0 while unresolved */
	unsigned long long new_func;
	size_t line;			/* of its "func" line */
};

/* A task the transition's last sweep could not switch ("blocked" line). */
struct klp_snap_task {
	int pid;
	int reason;			/* enum klp_block_reason */
	char *func;			/* NULL for none ("-") */
	char *comm;			/* may hold spaces */
	size_t line;
};

/* The transition in progress ("transition" line), at most one. */
struct klp_snap_transition {
	char *patch;			/* one of the patches listed */
	int target;			/* 1 enabling, 0 disabling */
	unsigned int sweep;
	unsigned int pending;		/* <= total */
	unsigned int total;
	unsigned long long started_ns;	/* CLOCK_REALTIME */
	struct klp_snap_task *blocked;
	size_t nr_blocked;
	size_t line;
};

struct klp_snapshot {
	unsigned long long seq;		/* last transition event it contains */
	struct klp_snap_transition *transition;	/* NULL when none runs */
	struct klp_snap_patch *patches;
	size_t nr_patches;
	struct klp_snap_func *funcs;
	size_t nr_funcs;
	size_t bad_line;		/* after -EPROTO: the line at fault */
	char bad_why[512];		/* and what is wrong with it; "" if unsaid */
};

/*
 * Read path (NULL: KLP_STATE_PATH).  Returns 0, -ENOENT when there is no
 * such file (the core is not loaded, or debugfs not mounted), -EPROTO
 * when it does not parse, holds a name too long or a patch, func or
 * func id twice, a second transition, a blocked task before the
 * transition or twice (by pid; the idle tasks share pid 0, by comm), a transition
 * of a patch not listed, or its stacks do not add up (bad_line says where, 0 for
 * the stacks; bad_why what, when it can), or another -errno.  On an error
 * snap holds nothing else.
 */
int klp_snapshot_read(struct klp_snapshot *snap, const char *path);

/* The same, from an open stream. */
int klp_snapshot_parse(struct klp_snapshot *snap, FILE *in);

void klp_snapshot_free(struct klp_snapshot *snap);

#endif /* _KLP_SNAPSHOT_H */
