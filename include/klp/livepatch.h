/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * livepatch.h - the klp live patching core's API for patch modules
 *
 * The structures and calls of the Linux 3.20 live patching core, served by
 * the loadable klp core module (klp.ko).  A patch module written for that
 * API builds against this header unchanged except for its #include line.
 *
 * The stock kernel already exports klp_enable_patch() for its builtin
 * livepatch, and a module may not export a name the kernel exports, so the
 * core's symbols carry the klpcore_ prefix and the macros below map the
 * seed's names onto them.
 */

#ifndef _KLP_LIVEPATCH_H_
#define _KLP_LIVEPATCH_H_

#include <linux/module.h>
#include <linux/ftrace.h>
#include <linux/kobject.h>
#include <linux/list.h>
#include <linux/workqueue.h>
#include <klp/uapi.h>

/*
 * The seed's enum klp_state, renamed: upstream's struct klp_state (system
 * states, below) took its tag.
 */
enum klp_enable_state {
	KLP_DISABLED,
	KLP_ENABLED
};

/**
 * struct klp_func - function structure for live patching
 * @old_name:	name of the function to be patched
 * @new_func:	pointer to the patched function code
 * @old_addr:	a hint conveying at what address the old function
 *		can be found (optional, vmlinux patches only; ignored
 *		when the running kernel is randomized by KASLR)
 * @old_sympos:	which symbol of that name in the object, counted from 1 in
 *		kallsyms order (as /proc/kallsyms lists them); 0: the name
 *		must be unique in the object
 * @kobj:	kobject for sysfs resources
 * @state:	tracks function-level patch application state
 * @stack_node:	list node for klp_ops func_stack list
 * @obj:	the object this function belongs to
 * @id:		small number naming this (function, replacement) pair in
 *		the klp:klp_redirect tracepoint and in sysfs
 * @old_size:	the size of the old function's code, once resolved
 * @new_size:	the size of new_func's code, once resolved: a task's stack
 *		is checked against both whole (the consistency model)
 */
struct klp_func {
	/* external */
	const char *old_name;
	void *new_func;
	/*
	 * The old_addr field is optional and can be used to resolve
	 * duplicate symbol names in the vmlinux object.  If this
	 * information is not present, the symbol is located by name
	 * with kallsyms. If the name is not unique and old_addr is
	 * not provided, the patch application fails as there is no
	 * way to resolve the ambiguity.
	 */
	unsigned long old_addr;

	/*
	 * A static function's name may occur several times in one object
	 * (one per file that defines it).  old_sympos picks one of them,
	 * and works under KASLR, where old_addr cannot.
	 */
	unsigned long old_sympos;

	/* internal */
	struct kobject kobj;
	enum klp_enable_state state;
	struct list_head stack_node;
	struct klp_object *obj;
	unsigned int id;
	unsigned long old_size;
	unsigned long new_size;
};

/**
 * struct klp_reloc - relocation structure for live patching
 * @loc:	address where the relocation will be written
 * @val:	address of the referenced symbol (optional,
 *		vmlinux	patches only)
 * @type:	ELF relocation type
 * @name:	name of the referenced symbol (for lookup/verification)
 * @addend:	offset from the referenced symbol
 * @external:	symbol is either exported or within the live patch module itself
 */
struct klp_reloc {
	unsigned long loc;
	unsigned long val;
	unsigned long type;
	const char *name;
	int addend;
	int external;
};

struct klp_object;

/**
 * struct klp_callbacks - an object's calls around its patching
 * @pre_patch:		runs before the object's funcs are pushed; an error
 *			stops the enable (or refuses the object's module)
 * @post_patch:		runs once the object (on enable: every loaded
 *			object of the patch) is patched
 * @pre_unpatch:	runs before the object's funcs are popped, if its
 *			post_patch ran
 * @post_unpatch:	runs once they are popped, if its pre_patch
 *			succeeded (or it has none)
 * @post_unpatch_enabled: internal: the post_unpatch callback is due
 *
 * Upstream's Documentation/livepatch/callbacks.rst, without a transition:
 * each runs for a loaded object only (a module object when its module
 * comes or goes), with the core's mutex held, so it must not call the
 * patch API.  Each call is a klp:klp_callback event.
 */
struct klp_callbacks {
	int (*pre_patch)(struct klp_object *obj);
	void (*post_patch)(struct klp_object *obj);
	void (*pre_unpatch)(struct klp_object *obj);
	void (*post_unpatch)(struct klp_object *obj);
	bool post_unpatch_enabled;
};

/**
 * struct klp_object - kernel object structure for live patching
 * @name:	module name (or NULL for vmlinux)
 * @relocs:	relocation entries to be applied at load time
 * @funcs:	function entries for functions to be patched in the object
 *		(may be empty, { }, for an object that has only callbacks)
 * @callbacks:	functions called around patching and unpatching it
 * @kobj:	kobject for sysfs resources
 * @mod:	kernel module associated with the patched object
 *		(NULL for vmlinux)
 * @state:	tracks object-level patch application state
 * @patch:	the patch this object belongs to
 * @resolved:	the loaded object's funcs and relocations are resolved
 */
struct klp_object {
	/* external */
	const char *name;
	struct klp_reloc *relocs;
	struct klp_func *funcs;
	struct klp_callbacks callbacks;

	/* internal */
	struct kobject *kobj;
	struct module *mod;
	enum klp_enable_state state;
	struct klp_patch *patch;
	bool resolved;
};

