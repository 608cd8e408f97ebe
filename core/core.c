// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * core.c - the klp live patching core: enable and disable, the module
 *
 * The semantics are those of the Linux 3.20 core (the most recently
 * enabled func wins), with upstream's consistency model since 4.12: an
 * enable or disable is a transition in which each task switches on its
 * own (transition.c), rebuilt as a module for stock distro kernels next to
 * their builtin livepatch.  Its sysfs tree (sysfs.c) is /sys/kernel/klp, since the
 * builtin one owns /sys/kernel/livepatch; modules coming and going are
 * handled in module.c, registration in register.c, relocations in
 * reloc.c.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include "core.h"
#include "fault.h"
#include "patch.h"
#include "symbols.h"
#include "transition.h"
#include "klp_trace.h"

/* klp_mutex guards klp_patches and every state change (see core.h) */
DEFINE_MUTEX(klp_mutex);
LIST_HEAD(klp_patches);

/**
 * klp_is_patch_registered() - is patch on klp_patches
 * @patch:	any pointer a caller was handed as a patch
 *
 * Return: true if registered
 */
bool klp_is_patch_registered(struct klp_patch *patch)
{
	struct klp_patch *p;

	lockdep_assert_held(&klp_mutex);

	list_for_each_entry(p, &klp_patches, list)
		if (p == patch)
			return true;
	return false;
}

static void klp_taint(void)
{
	if (test_taint(TAINT_LIVEPATCH))
		return;
	pr_notice("tainting kernel with TAINT_LIVEPATCH\n");
	add_taint(TAINT_LIVEPATCH, LOCKDEP_STILL_OK);
}

/**
 * klp_trace_failure() - emit klp:klp_enable_failed
 * @obj:	the object that could not be applied
 * @func:	the func that failed, or NULL (resolution)
 * @err:	the error
 */
void klp_trace_failure(struct klp_object *obj, struct klp_func *func,
		       int err)
{
	trace_klp_enable_failed(klp_next_seq(), klp_patch_name(obj->patch),
				klp_obj_name(obj), func ? klp_func_name(func) : "",
				err);
}

/**
 * klp_disable_object() - pop an object's enabled funcs, last enabled first
 * @obj:	the object
 * @cause:	why, for the klp:klp_func_pop events
 *
 * A func whose ftrace handler cannot be unregistered stays enabled (and
 * so does the object); the others are popped all the same.
 *
 * Return: 0, or ftrace's error
 */
int klp_disable_object(struct klp_object *obj, enum klp_cause cause)
{
	lockdep_assert_held(&klp_mutex);

	return klp_unpatch_objects(obj->patch, obj, cause);
}

/*
 * Push the funcs of one object (@only) or of every loaded object of a
 * disabled patch (NULL): the functions patched for the first time are
 * hooked in one ftrace update.
 */
static int klp_enable_objects(struct klp_patch *patch, struct klp_object *only,
			      enum klp_cause cause)
{
	int ret;

	ret = klp_patch_objects(patch, only, cause);
	if (!ret)
		klp_taint();
	return ret;
}

/**
 * klp_enable_object() - push an object's funcs on their func_stacks
 * @obj:	a loaded, resolved, disabled object
 * @cause:	why, for the klp:klp_func_push events
 *
 * Return: 0 on success; otherwise error, with every func pushed so far
 * popped again
 */
int klp_enable_object(struct klp_object *obj, enum klp_cause cause)
{
	lockdep_assert_held(&klp_mutex);

	if (WARN_ON(obj->state != KLP_DISABLED))
		return -EINVAL;

	if (WARN_ON(!klp_is_object_loaded(obj) || !obj->resolved))
		return -EINVAL;

	return klp_enable_objects(obj->patch, obj, cause);
}

/*
 * After the funcs of a patch were popped: the post_unpatch callbacks of
 * the objects that went; the patch stays enabled only if a func could
 * not be popped.
 */
