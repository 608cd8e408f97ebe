/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef _KLP_BUILTIN_H
#define _KLP_BUILTIN_H

#include <linux/types.h>

bool klp_builtin_owner(unsigned long old_addr, char *patch, size_t len);

#endif /* _KLP_BUILTIN_H */
