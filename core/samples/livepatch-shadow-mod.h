/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * livepatch-shadow-mod.h - the structure and the functions of the shadow
 * variable sample's target, for the target and its fix
 */
#ifndef _LIVEPATCH_SHADOW_MOD_H
#define _LIVEPATCH_SHADOW_MOD_H

#include <linux/list.h>

struct dummy {
	struct list_head list;
	unsigned long expires;
};

/* Not static: gcc could change a static one's signature, or clone it. */
struct dummy *dummy_alloc(unsigned long expires);
void dummy_free(struct dummy *d);

#endif /* _LIVEPATCH_SHADOW_MOD_H */
