// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ftrace.c - the one ftrace_ops that every patched function shares
 *
 * Each patched function's ftrace location is in the filter of a single
 * IPMODIFY ftrace_ops whose handler (patch.c) finds the function's
 * func_stack by ip.  A patch's functions go in or out with one
 * ftrace_set_filter_ips() call, that is one ftrace update (one pass of
 * call-site rewriting) however many functions the patch has; the ops is
 * registered with its first function and unregistered with its last, the
 * one place that waits for ftrace's grace periods.  Per-function ops cost
 * a registration and an unregistration, and with them a tasks-RCU grace
 * period, per function.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ftrace.h>
#include "core.h"
#include "fault.h"
#include "patch.h"

#ifdef CONFIG_HAVE_DYNAMIC_FTRACE_WITH_ARGS
#define KLP_FTRACE_REGS	0
#else
#define KLP_FTRACE_REGS	FTRACE_OPS_FL_SAVE_REGS
#endif

static void notrace klp_probe_handler(unsigned long ip, unsigned long parent_ip,
				      struct ftrace_ops *fops,
				      struct ftrace_regs *fregs)
{
}

/**
 * struct klp_ftrace - the shared ftrace_ops and what it holds
 * @ops:	the ops of every patched function; its handler is
 *		klp_ftrace_handler()
 * @probe:	an ops that changes nothing, registered only to find which
 *		function of a refused batch another IPMODIFY user owns
 * @nr_ips:	functions in @ops's filter; @ops is registered iff nonzero
 */
struct klp_ftrace {
	struct ftrace_ops ops;
	struct ftrace_ops probe;
	unsigned int nr_ips;
};

static struct klp_ftrace klp_ftrace = {
	/*
	 * PERMANENT: kernel.ftrace_enabled cannot be set to 0 while a patch
	 * is applied (it would silently turn every patch off), and a patch
	 * cannot be applied while it is 0.
	 */
	.ops = {
		.func = klp_ftrace_handler,
		.flags = FTRACE_OPS_FL_DYNAMIC | FTRACE_OPS_FL_PERMANENT |
			 FTRACE_OPS_FL_IPMODIFY | KLP_FTRACE_REGS,
	},
	.probe = {
		.func = klp_probe_handler,
		.flags = FTRACE_OPS_FL_DYNAMIC | FTRACE_OPS_FL_IPMODIFY |
			 KLP_FTRACE_REGS,
	},
};

/**
 * klp_ftrace_add() - hook functions, all in one ftrace update
 * @ips:	their ftrace locations, none hooked yet
 * @n:		how many (at least one)
 *
 * The handler must find each function's func_stack from the moment its
 * call site is enabled.
 *
 * Return: 0, or ftrace's error with nothing hooked (-EBUSY: one of them
 * has another IPMODIFY user, see klp_ftrace_contested(); or ftrace is off)
 */
int klp_ftrace_add(unsigned long *ips, unsigned int n)
{
	struct ftrace_ops *ops = &klp_ftrace.ops;
	int ret;

	lockdep_assert_held(&klp_mutex);

	ret = klp_fault("ftrace_set_filter_ips") ?:
	      ftrace_set_filter_ips(ops, ips, n, 0, 0);
	if (ret || klp_ftrace.nr_ips)
		goto out;

	ret = klp_fault("register_ftrace_function") ?:
	      register_ftrace_function(ops);
	if (ret)
		WARN_ON(ftrace_set_filter_ips(ops, ips, n, 1, 0));
out:
	if (!ret)
		klp_ftrace.nr_ips += n;
	return ret;
}

/**
 * klp_ftrace_remove() - unhook functions, all in one ftrace update
 * @ips:	their ftrace locations, all hooked
 * @n:		how many (at least one)
 *
 * The handler may still run for them afterwards, until an RCU grace
 * period has passed: it must then find no func_stack, or an empty one,
 * and let the original run.
 *
 * Return: 0, or ftrace's error with all of them still hooked
 */
int klp_ftrace_remove(unsigned long *ips, unsigned int n)
{
	struct ftrace_ops *ops = &klp_ftrace.ops;
	int ret;

	lockdep_assert_held(&klp_mutex);

	if (WARN_ON(n > klp_ftrace.nr_ips))
		return -EINVAL;

	if (n < klp_ftrace.nr_ips) {
		ret = klp_fault("ftrace_set_filter_ips") ?:
		      ftrace_set_filter_ips(ops, ips, n, 1, 0);
		if (ret)
			return ret;
	} else {
		/* An empty filter would hook every function: unregister first. */
		ret = klp_fault("unregister_ftrace_function") ?:
		      unregister_ftrace_function(ops);
		if (ret)
			return ret;
		WARN_ON(ftrace_set_filter_ips(ops, ips, n, 1, 0));
	}
	klp_ftrace.nr_ips -= n;
	return 0;
}

/**
 * klp_ftrace_hooked() - is the shared ftrace_ops registered
 *
 * Once it is not, no CPU runs its handler any more: unregistering a
 * dynamic ftrace_ops waits for every caller to be done.
 *
 * Return: true while some function is hooked
 */
bool klp_ftrace_hooked(void)
{
	lockdep_assert_held(&klp_mutex);
	return klp_ftrace.nr_ips;
}

/* Does another IPMODIFY user own one of ips? */
static bool klp_ftrace_busy(unsigned long *ips, unsigned int n)
{
	struct ftrace_ops *probe = &klp_ftrace.probe;
	int ret;

	if (ftrace_set_filter_ips(probe, ips, n, 0, 1))
		return false;
	ret = register_ftrace_function(probe);
	if (!ret)
		WARN_ON(unregister_ftrace_function(probe));
	return ret == -EBUSY;
}

/**
 * klp_ftrace_contested() - which function of a refused batch is taken
 * @ips:	the ftrace locations klp_ftrace_add() got -EBUSY for
 * @n:		how many
 *
 * Bisects with a probe ops that changes nothing: 2 log2(n) ftrace
 * registrations, on the failure path only.
 *
 * Return: the index in @ips of a function another IPMODIFY user owns, or
 * -1 if none is (ftrace is off, or the owner went away)
 */
int klp_ftrace_contested(unsigned long *ips, unsigned int n)
{
	unsigned int lo = 0, hi = n, mid;

	lockdep_assert_held(&klp_mutex);

	if (!n || !klp_ftrace_busy(ips, n))
		return -1;
	/* one of ips[lo..hi) is taken */
	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		if (klp_ftrace_busy(ips + lo, mid - lo))
			hi = mid;
		else
			lo = mid;
	}
	return lo;
}

/**
 * klp_ftrace_exit() - free the filters (no function hooked any more)
 */
void klp_ftrace_exit(void)
{
	WARN_ON(klp_ftrace.nr_ips);
	ftrace_free_filter(&klp_ftrace.ops);
	ftrace_free_filter(&klp_ftrace.probe);
}
