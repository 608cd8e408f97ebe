/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * livepatch_transitions.h - the builtin livepatch's transitions, from its
 * sysfs and /proc, into the model's transitions (transition.h): no BPF,
 * so klp-trace reads them too (livepatch_transitions.c)
 */
#ifndef _KLP_LIVEPATCH_TRANSITIONS_H
#define _KLP_LIVEPATCH_TRANSITIONS_H

#include "transition.h"

/* The builtin livepatch's transitions, read again; 0 or -errno. */
int kt_tr_builtin_scan(struct kt_trset *s);

#endif /* _KLP_LIVEPATCH_TRANSITIONS_H */
