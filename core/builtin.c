// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * builtin.c - tell whether the kernel's builtin livepatch owns a function
 *
 * When ftrace refuses our IPMODIFY ops for a function, the error is far
 * more useful if it names the builtin livepatch patch that holds it.  This
 * file alone uses the kernel's <linux/livepatch.h>: it walks the builtin's
 * klp_patches under its klp_mutex (both found by name; the builtin never
 * takes our mutex, so there is no lock inversion).
 */

#include <linux/livepatch.h>
#include <linux/mutex.h>
#include <linux/string.h>
#include "builtin.h"
#include "lookup.h"

bool klp_builtin_owner(unsigned long old_addr, char *patch, size_t len)
{
	struct mutex *builtin_mutex;	/* the builtin's klp_mutex */
	struct list_head *builtin_patches;
	struct klp_patch *p;
	struct klp_object *obj;
	struct klp_func *func;
	bool found = false;

	builtin_mutex = (void *)klp_lookup_name("klp_mutex");
	builtin_patches = (void *)klp_lookup_name("klp_patches");
	if (!builtin_mutex || !builtin_patches)
		return false;

	mutex_lock(builtin_mutex);
	list_for_each_entry(p, builtin_patches, list) {
		klp_for_each_object(p, obj) {
			klp_for_each_func(obj, func) {
				if ((unsigned long)func->old_func != old_addr ||
				    !func->patched)
					continue;
				strscpy(patch, p->mod->name, len);
				found = true;
				goto out;
			}
		}
	}
out:
	mutex_unlock(builtin_mutex);
	return found;
}
