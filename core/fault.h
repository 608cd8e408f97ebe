/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef _KLP_FAULT_H
#define _KLP_FAULT_H

/*
 * Debug-only fault injection for the enable path: the selftests write
 * "<site> <nth>" to /sys/module/klp/parameters/fault_inject and the nth
 * pass through klp_fault("<site>") fails (-ENOMEM for alloc_* sites, -EIO
 * otherwise), once.  Returns 0 when nothing is armed.
 */
int klp_fault(const char *site);

#endif /* _KLP_FAULT_H */
