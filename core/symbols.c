// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * symbols.c - symbol resolution and relocations on a stock 6.x kernel
 *
 * Since 5.7 the kernel exports neither kallsyms_lookup_name() nor the
 * symbol walkers, which killed earlier out-of-tree cores.  We recover
 * kallsyms_lookup_name() from a kprobe registered on it by name (the kprobe
 * core resolves names with the real kallsyms), check the answer against a
 * second kprobe, and then look up everything else we need with it.  If any
 * step fails the core refuses to load, naming what is missing.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/elf.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/string.h>
#include <asm/page_types.h>
#include "core.h"
#include "fault.h"
#include "lookup.h"
#include "symbols.h"

typedef int (*klp_match_fn_t)(void *data, unsigned long addr);
typedef int (*klp_sym_fn_t)(void *data, const char *name, struct module *mod,
			    unsigned long addr);

static unsigned long (*klp_kallsyms_lookup_name)(const char *name);
static int (*klp_kallsyms_on_each_match_symbol)(klp_match_fn_t fn,
						const char *name, void *data);
static int (*klp_module_kallsyms_on_each_symbol)(klp_sym_fn_t fn, void *data);
static struct module *(*klp_find_module_fn)(const char *name);
static void *(*klp_text_poke)(void *addr, const void *opcode, size_t len);
static struct mutex *klp_text_mutex;
static unsigned long (*klp_ftrace_location_fn)(unsigned long ip);
static unsigned long klp_text_start;

static unsigned long klp_kprobe_addr(const char *name)
{
	struct kprobe kp = { .symbol_name = name };
	unsigned long addr;

	if (register_kprobe(&kp))
		return 0;
	addr = (unsigned long)kp.addr;
	unregister_kprobe(&kp);
	return addr;
}

unsigned long klp_lookup_name(const char *name)
{
	return klp_kallsyms_lookup_name(name);
}

static int klp_resolve(const char *name, void *ptr)
{
	unsigned long addr = klp_kallsyms_lookup_name(name);

	if (!addr) {
		pr_err("cannot resolve '%s' on this kernel: refusing to load\n",
		       name);
		return -ENOENT;
	}
	*(unsigned long *)ptr = addr;
	return 0;
}

int klp_symbols_init(void)
{
	unsigned long addr, check;

	addr = klp_kprobe_addr("kallsyms_lookup_name");
	if (!addr) {
		pr_err("cannot find kallsyms_lookup_name with a kprobe (CONFIG_KPROBES off?): refusing to load\n");
		return -ENOENT;
	}
	klp_kallsyms_lookup_name = (void *)addr;

	/* A second, independent kprobe lookup must agree with kallsyms. */
	check = klp_kprobe_addr("kallsyms_on_each_match_symbol");
	if (!check || klp_kallsyms_lookup_name("kallsyms_on_each_match_symbol") != check) {
		pr_err("kallsyms_lookup_name found by kprobe gives inconsistent answers: refusing to load\n");
		return -EINVAL;
	}

	return klp_resolve("kallsyms_on_each_match_symbol",
			   &klp_kallsyms_on_each_match_symbol) ?:
	       klp_resolve("module_kallsyms_on_each_symbol",
			   &klp_module_kallsyms_on_each_symbol) ?:
	       klp_resolve("find_module", &klp_find_module_fn) ?:
	       klp_resolve("text_poke", &klp_text_poke) ?:
	       klp_resolve("text_mutex", &klp_text_mutex) ?:
	       klp_resolve("ftrace_location", &klp_ftrace_location_fn) ?:
	       klp_resolve("_text", &klp_text_start);
}

/* The ftrace call site of the function at addr, or 0 if it has none. */
unsigned long klp_ftrace_location(unsigned long addr)
{
	return klp_ftrace_location_fn(addr);
}

/* The kernel runs at its link address unless KASLR moved it. */
bool klp_kaslr_active(void)
{
	return klp_text_start != __START_KERNEL;
}

/*
 * The module named name, if it is live.  A module still coming or already
 * going is left to the module notifier.  klp_mutex held: a module going
 * waits for it in our notifier, so the pointer stays valid while held.
 */
struct module *klp_find_module(const char *name)
{
	struct module *mod;

	/* find_module() needs module_mutex or preemption off. */
	preempt_disable();
	mod = klp_find_module_fn(name);
	if (mod && mod->state != MODULE_STATE_LIVE)
		mod = NULL;
	preempt_enable();
	return mod;
}

struct klp_find_arg {
	const char *objname;
	const char *name;
	unsigned long addr;
	/* 0: not found; 1: unique, addr set; more: ambiguous */
	unsigned long count;
};

static int klp_match_callback(void *data, unsigned long addr)
{
	struct klp_find_arg *args = data;

	args->addr = addr;
	args->count++;
	return 0;
}

