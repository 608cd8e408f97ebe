/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench_body.h - the one replacement body of the bench patches
 *
 * bench_ours<N> (our core) and bench_builtin<N> (the kernel's builtin
 * livepatch) replace klp_target_a of klp_test_target with this same
 * function, compiled the same way, so the two peers differ only in the core
 * that redirects to it.  BENCH_VALUE tells the patches apart.
 */
#include <linux/compiler.h>

static noinline int bench_new_a(void)
{
	return BENCH_VALUE;
}