static void klp_unpatched(struct klp_patch *patch, enum klp_cause cause)
{
	struct klp_object *obj;
	bool left = false;

	klp_for_each_object(patch, obj) {
		if (obj->state == KLP_ENABLED)
			left = true;
		else if (klp_is_object_loaded(obj))
			klp_post_unpatch_callback(obj, cause);
	}

	patch->state = left ? KLP_ENABLED : KLP_DISABLED;
}

/*
 * Pop the funcs of every enabled object, then the post_unpatch callbacks
 * of those that went.  Returns 0 or ftrace's error.
 */
static int klp_unpatch_patch(struct klp_patch *patch, enum klp_cause cause)
{
	int ret;

	ret = klp_unpatch_objects(patch, NULL, cause);
	klp_unpatched(patch, cause);
	return ret;
}

/**
 * klp_disable_patch_all() - disable every enabled object of a patch
 * @patch:	the patch
 * @cause:	why, for the klp:klp_func_pop events
 *
 * The objects' pre_unpatch callbacks run first (not when rolling back a
 * failed enable: their post_patch never ran), their post_unpatch ones
 * last.  The patch stays enabled only if a func could not be popped.
 *
 * Return: 0, or the first error
 */
int klp_disable_patch_all(struct klp_patch *patch, enum klp_cause cause)
{
	struct klp_object *obj;

	lockdep_assert_held(&klp_mutex);

	if (cause != KLP_CAUSE_ROLLBACK)
		pr_notice("disabling patch '%s'\n", klp_patch_name(patch));
	if (cause != KLP_CAUSE_ROLLBACK)
		klp_for_each_object(patch, obj)
			if (obj->state == KLP_ENABLED)
				klp_pre_unpatch_callback(obj, cause);

	return klp_unpatch_patch(patch, cause);
}

static int __klp_enable_patch(struct klp_patch *patch)
{
	struct klp_object *obj;
	int ret;

	if (WARN_ON(patch->state != KLP_DISABLED))
		return -EINVAL;

	pr_notice("enabling patch '%s'\n", klp_patch_name(patch));

	/* Every task in the unpatched state: the pushes reach none yet. */
	ret = klp_transition_init(patch, KLP_ENABLED);
	if (ret) {
		klp_trace_failure(patch->objs, NULL, ret);
		return ret;
	}

	klp_for_each_object(patch, obj) {
		ret = klp_load_object(obj);
		if (ret) {
			klp_trace_failure(obj, NULL, ret);
			goto rollback;
		}

		if (!klp_is_object_loaded(obj)) {
			trace_klp_object(klp_next_seq(), klp_patch_name(patch),
					 obj->name, KLP_OBJ_DEFERRED,
					 KLP_CAUSE_ENABLE);
			continue;
		}

		ret = klp_pre_patch_callback(obj, KLP_CAUSE_ENABLE);
		if (ret) {
			klp_trace_failure(obj, NULL, ret);
			goto rollback;
		}
	}

	/* Every loaded object at once: one ftrace update. */
	ret = klp_enable_objects(patch, NULL, KLP_CAUSE_ENABLE);
	if (ret)
		goto rollback;

	patch->state = KLP_ENABLED;
	patch->replaced_by[0] = '\0';
	return 0;

rollback:
	/* No task switched: every object enabled so far goes back. */
	klp_transition_abort();
	klp_disable_patch_all(patch, KLP_CAUSE_ROLLBACK);
	pr_notice("'%s': unpatching complete\n", klp_patch_name(patch));
	return ret;
}

/* Every task to the unpatched state, after the pre_unpatch callbacks. */
static int klp_start_disable(struct klp_patch *patch)
{
	struct klp_object *obj;
	int ret;

	ret = klp_transition_init(patch, KLP_DISABLED);
	if (ret)
		return ret;
	klp_for_each_object(patch, obj)
		if (obj->state == KLP_ENABLED)
			klp_pre_unpatch_callback(obj, KLP_CAUSE_DISABLE);
	return 0;
}

/* Its sysfs directory and its module's reference go, after klp_mutex. */
static void klp_free_patch_work(struct work_struct *work)
{
	struct klp_patch *patch = container_of(work, struct klp_patch,
					       free_work);

	klp_free_patch(patch);
	if (!patch->forced)
		module_put(patch->mod);
}

