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

#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/string.h>
#include <asm/page_types.h>
#include "compat.h"
#include "core.h"
#include "fault.h"
#include "lookup.h"
#include "symbols.h"
#include "tramp.h"

typedef int (*klp_match_fn_t)(void *data, unsigned long addr);

static unsigned long (*klp_kallsyms_lookup_name)(const char *name);
static int (*klp_kallsyms_on_each_match_symbol)(klp_match_fn_t fn,
						const char *name, void *data);
static void *klp_module_kallsyms_on_each_symbol;
static struct module *(*klp_find_module_fn)(const char *name);
static struct module *(*klp_module_address_fn)(unsigned long addr);
static unsigned long (*klp_ftrace_location_fn)(unsigned long addr);
static int (*klp_size_offset_fn)(unsigned long addr, unsigned long *size,
				 unsigned long *offset);
static void *(*klp_text_poke)(void *addr, const void *opcode, size_t len);
static struct mutex *klp_text_mutex;
static int *klp_ftrace_enabled_p;
static unsigned long klp_text_start;
static unsigned long klp_sinittext, klp_einittext;

/* A function's address, from a kprobe registered on it by name. */
static unsigned long klp_kprobe_addr(const char *name)
{
	struct kprobe kp = { .symbol_name = name };
	unsigned long addr;

	if (register_kprobe(&kp))
		return 0;
	addr = klp_kprobe_func_addr((unsigned long)kp.addr);
	unregister_kprobe(&kp);
	return addr;
}

unsigned long klp_lookup_name(const char *name)
{
	return klp_kallsyms_lookup_name(name);
}

/*
 * A function the core calls through a pointer: called directly if it may
 * be (it starts with ENDBR64, or the kernel has no IBT), else through its
 * trampoline (tramp.c).  A function with no trampoline that may not be
 * called through a pointer makes the core refuse to load, naming it:
 * calling it would fault on CET hardware, and QEMU TCG does not enforce
 * IBT, so this check is the only guard.
 */
