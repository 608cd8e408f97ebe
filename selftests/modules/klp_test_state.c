// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * klp_test_state.c - system states for 23-state (after the scenarios of
 * upstream's test-state.sh, written anew)
 *
 * The patch changes one system state, KLP_TEST_LEVEL_STATE: the level in
 * klp_test_target (klp_target_level) goes to 5, its old value saved in
 * the state's data.  Callbacks on vmlinux (no funcs):
 *   pre_patch     room for the saved level, unless an enabled patch
 *                 already has the state (klp_get_prev_state())
 *   post_patch    take the earlier patch's saved level over, or save the
 *                 level and set it
 *   pre_unpatch   restore the level, unless an enabled patch keeps it
 *   post_unpatch  free the saved level, unless an enabled patch keeps it
 * klp_test_state: version 1; klp_test_state2: version 1, replace;
 * klp_test_state3: version 2, replace.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include "klp_test_module.h"
#include "klp_test_target.h"

#ifndef KLP_TEST_STATE_VERSION
#define KLP_TEST_STATE_VERSION 1
#define KLP_TEST_STATE_REPLACE false
#endif
#define KLP_TEST_LEVEL_STATE 1
#define KLP_TEST_LEVEL 5

static struct klp_patch patch;

static struct klp_state *klp_state_own(void)
{
	return klp_get_state(&patch, KLP_TEST_LEVEL_STATE);
}

static int klp_state_pre_patch(struct klp_object *obj)
{
	struct klp_state *state = klp_state_own();

	if (klp_get_prev_state(KLP_TEST_LEVEL_STATE)) {
		pr_info("pre_patch: the level is saved already\n");
		return 0;
	}
	state->data = kzalloc(sizeof(u32), GFP_KERNEL);
	if (!state->data)
		return -ENOMEM;
	pr_info("pre_patch: room to save the level\n");
	return 0;
}

static void klp_state_post_patch(struct klp_object *obj)
{
	struct klp_state *state = klp_state_own(), *prev;

	prev = klp_get_prev_state(KLP_TEST_LEVEL_STATE);
	if (prev) {
		state->data = prev->data;
		pr_info("post_patch: taking over the level change (version %u)\n",
			prev->version);
		return;
	}
	*(u32 *)state->data = klp_target_level;
	klp_target_level = KLP_TEST_LEVEL;
	pr_info("post_patch: level saved, set to %d\n", KLP_TEST_LEVEL);
}

static void klp_state_pre_unpatch(struct klp_object *obj)
{
	if (klp_get_prev_state(KLP_TEST_LEVEL_STATE)) {
		pr_info("pre_unpatch: the level stays changed\n");
		return;
	}
	klp_target_level = *(u32 *)klp_state_own()->data;
	pr_info("pre_unpatch: level restored to %u\n", klp_target_level);
}

static void klp_state_post_unpatch(struct klp_object *obj)
{
	struct klp_state *state = klp_state_own();

	if (klp_get_prev_state(KLP_TEST_LEVEL_STATE)) {
		pr_info("post_unpatch: the saved level stays\n");
		return;
	}
	kfree(state->data);
	state->data = NULL;
	pr_info("post_unpatch: saved level freed\n");
}

static struct klp_func no_funcs[] = {
	{ }
};

static struct klp_object objs[] = {
	{
		.funcs = no_funcs,
		.callbacks = {
			.pre_patch = klp_state_pre_patch,
			.post_patch = klp_state_post_patch,
			.pre_unpatch = klp_state_pre_unpatch,
			.post_unpatch = klp_state_post_unpatch,
		},
	}, { }
};

static struct klp_state states[] = {
	{
		.id = KLP_TEST_LEVEL_STATE,
		.version = KLP_TEST_STATE_VERSION,
	}, { }
};

static struct klp_patch patch = {
	.mod = THIS_MODULE,
	.objs = objs,
	.states = states,
	.replace = KLP_TEST_STATE_REPLACE,
};

static bool enable = true;
module_param(enable, bool, 0400);
MODULE_PARM_DESC(enable, "enable the patch on load (default 1)");

static int __init klp_state_init(void)
{
	return klp_test_register_enable(&patch, enable);
}

static void __exit klp_state_exit(void)
{
}

module_init(klp_state_init);
module_exit(klp_state_exit);
MODULE_LICENSE("GPL");
