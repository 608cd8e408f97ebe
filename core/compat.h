/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * compat.h - every kernel API difference klp meets between the kernels it
 * supports (Debian 12's 6.1 and 6.12), in one place, each with the release
 * that changed it.  Nothing else in core/ tests the kernel version.
 */
#ifndef _KLP_COMPAT_H
#define _KLP_COMPAT_H

#include <linux/ftrace.h>
#include <linux/module.h>
#include <linux/uaccess.h>
#include <linux/version.h>

/* klp_ksymtab_entry below and the R_X86_64_* relocations: x86_64 only. */
#if !defined(CONFIG_X86_64) || !defined(CONFIG_HAVE_ARCH_PREL32_RELOCATIONS)
#error "klp supports x86_64 kernels only"
#endif

/*
 * 6.2 renamed ftrace_instruction_pointer_set() to
 * ftrace_regs_set_instruction_pointer().
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 2, 0)
#define klp_set_ip(fregs, ip)	ftrace_instruction_pointer_set(fregs, ip)
#else
#define klp_set_ip(fregs, ip)	ftrace_regs_set_instruction_pointer(fregs, ip)
#endif

/*
 * 6.2 ("livepatch: Improve the search performance of
 * module_kallsyms_on_each_symbol()") gave module_kallsyms_on_each_symbol()
 * the name of the module to walk and took the struct module argument off
 * its callback.  klp_modsym_walk() calls the kernel's walker (@walk, found
 * by name) with a callback of the newer form on either kernel.
 */
typedef int (*klp_modsym_fn_t)(void *data, const char *name,
			       unsigned long addr);

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 2, 0)
struct klp_modsym_walk_arg {
	const char *modname;
	klp_modsym_fn_t fn;
	void *data;
};

static inline int klp_modsym_one(void *data, const char *name,
				 struct module *mod, unsigned long addr)
{
	struct klp_modsym_walk_arg *arg = data;

	if (strcmp(arg->modname, mod->name))
		return 0;
	return arg->fn(arg->data, name, addr);
}

static inline int klp_modsym_walk(void *walk, const char *modname,
				  klp_modsym_fn_t fn, void *data)
{
	int (*walk61)(int (*fn)(void *, const char *, struct module *,
				unsigned long), void *data) = walk;
	struct klp_modsym_walk_arg arg = {
		.modname = modname,
		.fn = fn,
		.data = data,
	};

	return walk61(klp_modsym_one, &arg);
}
#else
static inline int klp_modsym_walk(void *walk, const char *modname,
				  klp_modsym_fn_t fn, void *data)
{
	int (*walk62)(const char *modname, klp_modsym_fn_t fn,
		      void *data) = walk;

	return walk62(modname, fn, data);
}
#endif

/*
 * 6.10 ("tracing/treewide: Remove second parameter of __assign_str()"):
 * __assign_str() takes the source from the __string() declaration.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 10, 0)
#define klp_assign_str(dst, src)	__assign_str(dst, src)
#else
#define klp_assign_str(dst, src)	__assign_str(dst)
#endif

/*
 * An exported symbol's __ksymtab_<name> entry.  6.1 declares struct
 * kernel_symbol in <linux/export.h>; by 6.12 it is private to
 * kernel/module/ (internal.h), with the same layout: on x86_64
 * (CONFIG_HAVE_ARCH_PREL32_RELOCATIONS) three offsets relative to each
 * field.
 */
struct klp_ksymtab_entry {
	int value_offset;
	int name_offset;
	int namespace_offset;
};

/* What klp_module_loc() found at a relocation site. */
enum klp_loc {
	KLP_LOC_OUTSIDE,	/* not wholly inside the module's core image */
	KLP_LOC_RW,		/* writable data */
	KLP_LOC_RO,		/* text, rodata or ro_after_init */
};

/*
 * 6.4 ("module: replace module_layout with module_memory") split a
 * module's core image into one allocation per kind (mod->mem[MOD_TEXT],
 * ...); before, core_layout held it all, read-only up to
 * ro_after_init_size.
 */
static inline enum klp_loc klp_module_loc(struct module *mod,
					  unsigned long loc, size_t size)
{
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 4, 0)
	unsigned long base = (unsigned long)mod->core_layout.base;

	if (loc < base || loc + size > base + mod->core_layout.size ||
	    loc + size < loc)
		return KLP_LOC_OUTSIDE;
	return loc < base + mod->core_layout.ro_after_init_size ?
	       KLP_LOC_RO : KLP_LOC_RW;
#else
	for_each_mod_mem_type(type) {
		unsigned long base = (unsigned long)mod->mem[type].base;

		if (!mod_mem_type_is_core(type) || loc < base ||
		    loc + size > base + mod->mem[type].size || loc + size < loc)
			continue;
		return type == MOD_DATA ? KLP_LOC_RW : KLP_LOC_RO;
	}
	return KLP_LOC_OUTSIDE;
#endif
}

/*
 * Indirect Branch Tracking (CONFIG_X86_KERNEL_IBT, Debian's 6.12; not its
 * 6.1): an indirect call must land on an ENDBR64, and on CET hardware the
 * kernel seals (overwrites) the ENDBR of every function whose address it
 * never takes.  A kprobe on a function that starts with ENDBR (or its
 * sealed remains) sits after it, 4 bytes in.
 */
#define KLP_ENDBR64	0xfa1e0ff3U	/* f3 0f 1e fa, little endian */
#define KLP_ENDBR_SEAL	0x001f0f66U	/* osp nopl (%rax): a sealed ENDBR */

static inline u32 klp_insn32(unsigned long addr)
{
	u32 insn = 0;

	if (copy_from_kernel_nofault(&insn, (void *)addr, sizeof(insn)))
		return 0;
	return insn;
}

/* A function's address from the address a kprobe on it got. */
static inline unsigned long klp_kprobe_func_addr(unsigned long kp_addr)
{
	u32 before;

	if (!IS_ENABLED(CONFIG_X86_KERNEL_IBT))
		return kp_addr;
	before = klp_insn32(kp_addr - 4);
	return before == KLP_ENDBR64 || before == KLP_ENDBR_SEAL ?
	       kp_addr - 4 : kp_addr;
}

/* May the function at addr be called through a pointer on this kernel? */
static inline bool klp_callable(unsigned long addr)
{
	return !IS_ENABLED(CONFIG_X86_KERNEL_IBT) ||
	       klp_insn32(addr) == KLP_ENDBR64;
}

#endif /* _KLP_COMPAT_H */
