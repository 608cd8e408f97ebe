/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * readat.h - one line or one integer from a file of a kernel directory
 * (sysfs, /proc), opened relative to that directory's fd and never
 * through a symlink
 */
#ifndef __KLP_READAT_H
#define __KLP_READAT_H

#include <stddef.h>

int readat_line(int dirfd, const char *name, char *buf, size_t size);
int readat_int(int dirfd, const char *name, int *val);

#endif /* __KLP_READAT_H */
