// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * state.c - system states: what a patch says it changed, for the patches
 * that come after it (upstream's Documentation/livepatch/system-state.rst)
 *
 * A patch lists the states it changes (struct klp_state: an id, a version
 * and data for its callbacks).  A patch being enabled or disabled finds
 * its own with klp_get_state() and the enabled patches' with
 * klp_get_prev_state(), to take over what they set up.  A patch may be
 * enabled only if it is compatible with the enabled patches: for each of
 * their states it carries the same state at a version at least as high,
 * and a replace patch must carry every one of them.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "core.h"

#define klp_for_each_state(patch, state) \
	for (state = (patch)->states; state && state->id; state++)

/* The patch whose callback runs (callbacks.c), for klp_get_prev_state(). */
struct klp_patch *klp_transition_patch;

/**
 * klpcore_get_state() - a patch's own record of a system state
 *		(klp_get_state())
 * @patch:	a patch
 * @id:		the state's id
 *
 * Return: the state, or NULL if the patch does not list it
 */
struct klp_state *klpcore_get_state(struct klp_patch *patch, unsigned long id)
{
	struct klp_state *state;

	klp_for_each_state(patch, state)
		if (state->id == id)
			return state;
	return NULL;
}
EXPORT_SYMBOL_GPL(klpcore_get_state);

/**
 * klpcore_get_prev_state() - the enabled patches' record of a system state
 *		(klp_get_prev_state())
 * @id:		the state's id
 *
 * For a patch's callbacks: of the patches enabled before the one whose
 * callback runs that list the state, the one registered last (upstream
 * looks only at the patches before it on its list, in the order they
 * were enabled).  Called from anywhere else it finds nothing (and says
 * so once).
 *
 * Return: the state, or NULL
 */
struct klp_state *klpcore_get_prev_state(unsigned long id)
{
	struct klp_state *state, *last = NULL;
	struct klp_patch *patch;

	lockdep_assert_held(&klp_mutex);

	if (!klp_transition_patch) {
		pr_warn_once("klp_get_prev_state() called outside a patch's callbacks\n");
		return NULL;
	}
	list_for_each_entry(patch, &klp_patches, list) {
		if (patch == klp_transition_patch ||
		    patch->state != KLP_ENABLED ||
		    patch->enable_seq > klp_transition_patch->enable_seq)
			continue;
		state = klpcore_get_state(patch, id);
		if (state)
			last = state;
	}
	return last;
}
EXPORT_SYMBOL_GPL(klpcore_get_prev_state);

/**
 * klp_check_states() - may this patch be enabled beside the enabled ones?
 * @patch:	a disabled patch
 *
 * Return: 0, or -EINVAL naming the state that is missing or too old
 */
int klp_check_states(struct klp_patch *patch)
{
	struct klp_state *old_state, *state;
	struct klp_patch *old;

	lockdep_assert_held(&klp_mutex);

	list_for_each_entry(old, &klp_patches, list) {
		if (old == patch || old->state != KLP_ENABLED)
			continue;
		klp_for_each_state(old, old_state) {
			state = klpcore_get_state(patch, old_state->id);
			if (!state && patch->replace) {
				pr_err("patch '%s' would replace patch '%s' but does not carry its system state %lu (version %u)\n",
				       klp_patch_name(patch), klp_patch_name(old),
				       old_state->id, old_state->version);
				return -EINVAL;
			}
			if (state && state->version < old_state->version) {
				pr_err("patch '%s' carries system state %lu at version %u, older than version %u of enabled patch '%s'\n",
				       klp_patch_name(patch), state->id,
				       state->version, old_state->version,
				       klp_patch_name(old));
				return -EINVAL;
			}
		}
	}
	return 0;
}
