// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * alloc_lib.c - the tools' one out-of-memory policy (alloc.h)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "alloc.h"

/* Out of memory: the program says so and exits. */
void die_oom(void)
{
	fprintf(stderr, "%s: out of memory\n", program_invocation_short_name);
	exit(1);
}

/**
 * xrealloc() - the one out-of-memory policy of the tools
 * @p:    what to resize (NULL: a new array)
 * @n:    elements
 * @size: of one element
 *
 * Returns the resized array; out of memory, the program says so and exits.
 */
void *xrealloc(void *p, size_t n, size_t size)
{
	void *r = NULL;

	if (!size || n <= (size_t)-1 / size)
		r = realloc(p, (n ? n : 1) * size);
	if (!r)
		die_oom();
	return r;
}

/* src into dst, cut to size - 1 characters, always terminated. */
void copy_name(char *dst, size_t size, const char *src)
{
	snprintf(dst, size, "%.*s", (int)size - 1, src);
}
