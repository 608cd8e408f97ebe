/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef _KLP_TRAMP_H
#define _KLP_TRAMP_H

#include <linux/types.h>

/* The kernel functions klp may have to call through a trampoline. */
enum klp_tramp_slot {
	KLP_TRAMP_KALLSYMS_LOOKUP_NAME,
	KLP_TRAMP_KALLSYMS_ON_EACH_MATCH_SYMBOL,
	KLP_TRAMP_MODULE_KALLSYMS_ON_EACH_SYMBOL,
	KLP_TRAMP_FIND_MODULE,
	KLP_TRAMP_MODULE_ADDRESS,
	KLP_TRAMP_TEXT_POKE,
	KLP_TRAMP_FTRACE_LOCATION,
	KLP_TRAMP_KALLSYMS_LOOKUP_SIZE_OFFSET,
	KLP_TRAMP_STACK_TRACE_SAVE_TSK_RELIABLE,
	KLP_TRAMP_TASK_CALL_FUNC,
	KLP_TRAMP_STOP_ONE_CPU_NOWAIT,
	KLP_TRAMP_SCHEDULE_ON_EACH_CPU,
	KLP_TRAMP_WAKE_UP_STATE,
	KLP_TRAMP_IDLE_TASK,
	KLP_TRAMP_TASK_WORK_CANCEL_MATCH,
	KLP_TRAMP_NR
};

void *klp_tramp_use(enum klp_tramp_slot slot, unsigned long target,
		    const char *name);
void klp_tramp_exit(void);

#endif /* _KLP_TRAMP_H */