/**
 * klp_release_patch() - unregister a disabled patch klp_enable_patch() registered
 * @patch:	the patch, disabled or replaced
 *
 * As upstream since 5.1: the patch is freed, its sysfs directory goes and
 * its module can be removed (unless a transition of it was forced).
 */
void klp_release_patch(struct klp_patch *patch)
{
	lockdep_assert_held(&klp_mutex);

	list_del_init(&patch->list);
	trace_klp_patch_unregister(klp_next_seq(), klp_patch_name(patch), 0);
	INIT_WORK(&patch->free_work, klp_free_patch_work);
	klp_queue_free(&patch->free_work);
}

/**
 * klp_transition_complete() - every task reached the target: finish the patch
 * @patch:	the patch of the transition
 * @target:	KLP_ENABLED or KLP_DISABLED
 *
 * The stacks are settled in @target (klp_stacks_settle()).  Enabled: the
 * patches an atomic replace takes over are popped (no task runs their
 * code any more).  Disabled: the funcs are popped.  Then, once no ftrace
 * handler can still send a call to a popped func, the stacks are
 * unmarked (klp_transition_unmark()) and the callbacks run: post_patch,
 * or post_unpatch; a patch that klp_enable_patch() registered, disabled
 * or replaced, is released.  Upstream's order: the callbacks after the
 * transition.
 *
 * Return: 0, or ftrace's error if it refused to unhook some functions of
 * a patch being disabled (they stay patched, and so the patch enabled)
 */
int klp_transition_complete(struct klp_patch *patch, int target)
{
	struct klp_object *obj;
	int ret;

	lockdep_assert_held(&klp_mutex);

	if (target == KLP_ENABLED) {
		if (patch->replace)
			klp_replace_patches(patch);
		klp_transition_unmark();
		klp_for_each_object(patch, obj)
			if (obj->state == KLP_ENABLED)
				klp_post_patch_callback(obj, KLP_CAUSE_ENABLE);
		if (patch->replace)
			klp_replace_finish(patch);
		return 0;
	}

	ret = klp_unpatch_objects(patch, NULL, KLP_CAUSE_DISABLE);
	klp_transition_unmark();
	klp_unpatched(patch, KLP_CAUSE_DISABLE);
	if (patch->state == KLP_ENABLED) {
		pr_err("patch '%s' stays applied: ftrace refused to unhook some of its functions\n",
		       klp_patch_name(patch));
		return ret ?: -EIO;
	}
	patch->enabled_ns = 0;
	if (patch->enable_only)
		klp_release_patch(patch);
	return 0;
}

static int klp_set_patch_state_locked(struct klp_patch *patch, int state)
{
	bool start = false;
	u64 seq;
	int ret;

	lockdep_assert_held(&klp_mutex);

	/*
	 * A patch that cannot take over the states of those enabled is
	 * refused first, as upstream's klp_enable_patch() does: the same
	 * error whether or not a transition runs.
	 */
	if (state == KLP_ENABLED && patch->state == KLP_DISABLED &&
	    !klp_in_transition(patch)) {
		ret = klp_check_states(patch);
		if (ret) {
			trace_klp_enable_failed(klp_next_seq(),
						klp_patch_name(patch), "", "", ret);
			goto trace;
		}
	}
	ret = klp_transition_request(patch, state);
	if (ret <= 0)
		goto trace;
	if (state == patch->state) {
		ret = -EINVAL;
	} else if (state == KLP_ENABLED) {
		/* the newest while its callbacks run (klp_get_prev_state()) */
		patch->enable_seq = U64_MAX;
		ret = __klp_enable_patch(patch);
		start = !ret;
		if (ret)
			patch->enable_seq = 0;
	} else {
		ret = klp_start_disable(patch);
		start = !ret;
	}
	if (start && state == KLP_ENABLED)
		patch->enabled_ns = ktime_get_real_ns();
trace:
	if (state == KLP_ENABLED) {
		seq = klp_next_seq();
		if (start)
			patch->enable_seq = seq;
		trace_klp_patch_enable(seq, klp_patch_name(patch), ret);
	} else {
		trace_klp_patch_disable(klp_next_seq(), klp_patch_name(patch),
					ret);
	}
	/* a disable whose transition completes at once can fail in ftrace */
	if (start)
		ret = klp_transition_start();
	return ret;
}

