// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * reloc.c - the klp_reloc relocations of a patch module (seed 003)
 *
 * A patch module's references into the object it patches (or to symbols
 * exported by vmlinux and modules) are written when the object is loaded.
 * A relocation to a symbol exported by another module pins that module
 * with a reference, as the module loader pins the modules a module uses:
 * the patch module holds the written address for as long as it exists, so
 * the reference is dropped only when the patch module goes away (a patch
 * module can only go when its init fails), or when the exporter does (only
 * if its own init fails: it was pinned while still COMING).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/elf.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/slab.h>
#include "compat.h"
#include "core.h"
#include "symbols.h"

/**
 * struct klp_modref - a reference a patch module holds on another module
 * @node:	node in klp_modrefs
 * @user:	the patch module whose relocation names a symbol of @owner
 * @owner:	the module exporting that symbol, pinned
 */
struct klp_modref {
	struct list_head node;
	struct module *user;
	struct module *owner;
};

/* Every module reference our relocations hold; klp_mutex. */
static LIST_HEAD(klp_modrefs);

static bool klp_modref_held(struct module *user, struct module *owner)
{
	struct klp_modref *ref;

	list_for_each_entry(ref, &klp_modrefs, node)
		if (ref->user == user && ref->owner == owner)
			return true;
	return false;
}

/* Pin the module that exports @name at @addr, if another module does. */
static int klp_pin_exporter(struct module *pmod, const char *name,
			    unsigned long addr)
{
	struct klp_modref *ref;
	struct module *owner;
	int ret = 0;

	ref = kzalloc(sizeof(*ref), GFP_KERNEL);
	if (!ref)
		return -ENOMEM;
	klp_mem_alloc(KLP_MEM_MODREF);

	preempt_disable();
	owner = klp_module_address(addr);
	if (!owner || owner == pmod || klp_modref_held(pmod, owner)) {
		owner = NULL;
	} else if (!try_module_get(owner)) {
		pr_err("module '%s' exporting symbol '%s' is going away\n",
		       owner->name, name);
		ret = -ENODEV;
		owner = NULL;
	}
	preempt_enable();

	if (!owner) {
		kfree(ref);
		klp_mem_free(KLP_MEM_MODREF);
		return ret;
	}
	ref->user = pmod;
	ref->owner = owner;
	list_add(&ref->node, &klp_modrefs);
	pr_debug("patch module '%s' pins module '%s' (symbol '%s')\n",
		 pmod->name, owner->name, name);
	return 0;
}

/**
 * klp_put_module_refs() - drop the references a going module held or was held by
 * @mod:	the module going away
 *
 * A patch module's references go with it.  An exporter is pinned, so it
 * goes only if its init fails (try_module_get() succeeds while it is
 * COMING, as it must for a module still probing when a patch loads):
 * then the reference on it is dropped too, and the relocations written
 * to its symbols are stale, which the log says.
 */
void klp_put_module_refs(struct module *mod)
{
	struct klp_modref *ref, *tmp;

	lockdep_assert_held(&klp_mutex);

	list_for_each_entry_safe(ref, tmp, &klp_modrefs, node) {
		if (ref->user != mod && ref->owner != mod)
			continue;
		if (ref->owner == mod)
			pr_err("module '%s' went away in its init: the relocations of patch module '%s' to its symbols are stale\n",
			       mod->name, ref->user->name);
		module_put(ref->owner);
		list_del(&ref->node);
		kfree(ref);
		klp_mem_free(KLP_MEM_MODREF);
	}
}

/*
 * Write one relocation in @mod: the location must lie wholly inside the
 * module's core image (see klp_module_loc()).  Its read-only part (text,
 * rodata, ro_after_init) is written through text_poke(), the rest
 * directly.
 */
static int klp_write_module_reloc(struct module *mod, unsigned long type,
				  unsigned long loc, unsigned long value)
{
	enum klp_loc where;
	unsigned long val;
	size_t size = 4;
	s64 sval;

	switch (type) {
	case R_X86_64_NONE:
		return 0;
	case R_X86_64_64:
		val = value;
		size = 8;
		break;
	case R_X86_64_32:
		if (value != (u32)value)
			goto overflow;
		val = (u32)value;
		break;
	case R_X86_64_32S:
		if ((s64)value != (s32)value)
			goto overflow;
		val = (u32)(s32)value;
		break;
	case R_X86_64_PC32:
	case R_X86_64_PLT32:
		/* gcc emits PLT32 for calls: in the kernel it is PC32 */
		sval = (s64)(value - loc);
		if (sval != (s32)sval)
			goto overflow;
		val = (u32)sval;
		break;
	default:
		pr_err("unsupported relocation type %lu at 0x%lx in module '%s'\n",
		       type, loc, mod->name);
		return -EINVAL;
	}

	where = klp_module_loc(mod, loc, size);
	if (where == KLP_LOC_OUTSIDE) {
		pr_err("relocation at 0x%lx lies outside module '%s'\n",
		       loc, mod->name);
		return -EINVAL;
	}

	if (where == KLP_LOC_RO)
		klp_text_write((void *)loc, &val, size);
	else
		memcpy((void *)loc, &val, size);
	return 0;

overflow:
	pr_err("relocation value 0x%lx overflows type %lu at 0x%lx in module '%s'\n",
	       value, type, loc, mod->name);
	return -ERANGE;
}

/* Resolve reloc->val: verified (vmlinux), or found by name. */
static int klp_resolve_reloc(struct module *pmod, struct klp_object *obj,
			     struct klp_reloc *reloc)
{
	int ret;

	if (!klp_is_module(obj))
		return klp_verify_vmlinux_symbol(reloc->name, reloc->val);
	if (!reloc->external)
		return klp_find_object_symbol(obj->mod->name, reloc->name, 0,
					      &reloc->val);

	/* exported by vmlinux or a module, or in the patch module itself */
	ret = klp_find_exported_symbol(reloc->name, &reloc->val);
	if (!ret)
		return klp_pin_exporter(pmod, reloc->name, reloc->val);
	return klp_find_object_symbol(pmod->name, reloc->name, 0,
				      &reloc->val);
}

/**
 * klp_write_object_relocations() - resolve and write an object's relocations
 * @pmod:	the patch module holding the relocation sites
 * @obj:	a loaded object
 *
 * Return: 0 on success, otherwise the first error (named in the log)
 */
int klp_write_object_relocations(struct module *pmod, struct klp_object *obj)
{
	struct klp_reloc *reloc;
	int ret;

	lockdep_assert_held(&klp_mutex);

	for (reloc = obj->relocs; reloc && reloc->name; reloc++) {
		ret = klp_resolve_reloc(pmod, obj, reloc);
		if (ret)
			return ret;

		ret = klp_write_module_reloc(pmod, reloc->type, reloc->loc,
					     reloc->val + reloc->addend);
		if (ret) {
			pr_err("relocation failed for symbol '%s' at 0x%016lx (%d)\n",
			       reloc->name, reloc->val, ret);
			return ret;
		}
	}

	return 0;
}
