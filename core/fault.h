/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef _KLP_FAULT_H
#define _KLP_FAULT_H

struct task_struct;

#ifdef KLP_FAULT_INJECT
/*
 * Test builds only (KLP_FAULT_INJECT=y, see Kbuild): the selftests write
 * "<site> <nth>" to /sys/module/klp/parameters/fault_inject and the nth
 * pass through klp_fault("<site>") fails (-ENOMEM for alloc_* sites, -EIO
 * otherwise), once.  Returns 0 when nothing is armed.
 */
int klp_fault(const char *site);

/*
 * The name in /sys/module/klp/parameters/call_check (set at load): one more
 * function the core checks at load as if it called it through a pointer,
 * to test the IBT refusal path.  NULL when unset.
 */
const char *klp_fault_call_check(void);

/*
 * The ftrace handler calls it between reading the winner and reading the
 * stack's transition mark, on both of its paths (and so before it traces
 * the winner): /sys/module/klp/parameters/redirect_delay_ms holds it there
 * that long, so that a test can complete a transition, pop the winner or
 * free what the handler still reads in between (the races that
 * klp_transition_unmark()'s wait and the grace periods must close).
 */
void klp_fault_redirect_delay(void);

/*
 * The sweep, a CPU stopper and a task's own task_work read the stack of
 * the task whose pid is in /sys/module/klp/parameters/unreliable_pid as
 * unreliable: that task never switches, whatever it runs, as one with
 * an unreliable stack would not.  A test sets it to hold one task of a
 * process in its state while another switches (26-edges: the exec of a
 * thread that is not its group's leader).
 */
bool klp_fault_unreliable(struct task_struct *t);
#else
/* A release build has no knob: every step runs for real. */
static inline int klp_fault(const char *site)
{
	return 0;
}

static inline const char *klp_fault_call_check(void)
{
	return NULL;
}

static inline void klp_fault_redirect_delay(void)
{
}

static inline bool klp_fault_unreliable(struct task_struct *t)
{
	return false;
}
#endif

#endif /* _KLP_FAULT_H */
