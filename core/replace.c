// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * replace.c - atomic replace: a patch whose enable disables all others
 * (upstream's Documentation/livepatch/cumulative-patches.rst)
 *
 * The replace patch's transition sends a task in its patched state to
 * the replace patch's funcs, and to the original for a function only the
 * other patches patch (patch.c marks such stacks: upstream's "nop"
 * funcs).  Once every task is in that state, the funcs of every other
 * enabled patch are popped: nothing changes for any task, and a function
 * only they patched is unhooked (its ftrace_ops goes with its last func).
 * A replaced patch that klp_enable_patch() registered is released.  As
 * upstream, the replaced patches' callbacks do not run: the replace patch
 * is the one that knows what to take over.
 * Each pop is a klp:klp_func_pop event with cause "replace", each
 * replaced patch a klp:klp_patch_replaced event naming its replacement.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/string.h>
#include "core.h"
#include "patch.h"
#include "klp_trace.h"

/* One ftrace update for all of old's functions that go back to the original. */
static int klp_replace_one(struct klp_patch *old)
{
	struct klp_object *obj;
	int ret;

	ret = klp_unpatch_objects(old, NULL, KLP_CAUSE_REPLACE);
	/* Its callbacks are skipped for good. */
	klp_for_each_object(old, obj)
		if (obj->state != KLP_ENABLED)
			obj->callbacks.post_unpatch_enabled = false;
	return ret;
}

/**
 * klp_replace_patches() - pop the funcs of every patch enabled before it
 * @patch:	a replace patch whose transition completed
 *
 * Only the patches enabled before @patch (by their klp:klp_patch_enable
 * seq), as upstream touches only those older than the replace patch: a
 * patch enabled on top of it since, whose disable of @patch was reversed
 * back to enabled, stays as it is.
 *
 * The patches popped stay enabled, marked replaced_by, until
 * klp_replace_finish(): the replace patch's post_patch callbacks, which
 * run in between, find their states with klp_get_prev_state(), as
 * upstream's do.  A patch whose funcs cannot all be popped stays enabled
 * for good (logged).
 */
void klp_replace_patches(struct klp_patch *patch)
{
	struct klp_patch *old;
	int ret;

	lockdep_assert_held(&klp_mutex);

	list_for_each_entry(old, &klp_patches, list) {
		if (old == patch || old->state != KLP_ENABLED ||
		    old->enable_seq > patch->enable_seq)
			continue;
		ret = klp_replace_one(old);
		if (ret) {
			pr_err("patch '%s' could not be replaced by '%s' (%d): it stays enabled\n",
			       klp_patch_name(old), klp_patch_name(patch), ret);
			continue;
		}
		strscpy(old->replaced_by, klp_patch_name(patch),
			sizeof(old->replaced_by));
	}
}

/**
 * klp_replace_finish() - the patches klp_replace_patches() popped are disabled
 * @patch:	the replace patch, now enabled
 */
void klp_replace_finish(struct klp_patch *patch)
{
	struct klp_patch *old, *tmp;

	lockdep_assert_held(&klp_mutex);

	list_for_each_entry_safe(old, tmp, &klp_patches, list) {
		if (old == patch || old->state != KLP_ENABLED ||
		    !old->replaced_by[0])
			continue;
		pr_notice("patch '%s' replaced by '%s'\n", klp_patch_name(old),
			  klp_patch_name(patch));
		old->state = KLP_DISABLED;
		old->enabled_ns = 0;
		trace_klp_patch_replaced(klp_next_seq(), klp_patch_name(old),
					 klp_patch_name(patch));
		if (old->enable_only)
			klp_release_patch(old);
	}
}
