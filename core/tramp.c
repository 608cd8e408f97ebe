// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tramp.c - call kernel functions whose ENDBR64 is sealed (IBT)
 *
 * On an IBT kernel (CONFIG_X86_KERNEL_IBT, Debian's 6.12) an indirect call
 * must land on an ENDBR64, and once IBT is on the kernel seals (turns into
 * a NOP) the ENDBR64 of every function whose address it never takes: an
 * indirect call to one faults with #CP.  The functions klp finds with
 * kallsyms are of that kind (kallsyms_lookup_name, find_module, ...), and a
 * module can reach them only through a pointer.
 *
 * So klp calls a function through a pointer only if it starts with ENDBR64
 * (see klp_callable()), and a sealed one through a trampoline: a function
 * of ours with the same prototype, which the pointer names instead, and
 * whose ftrace hook sets the instruction pointer to the sealed function,
 * exactly as a live patch redirects a patched function.  ftrace enters the
 * target with a return, which IBT does not check.  The trampolines' bodies
 * never run while the hook is registered; its ftrace_ops is PERMANENT, so
 * kernel.ftrace_enabled cannot be switched off under it (on such a kernel,
 * not while klp.ko is loaded).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ftrace.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/workqueue.h>
#include "compat.h"
#include "tramp.h"

struct task_struct;
struct callback_head;
struct cpu_stop_work;

static void klp_tramp_missed(const char *tramp)
{
	WARN_ONCE(1, "klp: %s ran its own body: its ftrace hook is not active\n",
		  tramp);
}

/*
 * The trampolines: the prototypes of their targets; never inlined or
 * cloned, so that each call enters the function ftrace hooks.
 */
static noinline __noclone unsigned long
klp_tramp_kallsyms_lookup_name(const char *name)
{
	klp_tramp_missed(__func__);
	return 0;
}

static noinline __noclone int
klp_tramp_kallsyms_on_each_match_symbol(int (*fn)(void *, unsigned long),
					const char *name, void *data)
{
	klp_tramp_missed(__func__);
	return 0;
}

/* prototype of 6.1 or of 6.2+: see klp_modsym_walk() */
static noinline __noclone int
klp_tramp_module_kallsyms_on_each_symbol(void *a, void *b, void *c)
{
	klp_tramp_missed(__func__);
	return 0;
}

static noinline __noclone struct module *
klp_tramp_find_module(const char *name)
{
	klp_tramp_missed(__func__);
	return NULL;
}

static noinline __noclone struct module *
klp_tramp_module_address(unsigned long addr)
{
	klp_tramp_missed(__func__);
	return NULL;
}

static noinline __noclone void *
klp_tramp_text_poke(void *addr, const void *opcode, size_t len)
{
	klp_tramp_missed(__func__);
	return NULL;
}

static noinline __noclone unsigned long
klp_tramp_ftrace_location(unsigned long ip)
{
	klp_tramp_missed(__func__);
	return 0;
}

/* transition.c's: the consistency model */
static noinline __noclone int
klp_tramp_kallsyms_lookup_size_offset(unsigned long addr, unsigned long *size,
				      unsigned long *offset)
{
	klp_tramp_missed(__func__);
	return 0;
}

static noinline __noclone int
klp_tramp_stack_trace_save_tsk_reliable(struct task_struct *tsk,
					unsigned long *store, unsigned int size)
{
	klp_tramp_missed(__func__);
	return -EOPNOTSUPP;
}

static noinline __noclone int
klp_tramp_task_call_func(struct task_struct *p,
			 int (*func)(struct task_struct *p, void *arg),
			 void *arg)
{
	klp_tramp_missed(__func__);
	return -EOPNOTSUPP;
}

static noinline __noclone bool
klp_tramp_stop_one_cpu_nowait(unsigned int cpu, int (*fn)(void *arg),
			      void *arg, struct cpu_stop_work *work_buf)
{
	klp_tramp_missed(__func__);
	return false;
}

static noinline __noclone int
klp_tramp_schedule_on_each_cpu(work_func_t func)
{
	klp_tramp_missed(__func__);
	return -EOPNOTSUPP;
}

static noinline __noclone int
klp_tramp_wake_up_state(struct task_struct *p, unsigned int state)
{
	klp_tramp_missed(__func__);
	return 0;
}

static noinline __noclone struct task_struct *
klp_tramp_idle_task(int cpu)
{
	klp_tramp_missed(__func__);
	return NULL;
}

static noinline __noclone struct callback_head *
klp_tramp_task_work_cancel_match(struct task_struct *task,
				 bool (*match)(struct callback_head *, void *),
				 void *data)
{
	klp_tramp_missed(__func__);
	return NULL;
}

/**
 * struct klp_tramp - a trampoline and the sealed function it enters
 * @tramp:	the trampoline
 * @target:	the sealed function; 0 while the slot is unused
 */
struct klp_tramp {
	void *tramp;
	unsigned long target;
};

static struct klp_tramp klp_tramps[KLP_TRAMP_NR] = {
	[KLP_TRAMP_KALLSYMS_LOOKUP_NAME] = { klp_tramp_kallsyms_lookup_name },
	[KLP_TRAMP_KALLSYMS_ON_EACH_MATCH_SYMBOL] = {
		klp_tramp_kallsyms_on_each_match_symbol },
	[KLP_TRAMP_MODULE_KALLSYMS_ON_EACH_SYMBOL] = {
		klp_tramp_module_kallsyms_on_each_symbol },
	[KLP_TRAMP_FIND_MODULE] = { klp_tramp_find_module },
	[KLP_TRAMP_MODULE_ADDRESS] = { klp_tramp_module_address },
	[KLP_TRAMP_TEXT_POKE] = { klp_tramp_text_poke },
	[KLP_TRAMP_FTRACE_LOCATION] = { klp_tramp_ftrace_location },
	[KLP_TRAMP_KALLSYMS_LOOKUP_SIZE_OFFSET] = {
		klp_tramp_kallsyms_lookup_size_offset },
	[KLP_TRAMP_STACK_TRACE_SAVE_TSK_RELIABLE] = {
		klp_tramp_stack_trace_save_tsk_reliable },
	[KLP_TRAMP_TASK_CALL_FUNC] = { klp_tramp_task_call_func },
	[KLP_TRAMP_STOP_ONE_CPU_NOWAIT] = { klp_tramp_stop_one_cpu_nowait },
	[KLP_TRAMP_SCHEDULE_ON_EACH_CPU] = { klp_tramp_schedule_on_each_cpu },
	[KLP_TRAMP_WAKE_UP_STATE] = { klp_tramp_wake_up_state },
	[KLP_TRAMP_IDLE_TASK] = { klp_tramp_idle_task },
	[KLP_TRAMP_TASK_WORK_CANCEL_MATCH] = {
		klp_tramp_task_work_cancel_match },
};

/* The fentry call of a function lies within its first 16 bytes. */
#define KLP_TRAMP_FENTRY_MAX	16

static void notrace klp_tramp_handler(unsigned long ip,
				      unsigned long parent_ip,
				      struct ftrace_ops *fops,
				      struct ftrace_regs *fregs)
{
	unsigned long target;
	int i;

	for (i = 0; i < KLP_TRAMP_NR; i++) {
		if (ip - (unsigned long)klp_tramps[i].tramp >= KLP_TRAMP_FENTRY_MAX)
			continue;
		target = READ_ONCE(klp_tramps[i].target);
		if (target)
			klp_set_ip(fregs, target);
		return;
	}
}

static struct ftrace_ops klp_tramp_ops = {
	.func = klp_tramp_handler,
	.flags = FTRACE_OPS_FL_IPMODIFY | FTRACE_OPS_FL_PERMANENT |
#ifndef CONFIG_HAVE_DYNAMIC_FTRACE_WITH_ARGS
		 FTRACE_OPS_FL_SAVE_REGS |
#endif
		 0,
};

static bool klp_tramp_registered;

/**
 * klp_tramp_use() - route calls of a sealed function through its trampoline
 * @slot:	which function
 * @target:	its address
 * @name:	its name, for the log
 *
 * Return: the trampoline, to be called instead of @target; NULL (with an
 * error in the log) if ftrace refused the hook.
 */
void *klp_tramp_use(enum klp_tramp_slot slot, unsigned long target,
		    const char *name)
{
	struct klp_tramp *t = &klp_tramps[slot];
	int ret;

	WRITE_ONCE(t->target, target);
	ret = ftrace_set_filter_ip(&klp_tramp_ops, (unsigned long)t->tramp, 0, 0);
	if (!ret && !klp_tramp_registered) {
		ret = register_ftrace_function(&klp_tramp_ops);
		klp_tramp_registered = !ret;
	}
	if (ret) {
		pr_err("function '%s' has a sealed ENDBR64 (IBT) and its ftrace trampoline cannot be hooked (%d%s): refusing to load\n",
		       name, ret, ret == -EBUSY ? ": is kernel.ftrace_enabled 0?" : "");
		return NULL;
	}
	pr_info("function '%s' has a sealed ENDBR64 (IBT): called through an ftrace trampoline\n",
		name);
	return t->tramp;
}

/**
 * klp_tramp_exit() - unhook the trampolines (none may be called afterwards)
 */
void klp_tramp_exit(void)
{
	if (klp_tramp_registered)
		WARN_ON(unregister_ftrace_function(&klp_tramp_ops));
	klp_tramp_registered = false;
	ftrace_free_filter(&klp_tramp_ops);
}
