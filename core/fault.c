// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fault.c - the test build's knobs: fail the Nth pass through a named step
 * of the enable path, hold the ftrace handler, read a stack as unreliable
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include "fault.h"

#define KLP_FAULT_SITE_LEN 32

static DEFINE_SPINLOCK(klp_fault_lock);
static char klp_fault_site[KLP_FAULT_SITE_LEN];
static unsigned int klp_fault_nth;

int klp_fault(const char *site)
{
	int ret = 0;

	spin_lock(&klp_fault_lock);
	if (klp_fault_nth && !strcmp(site, klp_fault_site) && !--klp_fault_nth) {
		ret = strncmp(site, "alloc", 5) ? -EIO : -ENOMEM;
		pr_notice("fault injection: failing '%s' (%d)\n", site, ret);
	}
	spin_unlock(&klp_fault_lock);
	return ret;
}

static int klp_fault_set(const char *val, const struct kernel_param *kp)
{
	char site[KLP_FAULT_SITE_LEN];
	unsigned int nth;

	if (sscanf(val, "%31s %u", site, &nth) != 2)
		return -EINVAL;

	spin_lock(&klp_fault_lock);
	strscpy(klp_fault_site, site, sizeof(klp_fault_site));
	klp_fault_nth = nth;
	spin_unlock(&klp_fault_lock);
	return 0;
}

static int klp_fault_get(char *buf, const struct kernel_param *kp)
{
	int len;

	spin_lock(&klp_fault_lock);
	len = sysfs_emit(buf, "%s %u\n", klp_fault_nth ? klp_fault_site : "-",
			 klp_fault_nth);
	spin_unlock(&klp_fault_lock);
	return len;
}

static const struct kernel_param_ops klp_fault_ops = {
	.set = klp_fault_set,
	.get = klp_fault_get,
};
module_param_cb(fault_inject, &klp_fault_ops, NULL, 0600);
MODULE_PARM_DESC(fault_inject, "debug: \"<site> <nth>\" fails the nth pass through an enable step");

static char *call_check;
module_param(call_check, charp, 0400);
MODULE_PARM_DESC(call_check, "debug: check at load that this function may be called through a pointer (IBT)");

const char *klp_fault_call_check(void)
{
	return call_check;
}

static unsigned int redirect_delay_ms;
module_param(redirect_delay_ms, uint, 0600);
MODULE_PARM_DESC(redirect_delay_ms, "debug: the ftrace handler waits this long between reading the winner and the transition mark");

void notrace klp_fault_redirect_delay(void)
{
	unsigned int ms = READ_ONCE(redirect_delay_ms);
	u64 end;

	if (!ms)
		return;
	/*
	 * By the clock, not mdelay()'s calibrated loop: under TCG a loop
	 * calibrated while the host was busy runs many times too fast.
	 */
	end = ktime_get_mono_fast_ns() + (u64)ms * NSEC_PER_MSEC;
	while (ktime_get_mono_fast_ns() < end)
		cpu_relax();
}

static int unreliable_pid;
module_param(unreliable_pid, int, 0600);
MODULE_PARM_DESC(unreliable_pid, "debug: the stack of the task with this pid reads as unreliable: it never switches");

bool klp_fault_unreliable(struct task_struct *t)
{
	int pid = READ_ONCE(unreliable_pid);

	return pid && t->pid == pid;
}
