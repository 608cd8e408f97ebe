/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef _KLP_SYMBOLS_H
#define _KLP_SYMBOLS_H

#include <klp/livepatch.h>

int klp_symbols_init(void);
void klp_symbols_exit(void);
bool klp_kaslr_active(void);
bool klp_ftrace_enabled(void);
unsigned long klp_ftrace_location(unsigned long addr);
struct module *klp_find_module_formed(const char *name);
struct module *klp_module_address(unsigned long addr);
bool klp_is_init_text(struct module *mod, unsigned long addr);
void klp_text_write(void *addr, const void *val, size_t len);
int klp_find_object_symbol(const char *objname, const char *name,
			   unsigned long sympos, unsigned long *addr);
int klp_verify_vmlinux_symbol(const char *name, unsigned long addr);
int klp_find_exported_symbol(const char *name, unsigned long *addr);
int klp_resolve_function(const char *name, void *ptr, int slot);
int klp_resolve_data(const char *name, void *ptr);
int klp_function_size(unsigned long addr, unsigned long *size);

#endif /* _KLP_SYMBOLS_H */
