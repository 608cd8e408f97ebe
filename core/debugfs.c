// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * debugfs.c - the core's state for tools, in debugfs klp/
 *
 * klp/state is the whole state in one read, taken under one hold of
 * klp_mutex, so no transition can tear it.  One record per line, fields
 * separated by one space; names never contain spaces:
 *
 *   seq <n>
 *   patch <patch> <enabled>
 *   info <patch> <srcversion> <cve> <enabled_ns>
 *   replace <patch> <replace> <replaced_by>
 *   object <patch> <object> <loaded>
 *   func <patch> <object> <function> <id> <pos> <depth> <old_addr> <new_func>
 *   stack <object> <function> <depth> <patch>:<id> [<patch>:<id> ...]
 *
 * "seq" comes first: the number of the last transition event the state
 * contains.  A consumer that enabled the klp:* events before the read
 * applies only the events numbered above it.  Patches come in
 * registration order, each followed by its objects, each by its funcs.
 * <pos> is 1 for a function's winner, 2 for the func below it, 0 for a
 * func not on a stack; <depth> is that stack's depth (0 then); addresses
 * are hexadecimal (0 while unresolved).  "info" follows its "patch":
 * the patch module's srcversion (its MODULE_VERSION's source checksum)
 * and the patch's cve, "-" for none, and the CLOCK_REALTIME nanoseconds
 * of the enable in force (0 while disabled).  "replace" follows "info"
 * for a replace patch (<replace> 1) and for a patch a replace patch
 * replaced (<replaced_by> names it; "-" for none).  The "stack" lines repeat klp/stacks,
 * winner first.  New record kinds may come: a parser skips what it does
 * not know.
 *
 * klp/stacks is the "stack" lines alone, without the word; klp/seq the
 * last event number alone; klp/allocated what the core holds allocated,
 * one "<kind> <count>" line per kind (enum klp_mem_kind).  Root only, as
 * the addresses are.
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include "core.h"
#include "patch.h"
#include "transition.h"

static struct dentry *klp_debugfs_dir;

static void klp_show_state(struct seq_file *m)
{
	struct klp_patch *patch;
	struct klp_object *obj;
	struct klp_func *func;
	unsigned int depth;
	int pos;

	lockdep_assert_held(&klp_mutex);

	seq_printf(m, "seq %llu\n", klp_last_seq());
	list_for_each_entry(patch, &klp_patches, list) {
		seq_printf(m, "patch %s %d\n", klp_patch_name(patch),
			   patch->state);
		seq_printf(m, "info %s %s %s %llu\n", klp_patch_name(patch),
			   patch->mod->srcversion ?: "-", patch->cve ?: "-",
			   patch->enabled_ns);
		if (patch->replace || patch->replaced_by[0])
			seq_printf(m, "replace %s %d %s\n",
				   klp_patch_name(patch), patch->replace,
				   patch->replaced_by[0] ? patch->replaced_by : "-");
		klp_for_each_object(patch, obj) {
			seq_printf(m, "object %s %s %d\n", klp_patch_name(patch),
				   klp_obj_name(obj), klp_is_object_loaded(obj));
			klp_for_each_func(obj, func) {
				pos = klp_func_stack_pos(func, &depth);
				seq_printf(m, "func %s %s %s %u %d %u 0x%lx 0x%lx\n",
					   klp_patch_name(patch),
					   klp_obj_name(obj), klp_func_name(func),
					   func->id, pos, depth, func->old_addr,
					   (unsigned long)func->new_func);
			}
		}
	}
	klp_show_stacks(m, "stack ");
	klp_transition_show(m);
}

/*
 * seq_file calls a show function again, from the start, whenever its
 * buffer was too small: each call is one whole, consistent picture.
 */
static int klp_state_show(struct seq_file *m, void *v)
{
	mutex_lock(&klp_mutex);
	klp_show_state(m);
	mutex_unlock(&klp_mutex);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(klp_state);

static int klp_stacks_show(struct seq_file *m, void *v)
{
	mutex_lock(&klp_mutex);
	klp_show_stacks(m, "");
	mutex_unlock(&klp_mutex);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(klp_stacks);

atomic_t klp_allocated[KLP_NR_MEM_KINDS];

static int klp_allocated_show(struct seq_file *m, void *v)
{
	static const char * const names[KLP_NR_MEM_KINDS] = {
		[KLP_MEM_ALIVE_MOD] = "alive_modules",
		[KLP_MEM_STACK] = "func_stacks",
		[KLP_MEM_MODREF] = "module_refs",
		[KLP_MEM_OBJECT_KOBJ] = "object_kobjects",
		[KLP_MEM_SHADOW] = "shadow_vars",
	};
	int i;

	for (i = 0; i < KLP_NR_MEM_KINDS; i++)
		seq_printf(m, "%s %d\n", names[i],
			   atomic_read(&klp_allocated[i]));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(klp_allocated);

static int klp_seq_get(void *data, u64 *val)
{
	*val = klp_last_seq();
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(klp_seq_fops, klp_seq_get, NULL, "%llu\n");

/**
 * klp_debugfs_init() - create debugfs klp/ and its files
 *
 * debugfs is for tools and may be absent: nothing here fails the core.
 */
void klp_debugfs_init(void)
{
	klp_debugfs_dir = debugfs_create_dir("klp", NULL);
	debugfs_create_file("state", 0400, klp_debugfs_dir, NULL,
			    &klp_state_fops);
	debugfs_create_file("stacks", 0400, klp_debugfs_dir, NULL,
			    &klp_stacks_fops);
	debugfs_create_file_unsafe("seq", 0400, klp_debugfs_dir, NULL,
				   &klp_seq_fops);
	debugfs_create_file("allocated", 0400, klp_debugfs_dir, NULL,
			    &klp_allocated_fops);
}

/**
 * klp_debugfs_exit() - remove debugfs klp/
 */
void klp_debugfs_exit(void)
{
	debugfs_remove_recursive(klp_debugfs_dir);
}
