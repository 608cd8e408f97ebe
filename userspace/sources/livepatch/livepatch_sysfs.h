/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * livepatch_sysfs.h - where the kernel's builtin livepatch keeps its
 * patches, whether it has one (without the klp core, klptop and klp-trace
 * show the builtin alone when it does), and a glance at each: its enabled
 * and transition files, read once an update for whoever needs them
 * (livepatch_sysfs_lib.c; no model, no BPF)
 */
#ifndef _KLP_LIVEPATCH_SYSFS_H
#define _KLP_LIVEPATCH_SYSFS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#define LP_SYSFS_ROOT	"/sys/kernel/livepatch"

/* A patch as the glance found it: the files' first lines, "" if unread. */
struct lp_glance_patch {
	char name[NAME_MAX + 1];
	char enabled[16];
	char transition[16];
};

/*
 * Every patch of the builtin, in the order sysfs lists them (the same
 * while nothing changes): what moves with no other sign of a change.
 */
struct lp_glance {
	const char *root;		/* the sysfs root it read */
	struct lp_glance_patch *patches;
	size_t nr, cap;
	bool busy;			/* a patch is in transition */
};

bool lp_sysfs_has_patches(void);
int lp_sysfs_glance(struct lp_glance *g, const char *root);
bool lp_glance_same(const struct lp_glance *a, const struct lp_glance *b);
void lp_glance_free(struct lp_glance *g);

#endif /* _KLP_LIVEPATCH_SYSFS_H */
