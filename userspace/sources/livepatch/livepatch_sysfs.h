/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * livepatch_sysfs.h - where the kernel's builtin livepatch keeps its
 * patches, and whether it has one: without the klp core, klptop and
 * klp-trace show the builtin alone when it does
 */
#ifndef _KLP_LIVEPATCH_SYSFS_H
#define _KLP_LIVEPATCH_SYSFS_H

#include <stdbool.h>

#define LP_SYSFS_ROOT	"/sys/kernel/livepatch"

bool lp_sysfs_has_patches(void);

#endif /* _KLP_LIVEPATCH_SYSFS_H */
