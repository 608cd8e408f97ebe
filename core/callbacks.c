// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * callbacks.c - an object's callbacks around its patching and unpatching
 *
 * The contract of upstream's Documentation/livepatch/callbacks.rst, with
 * no transition in between (klp switches a function at once):
 *   pre_patch    before the object's funcs are pushed; an error stops the
 *                enable, or refuses the coming module, with everything
 *                undone
 *   post_patch   once the object is patched: on enable after every loaded
 *                object of the patch is, on a coming module right after it
 *   pre_unpatch  before the funcs are popped, only if post_patch ran (not
 *                when a failed enable is rolled back)
 *   post_unpatch once they are popped, only if pre_patch succeeded
 * Each runs for a loaded object only, under klp_mutex, with its patch as
 * klp_transition_patch (for klp_get_prev_state()), and each call is a
 * klp:klp_callback event naming the patch, the object, the callback, why
 * it ran (the cause) and pre_patch's result.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "core.h"
#include "klp_trace.h"

static void klp_trace_callback(struct klp_object *obj,
			       enum klp_callback_kind which,
			       enum klp_cause cause, int ret)
{
	trace_klp_callback(klp_next_seq(), klp_patch_name(obj->patch),
			   klp_obj_name(obj), which, cause, ret);
}

/* Run a void callback with its patch as klp_transition_patch, then trace it. */
static void klp_run_callback(struct klp_object *obj,
			     void (*fn)(struct klp_object *obj),
			     enum klp_callback_kind which, enum klp_cause cause)
{
	klp_transition_patch = obj->patch;
	fn(obj);
	klp_transition_patch = NULL;
	klp_trace_callback(obj, which, cause, 0);
}

/**
 * klp_pre_patch_callback() - run an object's pre_patch callback
 * @obj:	a loaded object about to be patched
 * @cause:	why it is patched
 *
 * Its success (or its absence) makes the post_unpatch callback due.
 *
 * Return: 0, or the callback's error (logged)
 */
int klp_pre_patch_callback(struct klp_object *obj, enum klp_cause cause)
{
	int ret = 0;

	lockdep_assert_held(&klp_mutex);

	if (obj->callbacks.pre_patch) {
		klp_transition_patch = obj->patch;
		ret = obj->callbacks.pre_patch(obj);
		klp_transition_patch = NULL;
		klp_trace_callback(obj, KLP_CB_PRE_PATCH, cause, ret);
		if (ret)
			pr_warn("pre-patch callback of patch '%s' failed for object '%s' (%d)\n",
				klp_patch_name(obj->patch), klp_obj_name(obj),
				ret);
	}
	obj->callbacks.post_unpatch_enabled = !ret;
	return ret;
}

/**
 * klp_post_patch_callback() - run an object's post_patch callback
 * @obj:	a patched object
 * @cause:	why it was patched
 */
void klp_post_patch_callback(struct klp_object *obj, enum klp_cause cause)
{
	lockdep_assert_held(&klp_mutex);

	if (obj->callbacks.post_patch)
		klp_run_callback(obj, obj->callbacks.post_patch, KLP_CB_POST_PATCH, cause);
}

/**
 * klp_pre_unpatch_callback() - run an object's pre_unpatch callback
 * @obj:	a patched object whose post_patch callback ran
 * @cause:	why it is unpatched
 */
void klp_pre_unpatch_callback(struct klp_object *obj, enum klp_cause cause)
{
	lockdep_assert_held(&klp_mutex);

	if (obj->callbacks.pre_unpatch)
		klp_run_callback(obj, obj->callbacks.pre_unpatch, KLP_CB_PRE_UNPATCH, cause);
}

/**
 * klp_post_unpatch_callback() - run an object's post_unpatch callback if due
 * @obj:	an object no longer patched
 * @cause:	why it was unpatched
 *
 * Due once pre_patch succeeded (or there is none); runs once.
 */
void klp_post_unpatch_callback(struct klp_object *obj, enum klp_cause cause)
{
	lockdep_assert_held(&klp_mutex);

	if (obj->callbacks.post_unpatch_enabled && obj->callbacks.post_unpatch)
		klp_run_callback(obj, obj->callbacks.post_unpatch,
				 KLP_CB_POST_UNPATCH, cause);
	obj->callbacks.post_unpatch_enabled = false;
}
