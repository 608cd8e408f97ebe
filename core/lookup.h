/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef _KLP_LOOKUP_H
#define _KLP_LOOKUP_H

/*
 * Address of a kernel symbol, vmlinux first, then modules; 0 if unknown.
 * Free of the patch API header so that builtin.c, which needs the
 * kernel's own <linux/livepatch.h>, can use it too.
 */
unsigned long klp_lookup_name(const char *name);

#endif /* _KLP_LOOKUP_H */
