/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef _KLP_PATCH_H
#define _KLP_PATCH_H

#include <klp/livepatch.h>
#include <klp/uapi.h>

struct seq_file;

struct ftrace_ops;
struct ftrace_regs;

/* patch.c */
void klp_ftrace_handler(unsigned long ip, unsigned long parent_ip,
			struct ftrace_ops *fops, struct ftrace_regs *fregs);
int klp_patch_objects(struct klp_patch *patch, struct klp_object *only,
		      enum klp_cause cause);
int klp_unpatch_objects(struct klp_patch *patch, struct klp_object *only,
			enum klp_cause cause);
int klp_func_stack_pos(struct klp_func *func, unsigned int *depth);
void klp_show_stacks(struct seq_file *m, const char *prefix);
void klp_stacks_transition(struct klp_patch *patch, bool nops);
void klp_stacks_settle(int target);
bool klp_stacks_settled_changed(void);

/**
 * struct klp_change - a function whose code a transition may change
 * @old_addr:	the function
 * @old_size:	the size of its original code
 * @with:	the func a task in the patched state runs (NULL: original)
 * @without:	the func a task in the unpatched state runs (NULL: original)
 * @name:	the function's name, for the blocked-task events
 */
struct klp_change {
	unsigned long old_addr;
	unsigned long old_size;
	struct klp_func *with;
	struct klp_func *without;
	const char *name;
};

void klp_stacks_walk_changed(struct klp_patch *patch,
			     void (*fn)(void *data,
					const struct klp_change *change),
			     void *data);

/* ftrace.c */
int klp_ftrace_add(unsigned long *ips, unsigned int n);
int klp_ftrace_remove(unsigned long *ips, unsigned int n);
int klp_ftrace_contested(unsigned long *ips, unsigned int n);
bool klp_ftrace_hooked(void);
void klp_ftrace_exit(void);

#endif /* _KLP_PATCH_H */