static int klp_set_call(const char *name, unsigned long addr, void *ptr,
			int slot)
{
	void *tramp;

	if (klp_callable(addr)) {
		*(unsigned long *)ptr = addr;
		return 0;
	}
	if (slot < 0) {
		pr_err("function '%s' does not start with ENDBR64 (IBT: sealed or never address-taken) and klp has no trampoline for it: calling it through a pointer would fault on CET hardware: refusing to load\n",
		       name);
		return -ENOEXEC;
	}
	tramp = klp_tramp_use(slot, addr, name);
	if (!tramp)
		return -ENOEXEC;
	*(void **)ptr = tramp;
	return 0;
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

/* A function the core will call through ptr; slot: its trampoline or -1. */
static int klp_resolve_call(const char *name, void *ptr, int slot)
{
	unsigned long addr;

	return klp_resolve(name, &addr) ?: klp_set_call(name, addr, ptr, slot);
}

/**
 * klp_resolve_function() - find a kernel function to call through a pointer
 * @name:	its name
 * @ptr:	where its address (or its trampoline's) goes
 * @slot:	its trampoline, enum klp_tramp_slot, for an IBT kernel
 *
 * Return: 0, or an error naming it in the log
 */
int klp_resolve_function(const char *name, void *ptr, int slot)
{
	return klp_resolve_call(name, ptr, slot);
}

/**
 * klp_function_size() - the size of the function that starts at an address
 * @addr:	a function's first byte (a patched function or a new_func)
 * @size:	set to its size in bytes
 *
 * The consistency model checks a task's stack against whole functions,
 * so a function whose extent kallsyms does not know cannot be patched
 * (upstream's klp_init_object_loaded() refuses it too).
 *
 * Return: 0, -ENOENT if kallsyms has no symbol there, -EINVAL if @addr is
 * not a symbol's start or the symbol is empty
 */
int klp_function_size(unsigned long addr, unsigned long *size)
{
	unsigned long offset = 0;

	*size = 0;
	if (!klp_size_offset_fn(addr, size, &offset))
		return -ENOENT;
	if (offset || !*size) {
		*size = 0;
		return -EINVAL;
	}
	return 0;
}

/**
 * klp_resolve_data() - find a kernel variable by name
 * @name:	its name
 * @ptr:	where its address goes
 *
 * Return: 0, or an error naming it in the log
 */
int klp_resolve_data(const char *name, void *ptr)
{
	return klp_resolve(name, ptr);
}

static int klp_find_lookup_name(void)
{
	unsigned long addr, check;
	int ret;

	addr = klp_kprobe_addr("kallsyms_lookup_name");
	if (!addr) {
		pr_err("cannot find kallsyms_lookup_name with a kprobe (CONFIG_KPROBES off?): refusing to load\n");
		return -ENOENT;
	}
	ret = klp_set_call("kallsyms_lookup_name", addr,
			   &klp_kallsyms_lookup_name,
			   KLP_TRAMP_KALLSYMS_LOOKUP_NAME);
	if (ret)
		return ret;

	/* A second, independent kprobe lookup must agree with kallsyms. */
	check = klp_kprobe_addr("kallsyms_on_each_match_symbol");
	if (!check || klp_kallsyms_lookup_name("kallsyms_on_each_match_symbol") != check) {
		pr_err("kallsyms_lookup_name found by kprobe gives inconsistent answers: refusing to load\n");
		return -EINVAL;
	}
	return 0;
}

/**
 * klp_symbols_init() - find the kernel symbols the core needs by name
 *
 * What the kernel does not export is found through kallsyms; on failure
 * everything done so far is undone with klp_symbols_exit().
 *
 * Return: 0, or an error naming what is missing (the core refuses to load)
 */
int klp_symbols_init(void)
{
	const char *extra = klp_fault_call_check();
	unsigned long unused;
	int ret;

	ret = klp_find_lookup_name() ?:
	      klp_resolve_call("kallsyms_on_each_match_symbol",
			       &klp_kallsyms_on_each_match_symbol,
			       KLP_TRAMP_KALLSYMS_ON_EACH_MATCH_SYMBOL) ?:
	      klp_resolve_call("module_kallsyms_on_each_symbol",
			       &klp_module_kallsyms_on_each_symbol,
			       KLP_TRAMP_MODULE_KALLSYMS_ON_EACH_SYMBOL) ?:
	      klp_resolve_call("find_module", &klp_find_module_fn,
			       KLP_TRAMP_FIND_MODULE) ?:
	      klp_resolve_call("__module_address", &klp_module_address_fn,
			       KLP_TRAMP_MODULE_ADDRESS) ?:
	      klp_resolve_call("text_poke", &klp_text_poke,
			       KLP_TRAMP_TEXT_POKE) ?:
	      klp_resolve_call("ftrace_location", &klp_ftrace_location_fn,
			       KLP_TRAMP_FTRACE_LOCATION) ?:
	      klp_resolve_call("kallsyms_lookup_size_offset",
			       &klp_size_offset_fn,
			       KLP_TRAMP_KALLSYMS_LOOKUP_SIZE_OFFSET) ?:
	      (extra ? klp_resolve_call(extra, &unused, -1) : 0) ?:
	      klp_resolve("text_mutex", &klp_text_mutex) ?:
	      klp_resolve("ftrace_enabled", &klp_ftrace_enabled_p) ?:
	      klp_resolve("_text", &klp_text_start) ?:
	      klp_resolve("_sinittext", &klp_sinittext) ?:
	      klp_resolve("_einittext", &klp_einittext);
	if (ret)
		klp_symbols_exit();
	return ret;
}

/**
 * klp_symbols_exit() - undo klp_symbols_init()
 */
void klp_symbols_exit(void)
{
	klp_tramp_exit();
}

/**
 * klp_ftrace_enabled() - the kernel.ftrace_enabled sysctl
 *
 * Return: false while ftrace is switched off
 */
bool klp_ftrace_enabled(void)
{
	return READ_ONCE(*klp_ftrace_enabled_p);
}

/**
 * klp_ftrace_location() - where ftrace hooks a function
 * @addr:	the function's address
 *
 * The address ftrace passes its handlers as ip for this function (after
 * an ENDBR64 on IBT kernels), as ftrace_set_filter_ip() resolves it.
 *
 * Return: that address, or 0 if the function has no ftrace call site
 */
unsigned long klp_ftrace_location(unsigned long addr)
{
	return klp_ftrace_location_fn(addr);
}

/**
 * klp_module_address() - the module whose memory holds addr
 * @addr:	an address
 *
 * Caller disables preemption (or holds module_mutex), as for
 * __module_address().
 *
 * Return: the module, or NULL (vmlinux, or nothing)
 */
struct module *klp_module_address(unsigned long addr)
{
	return klp_module_address_fn(addr);
}

/**
 * klp_is_init_text() - is addr in text that is freed once init is done
 * @mod:	the module the address belongs to, NULL for vmlinux
 * @addr:	an address
 *
 * Return: true for the __init text of vmlinux or of mod
 */
bool klp_is_init_text(struct module *mod, unsigned long addr)
{
	if (mod)
		return within_module_init(addr, mod);
	return addr >= klp_sinittext && addr < klp_einittext;
}

/**
 * klp_text_write() - write into read-only kernel memory
 * @addr:	where
 * @val:	what
 * @len:	how many bytes
 */
void klp_text_write(void *addr, const void *val, size_t len)
{
	mutex_lock(klp_text_mutex);
	klp_text_poke(addr, val, len);
	mutex_unlock(klp_text_mutex);
}

/* The kernel runs at its link address unless KASLR moved it. */
bool klp_kaslr_active(void)
{
	return klp_text_start != __START_KERNEL;
}

/**
 * klp_find_module_formed() - the module of that name, in its init or live
 * @name:	a module name
 *
 * A module still loading (not yet COMING: its COMING notifiers are still
 * to run) or already going is left to the module notifier.  With
 * klp_mutex held the pointer stays valid: a module going waits for it in
 * our notifier.
 *
 * Return: the module, or NULL
 */
struct module *klp_find_module_formed(const char *name)
{
	struct module *mod;

	lockdep_assert_held(&klp_mutex);
	/* find_module() needs module_mutex or preemption off. */
	preempt_disable();
	mod = klp_find_module_fn(name);
	if (mod && mod->state != MODULE_STATE_LIVE &&
	    mod->state != MODULE_STATE_COMING)
		mod = NULL;
	preempt_enable();
	return mod;
}

struct klp_find_arg {
	const char *name;
	unsigned long pos;	/* the wanted match, 1-based; 0: unique */
	unsigned long addr;	/* of match pos (of the last one for 0) */
	unsigned long count;	/* matches seen */
};

static int klp_match_callback(void *data, unsigned long addr)
{
	struct klp_find_arg *args = data;

	args->count++;
	if (!args->pos || args->count == args->pos)
		args->addr = addr;
	/* Stop at the wanted one; without one, count them all. */
	return args->pos && args->count == args->pos;
}

static int klp_module_callback(void *data, const char *name,
			       unsigned long addr)
{
	struct klp_find_arg *args = data;

	if (strcmp(args->name, name))
		return 0;
	return klp_match_callback(data, addr);
}

/**
 * klp_find_object_symbol() - the address of a symbol of an object
 * @objname:	a module's name, or NULL for vmlinux
 * @name:	the symbol
 * @sympos:	which of the symbols of that name, from 1 in kallsyms order;
 *		0: the name must be unique in the object
 * @addr:	set to its address (0 on failure)
 *
 * Return: 0; -ENOENT when the object has no such symbol, -EINVAL when
 * the name is ambiguous or has no symbol at that position (logged)
 */
int klp_find_object_symbol(const char *objname, const char *name,
			   unsigned long sympos, unsigned long *addr)
{
	struct klp_find_arg args = {
		.name = name,
		.pos = sympos,
	};

	if (objname)
		klp_modsym_walk(klp_module_kallsyms_on_each_symbol, objname,
				klp_module_callback, &args);
	else
		klp_kallsyms_on_each_match_symbol(klp_match_callback, name,
						  &args);

	*addr = 0;
	if (args.count == 0) {
		pr_err("symbol '%s' not found in object '%s'\n", name,
		       objname ?: "vmlinux");
		return -ENOENT;
	}
	if (!sympos && args.count > 1) {
		pr_err("unresolvable ambiguity (%lu matches) on symbol '%s' in object '%s': pick one with old_sympos\n",
		       args.count, name, objname ?: "vmlinux");
		return -EINVAL;
	}
	if (sympos && args.count < sympos) {
		pr_err("symbol position %lu for symbol '%s' in object '%s' not found: it occurs %lu time%s\n",
		       sympos, name, objname ?: "vmlinux", args.count,
		       args.count == 1 ? "" : "s");
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

/**
 * klp_find_exported_symbol() - the value of an exported symbol
 * @name:	the symbol, exported by vmlinux or a module
 * @addr:	set to its value
 *
 * Read from its __ksymtab_<name> entry (found by name): __symbol_get()
 * refuses symbols that are not GPL-only.
 *
 * Return: 0, or -ENOENT when no such symbol is exported
 */
int klp_find_exported_symbol(const char *name, unsigned long *addr)
{
	char ksymtab[KSYM_NAME_LEN];
	const struct klp_ksymtab_entry *ks;

	if (snprintf(ksymtab, sizeof(ksymtab), "__ksymtab_%s", name) >=
	    sizeof(ksymtab))
		return -ENOENT;
	ks = (void *)klp_kallsyms_lookup_name(ksymtab);
	if (!ks || strcmp(offset_to_ptr(&ks->name_offset), name))
		return -ENOENT;
	*addr = (unsigned long)offset_to_ptr(&ks->value_offset);
	return 0;
}
