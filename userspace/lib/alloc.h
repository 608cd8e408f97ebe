/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * alloc.h - the tools' one out-of-memory policy, and names copied cut to
 * size
 *
 * Out of memory, a tool says so and exits (xrealloc()): a model missing
 * a func would show a wrong winner, and there is nothing to give back.
 * Messages name the program that prints them.
 */
#ifndef _KLP_ALLOC_H
#define _KLP_ALLOC_H

#include <stddef.h>

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))

void die_oom(void) __attribute__((noreturn));
void *xrealloc(void *p, size_t n, size_t size);
void copy_name(char *dst, size_t size, const char *src);

#endif /* _KLP_ALLOC_H */
