/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * livepatch_transitions.h - the builtin livepatch's transitions, from its
 * sysfs and /proc, into the model's transitions (transition.h): no BPF,
 * so klp-trace reads them too (livepatch_transitions.c)
 */
#ifndef _KLP_LIVEPATCH_TRANSITIONS_H
#define _KLP_LIVEPATCH_TRANSITIONS_H

#include "livepatch_sysfs.h"
#include "transition.h"

#define LP_PROC_ROOT	"/proc"

void lp_tr_builtin_scan(struct model_trset *s, const struct lp_glance *g,
			const char *proc_root);

#endif /* _KLP_LIVEPATCH_TRANSITIONS_H */
