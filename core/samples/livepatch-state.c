// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * livepatch-state.c - a system state carried from patch to patch
 *
 * A fix may change more than code: here, while patched, the console shows
 * every message (console_loglevel raised to 15), as a fix might turn on
 * extra reporting.  The patch records that change as system state 1
 * (upstream's Documentation/livepatch/system-state.rst): its callbacks
 * save the old loglevel in the state's data and put it back on disable.
 * It is a cumulative (replace) patch, so a later version of it can take
 * the change over with klp_get_prev_state() instead of saving the
 * already raised level as the old one, and the core refuses a patch that
 * would replace it without knowing state 1 (or with an older version).
 *
 * Example:
 * $ cut -f1 /proc/sys/kernel/printk
 * 7
 * $ insmod livepatch-state.ko
 * $ cut -f1 /proc/sys/kernel/printk
 * 15
 * $ echo 0 > /sys/kernel/klp/livepatch_state/enabled
 * $ cut -f1 /proc/sys/kernel/printk
 * 7
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/printk.h>
#include <linux/slab.h>
#include <klp/livepatch.h>

#define LOGLEVEL_STATE		1
#define LOGLEVEL_STATE_VERSION	1
#define LOGLEVEL_RAISED		15

static struct klp_patch patch;

/* Room for the old level, unless an enabled patch has saved it already. */
static int state_pre_patch(struct klp_object *obj)
{
	struct klp_state *state = klp_get_state(&patch, LOGLEVEL_STATE);

	if (klp_get_prev_state(LOGLEVEL_STATE))
		return 0;
	state->data = kzalloc(sizeof(int), GFP_KERNEL);
	return state->data ? 0 : -ENOMEM;
}

/* Take the earlier patch's saved level over, or save it and raise it. */
static void state_post_patch(struct klp_object *obj)
{
	struct klp_state *state = klp_get_state(&patch, LOGLEVEL_STATE);
	struct klp_state *prev = klp_get_prev_state(LOGLEVEL_STATE);

	if (prev) {
		state->data = prev->data;
		pr_info("console loglevel already raised, taken over\n");
		return;
	}
	*(int *)state->data = console_loglevel;
	console_loglevel = LOGLEVEL_RAISED;
	pr_info("console loglevel raised to %d\n", LOGLEVEL_RAISED);
}

/* Put the level back, unless another enabled patch keeps it raised. */
static void state_pre_unpatch(struct klp_object *obj)
{
	struct klp_state *state = klp_get_state(&patch, LOGLEVEL_STATE);

	if (klp_get_prev_state(LOGLEVEL_STATE))
		return;
	console_loglevel = *(int *)state->data;
	pr_info("console loglevel back to %d\n", console_loglevel);
}

static void state_post_unpatch(struct klp_object *obj)
{
	struct klp_state *state = klp_get_state(&patch, LOGLEVEL_STATE);

	if (klp_get_prev_state(LOGLEVEL_STATE))
		return;
	kfree(state->data);
	state->data = NULL;
}

static struct klp_func no_funcs[] = {
	{ }
};

static struct klp_object objs[] = {
	{
		/* name being NULL means vmlinux */
		.funcs = no_funcs,
		.callbacks = {
			.pre_patch = state_pre_patch,
			.post_patch = state_post_patch,
			.pre_unpatch = state_pre_unpatch,
			.post_unpatch = state_post_unpatch,
		},
	}, { }
};

static struct klp_state states[] = {
	{
		.id = LOGLEVEL_STATE,
		.version = LOGLEVEL_STATE_VERSION,
	}, { }
};

static struct klp_patch patch = {
	.mod = THIS_MODULE,
	.objs = objs,
	.states = states,
	.replace = true,
};

/* Upstream's API since 5.1: klp_enable_patch() registers the patch too. */
static int livepatch_init(void)
{
	return klp_enable_patch(&patch);
}

/* Never called: the core keeps a patch module loaded for good. */
static void livepatch_exit(void)
{
}

module_init(livepatch_init);
module_exit(livepatch_exit);
MODULE_LICENSE("GPL");
