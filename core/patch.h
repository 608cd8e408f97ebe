/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef _KLP_PATCH_H
#define _KLP_PATCH_H

#include <klp/livepatch.h>
#include <klp/uapi.h>

struct seq_file;

int klp_patch_func(struct klp_func *func, enum klp_cause cause);
int klp_unpatch_func(struct klp_func *func, enum klp_cause cause);
int klp_func_stack_pos(struct klp_func *func, unsigned int *depth);
void klp_show_stacks(struct seq_file *m, const char *prefix);

#endif /* _KLP_PATCH_H */
