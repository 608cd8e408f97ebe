/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef _KLP_SYMBOLS_H
#define _KLP_SYMBOLS_H

#include <klp/livepatch.h>

int klp_symbols_init(void);
bool klp_kaslr_active(void);
unsigned long klp_ftrace_location(unsigned long addr);
struct module *klp_find_module(const char *name);
int klp_find_object_symbol(const char *objname, const char *name,
			   unsigned long *addr);
int klp_verify_vmlinux_symbol(const char *name, unsigned long addr);
int klp_find_external_symbol(struct module *pmod, const char *name,
			     unsigned long *addr);
int klp_write_module_reloc(struct module *mod, unsigned long type,
			   unsigned long loc, unsigned long value);

#endif /* _KLP_SYMBOLS_H */