static int klp_module_callback(void *data, const char *name,
			       struct module *mod, unsigned long addr)
{
	struct klp_find_arg *args = data;

	if (strcmp(args->objname, mod->name) || strcmp(args->name, name))
		return 0;

	args->addr = addr;
	args->count++;
	return 0;
}

int klp_find_object_symbol(const char *objname, const char *name,
			   unsigned long *addr)
{
	struct klp_find_arg args = {
		.objname = objname,
		.name = name,
	};

	if (objname)
		klp_module_kallsyms_on_each_symbol(klp_module_callback, &args);
	else
		klp_kallsyms_on_each_match_symbol(klp_match_callback, name,
						  &args);

	*addr = 0;
	if (args.count == 0) {
		pr_err("symbol '%s' not found in object '%s'\n", name,
		       objname ?: "vmlinux");
		return -ENOENT;
	}
	if (args.count > 1) {
		pr_err("unresolvable ambiguity (%lu matches) on symbol '%s' in object '%s'\n",
		       args.count, name, objname ?: "vmlinux");
		return -EINVAL;
	}
	*addr = args.addr;
	return 0;
}

struct klp_verify_arg {
	unsigned long addr;
	bool found;
};

static int klp_verify_callback(void *data, unsigned long addr)
{
	struct klp_verify_arg *args = data;

	if (addr != args->addr)
		return 0;
	args->found = true;
	return 1;
}

int klp_verify_vmlinux_symbol(const char *name, unsigned long addr)
{
	struct klp_verify_arg args = { .addr = addr };

	klp_kallsyms_on_each_match_symbol(klp_verify_callback, name, &args);
	if (args.found)
		return 0;

	pr_err("symbol '%s' not found at specified address 0x%016lx, kernel mismatch?\n",
	       name, addr);
	return -EINVAL;
}

/*
 * An exported symbol's value, read from its __ksymtab_<name> entry (found
 * by name): __symbol_get() refuses symbols that are not GPL-only.
 */
static int klp_find_exported_symbol(const char *name, unsigned long *addr)
{
	char ksymtab[KSYM_NAME_LEN];
	const struct kernel_symbol *ks;

	if (snprintf(ksymtab, sizeof(ksymtab), "__ksymtab_%s", name) >=
	    sizeof(ksymtab))
		return -ENOENT;
	ks = (const struct kernel_symbol *)klp_kallsyms_lookup_name(ksymtab);
	if (!ks)
		return -ENOENT;
#ifdef CONFIG_HAVE_ARCH_PREL32_RELOCATIONS
	if (strcmp(offset_to_ptr(&ks->name_offset), name))
		return -ENOENT;
	*addr = (unsigned long)offset_to_ptr(&ks->value_offset);
#else
	if (strcmp(ks->name, name))
		return -ENOENT;
	*addr = ks->value;
#endif
	return 0;
}

/*
 * External symbols live outside the patched object: exported by vmlinux or
 * a module, or in another .o of the patch module itself.
 */
int klp_find_external_symbol(struct module *pmod, const char *name,
			     unsigned long *addr)
{
	if (!klp_find_exported_symbol(name, addr))
		return 0;
	return klp_find_object_symbol(pmod->name, name, addr);
}

/**
 * klp_write_module_reloc() - write a relocation in a patch module
 * @mod:	the patch module holding the location
 * @type:	ELF relocation type (R_X86_64_*)
 * @loc:	address the relocation is written to
 * @value:	relocation value (symbol address + addend)
 *
 * The location must lie wholly inside the module's core image.  Its
 * read-only part (text, rodata, ro_after_init) is written through
 * text_poke(), the rest directly.
 */
int klp_write_module_reloc(struct module *mod, unsigned long type,
			   unsigned long loc, unsigned long value)
{
	unsigned long core = (unsigned long)mod->core_layout.base;
	unsigned long core_size = mod->core_layout.size;
	unsigned long ro_size = mod->core_layout.ro_after_init_size;
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

	if (loc < core || loc + size > core + core_size || loc + size < loc) {
		pr_err("relocation at 0x%lx lies outside module '%s' [0x%lx-0x%lx)\n",
		       loc, mod->name, core, core + core_size);
		return -EINVAL;
	}

	if (loc < core + ro_size) {
		mutex_lock(klp_text_mutex);
		klp_text_poke((void *)loc, &val, size);
		mutex_unlock(klp_text_mutex);
	} else {
		memcpy((void *)loc, &val, size);
	}
	return 0;

overflow:
	pr_err("relocation value 0x%lx overflows type %lu at 0x%lx in module '%s'\n",
	       value, type, loc, mod->name);
	return -ERANGE;
}
