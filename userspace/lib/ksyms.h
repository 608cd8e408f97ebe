/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * ksyms.h - kernel text symbols by address (/proc/kallsyms), reloaded
 * when a module comes; a module's symbol that lies outside the module's
 * memory (a freed init function 6.12 still lists) is left out.
 */
#ifndef _KLP_KSYMS_H
#define _KLP_KSYMS_H

#include <stdbool.h>
#include <stddef.h>

struct klp_ksym {
	unsigned long long addr;
	const char *name;
};

/* Zero-initialized before the first use; klp_ksyms_free() at the end. */
struct klp_ksyms {
	char *buf;			/* /proc/kallsyms, names point into it */
	struct klp_ksym *syms;		/* sorted by address */
	size_t nr;
	unsigned long long modules_hash; /* of /proc/modules at the last load */
	bool tried;
};

/* The text symbol at or below addr, or NULL (then no name is known). */
const struct klp_ksym *klp_ksyms_resolve(struct klp_ksyms *ks,
					 unsigned long long addr);
void klp_ksyms_free(struct klp_ksyms *ks);

/* A data symbol of the kernel's own (not a module's), or 0. */
unsigned long long klp_ksyms_data_addr(const char *want);

#endif /* _KLP_KSYMS_H */
