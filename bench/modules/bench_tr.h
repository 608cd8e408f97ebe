/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench_tr.h - the transition bench's patch, for either core: klp_target_a
 * of klp_test_target returns BENCH_VALUE (the call the bench times) and
 * klp_cm_hold() of klp_test_cm changes too, so that a kthread asleep in it
 * ("hold" in klp_test_cm's debugfs) keeps the patch's transition open
 * until it is released; and bench_caller_hold() of bench_caller, so that
 * a task looping under it (bench_caller's "loop") stays unswitched while
 * it times its calls.  bench_tr_ours.c and bench_tr_builtin.c include
 * this after their core's header.
 */
#include <linux/kthread.h>
#include <linux/wait.h>
#include "bench_body.h"
#include "klp_test_cm.h"

static int bench_tr_new_hold(void)
{
	wait_event(klp_cm_wq, klp_cm_released() || kthread_should_stop());
	return 2;
}

int bench_caller_spin(void);

static int bench_tr_last;

static int bench_tr_new_caller_hold(void)
{
	int v = bench_caller_spin();

	/* a store after the call: no tail call, this frame stays */
	WRITE_ONCE(bench_tr_last, v);
	return v;
}

static struct klp_func target_funcs[] = {
	{ .old_name = "klp_target_a", .new_func = bench_new_a, },
	{ }
};

static struct klp_func cm_funcs[] = {
	{ .old_name = "klp_cm_hold", .new_func = bench_tr_new_hold, },
	{ }
};

static struct klp_func caller_funcs[] = {
	{ .old_name = "bench_caller_hold", .new_func = bench_tr_new_caller_hold, },
	{ }
};

static struct klp_object objs[] = {
	{ .name = "klp_test_target", .funcs = target_funcs, },
	{ .name = "klp_test_cm", .funcs = cm_funcs, },
	{ .name = "bench_caller", .funcs = caller_funcs, },
	{ }
};

static struct klp_patch patch = {
	.mod = THIS_MODULE,
	.objs = objs,
};