/**
 * klp_set_patch_state() - enable or disable a patch if it is registered
 * @patch:	any pointer a caller was handed as a patch
 * @state:	KLP_ENABLED or KLP_DISABLED
 * @unregistered: the error if @patch is not registered (the API says
 *		-EINVAL, as upstream; sysfs -ENODEV for a patch going away)
 *
 * Takes klp_mutex.  Writing the current state is refused.  Emits
 * klp:klp_patch_enable or klp:klp_patch_disable with the result.
 *
 * Return: 0 on success, otherwise error
 */
int klp_set_patch_state(struct klp_patch *patch, int state, int unregistered)
{
	int ret;

	mutex_lock(&klp_mutex);
	if (klp_is_patch_registered(patch))
		ret = klp_set_patch_state_locked(patch, state);
	else
		ret = unregistered;
	mutex_unlock(&klp_mutex);
	return ret;
}

static bool klp_patch_registered(struct klp_patch *patch)
{
	bool ret;

	mutex_lock(&klp_mutex);
	ret = klp_is_patch_registered(patch);
	mutex_unlock(&klp_mutex);
	return ret;
}

/**
 * klpcore_enable_patch() - enable a patch (klp_enable_patch())
 * @patch:	The disabled patch to be enabled
 *
 * Pushes each patched function's replacement on the function's func_stack,
 * where it wins until disabled.  On failure every function already pushed
 * is popped again.  A patch not registered yet is registered first, as
 * upstream's klp_enable_patch() does since 5.1 (a module written to it
 * only calls this), and unregistered again if the enable fails.
 *
 * Return: 0 on success, otherwise error
 */
int klpcore_enable_patch(struct klp_patch *patch)
{
	int ret;

	if (!patch || klp_patch_registered(patch))
		return klp_set_patch_state(patch, KLP_ENABLED, -EINVAL);

	ret = klpcore_register_patch(patch);
	if (ret)
		return ret;
	patch->enable_only = true;
	ret = klp_set_patch_state(patch, KLP_ENABLED, -EINVAL);
	if (ret)
		klpcore_unregister_patch(patch);
	return ret;
}
EXPORT_SYMBOL_GPL(klpcore_enable_patch);

/**
 * klpcore_disable_patch() - disable a registered patch (klp_disable_patch())
 * @patch:	The registered, enabled patch to be disabled
 *
 * Pops the patch's functions off their func_stacks: each function falls
 * back to the func below or, with none left, to the original code.
 *
 * Return: 0 on success, otherwise error
 */
int klpcore_disable_patch(struct klp_patch *patch)
{
	return klp_set_patch_state(patch, KLP_DISABLED, -EINVAL);
}
EXPORT_SYMBOL_GPL(klpcore_disable_patch);

static int __init klp_init(void)
{
	int ret;

	ret = klp_symbols_init();
	if (ret)
		return ret;

	ret = klp_sysfs_init();
	if (ret)
		goto out_symbols;

	ret = klp_transition_setup();
	if (ret)
		goto out_sysfs;

	ret = klp_module_init();
	if (ret)
		goto out_transition;

	klp_debugfs_init();

	pr_info("live patching core ready at %s\n", KLP_SYSFS_ROOT);
	return 0;

out_transition:
	klp_transition_cleanup();
out_sysfs:
	klp_sysfs_exit();
out_symbols:
	klp_symbols_exit();
	return ret;
}

/* Reached only with no patch registered: each patch module pins us. */
static void __exit klp_exit(void)
{
	klp_debugfs_exit();
	klp_shadow_exit();
	klp_ftrace_exit();
	klp_module_exit();
	klp_transition_cleanup();
	klp_sysfs_exit();
	klp_symbols_exit();
}

module_init(klp_init);
module_exit(klp_exit);
MODULE_LICENSE("GPL");
MODULE_AUTHOR("klp developers");
MODULE_DESCRIPTION("Observable live patching core for stock kernels");
