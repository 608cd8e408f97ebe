// SPDX-License-Identifier: GPL-2.0-or-later
/* klp_test_dup_b.c - the second klp_dup_fn() of klp_test_dup (see _a.c) */
#include "klp_test_dup.h"

static __attribute__((__noipa__)) int klp_dup_fn(void)
{
	return 2;
}

int (*klp_dup_b_fn(void))(void)
{
	return klp_dup_fn;
}