/**
 * struct klp_state - a system state a patch changes (upstream's
 *		      Documentation/livepatch/system-state.rst)
 * @id:		the state's number, the same in every patch that knows it
 *		(0 ends a patch's array)
 * @version:	which change of it the patch makes; a patch that replaces
 *		others must carry every state they carry, each at a version
 *		at least as high
 * @data:	for the patch's callbacks (klp_get_prev_state() hands over
 *		the previous patch's)
 */
struct klp_state {
	unsigned long id;
	unsigned int version;
	void *data;
};

/**
 * struct klp_patch - patch structure for live patching
 * @mod:	reference to the live patch module
 * @objs:	object entries for kernel objects to be patched
 * @cve:	optional: the CVE ids the patch fixes, comma separated, no
 *		spaces (e.g. "CVE-2024-1086,CVE-2024-26581"); letters, digits
 *		and ",._-" only, at most KLP_CVE_MAX_LEN characters.  Shown as
 *		sysfs <patch>/cve and the cve label of klp-exporter's
 *		klp_patch_info, so a fleet can ask which hosts carry a fix.
 * @states:	optional: the system states the patch changes, ended by an
 *		entry with id 0
 * @replace:	enabling the patch makes it the only enabled one (atomic
 *		replace, upstream's Documentation/livepatch/
 *		cumulative-patches.rst): every other enabled patch is
 *		disabled, without its callbacks, and functions only they
 *		patched return to the original
 * @list:	list node for global list of registered patches
 * @kobj:	kobject for sysfs resources
 * @state:	tracks patch-level application state
 * @enabled_ns:	CLOCK_REALTIME of the enable now in force, 0 while disabled
 * @enable_seq:	the seq of the enable now in force (its klp:klp_patch_enable
 *		event; U64_MAX while that enable runs): a module coming gets
 *		the enabled patches in this order, so the last enabled still
 *		wins; a replace takes over and klp_get_prev_state() looks at
 *		only the patches enabled before
 * @replaced_by: the patch whose enable replaced this one ("" if none did
 *		since this one was last enabled)
 * @enable_only: registered by klp_enable_patch() itself (upstream's API
 *		since 5.1): freed, and its module let go, once disabled or
 *		replaced
 * @forced:	a transition of it was forced: its module stays for good
 * @free_work:	frees an @enable_only patch after klp_mutex is dropped
 */
struct klp_patch {
	/* external */
	struct module *mod;
	struct klp_object *objs;
	const char *cve;
	struct klp_state *states;
	bool replace;

	/* internal */
	struct list_head list;
	struct kobject kobj;
	enum klp_enable_state state;
	u64 enabled_ns;
	u64 enable_seq;
	char replaced_by[KLP_NAME_LEN];
	bool enable_only;
	bool forced;
	struct work_struct free_work;
};

#define klp_register_patch	klpcore_register_patch
#define klp_unregister_patch	klpcore_unregister_patch
#define klp_enable_patch	klpcore_enable_patch
#define klp_disable_patch	klpcore_disable_patch

int klpcore_register_patch(struct klp_patch *patch);
int klpcore_unregister_patch(struct klp_patch *patch);
int klpcore_enable_patch(struct klp_patch *patch);
int klpcore_disable_patch(struct klp_patch *patch);

#define klp_get_state		klpcore_get_state
#define klp_get_prev_state	klpcore_get_prev_state

struct klp_state *klpcore_get_state(struct klp_patch *patch, unsigned long id);
struct klp_state *klpcore_get_prev_state(unsigned long id);

/*
 * Shadow variables (core/shadow.c; upstream's
 * Documentation/livepatch/shadow-vars.rst): data attached to an existing
 * object under a number, for the fields a fix adds to a structure.
 */

/**
 * typedef klp_shadow_ctor_t - fills a new shadow variable
 * @obj:	 its parent
 * @shadow_data: its data, zeroed
 * @ctor_data:	 what the allocating call passed
 *
 * Runs under a spinlock with interrupts off: it must not sleep.
 * Return: 0, or an error that frees the variable
 */
typedef int (*klp_shadow_ctor_t)(void *obj, void *shadow_data,
				 void *ctor_data);

/**
 * typedef klp_shadow_dtor_t - tears a shadow variable down before its free
 * @obj:	 its parent
 * @shadow_data: its data
 *
 * Runs under a spinlock with interrupts off: it must not sleep.
 */
typedef void (*klp_shadow_dtor_t)(void *obj, void *shadow_data);

#define klp_shadow_get		klpcore_shadow_get
#define klp_shadow_alloc	klpcore_shadow_alloc
#define klp_shadow_get_or_alloc	klpcore_shadow_get_or_alloc
#define klp_shadow_free		klpcore_shadow_free
#define klp_shadow_free_all	klpcore_shadow_free_all

void *klpcore_shadow_get(void *obj, unsigned long id);
void *klpcore_shadow_alloc(void *obj, unsigned long id, size_t size,
			   gfp_t gfp_flags, klp_shadow_ctor_t ctor,
			   void *ctor_data);
void *klpcore_shadow_get_or_alloc(void *obj, unsigned long id, size_t size,
				  gfp_t gfp_flags, klp_shadow_ctor_t ctor,
				  void *ctor_data);
void klpcore_shadow_free(void *obj, unsigned long id, klp_shadow_dtor_t dtor);
void klpcore_shadow_free_all(unsigned long id, klp_shadow_dtor_t dtor);

#endif /* _KLP_LIVEPATCH_H_ */
