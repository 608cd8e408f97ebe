// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * klp_test_poweroff.c - check how the guest harness powers off
 *
 * The guest's PID 1 is a shell reading its script from the host's root
 * over virtio-9p.  Since 6.11 device_shutdown() resets virtio devices, so
 * once a power-off has begun that root is gone: a PID 1 that still reads
 * its script or runs a command then exits, and the kernel panics
 * ("Attempted to kill init").  The harness must therefore power off
 * synchronously, with reboot(2) from a child PID 1 waits for, never
 * asynchronously (sysrq 'o' queues the work on a kworker and returns).
 *
 * Loaded, this module checks that from a power-off-prepare handler, which
 * runs after device_shutdown(), and panics (the failure it stands for, and
 * loud at the guest's console loglevel) if the power-off does not come
 * from a child of PID 1.
 */
#include <linux/module.h>
#include <linux/panic.h>
#include <linux/reboot.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/task.h>

static struct sys_off_handler *klp_poweroff_handler;

static int klp_poweroff_prepare(struct sys_off_data *data)
{
	pid_t ppid;

	rcu_read_lock();
	ppid = task_tgid_nr(rcu_dereference(current->real_parent));
	rcu_read_unlock();
	pr_info("klp_test_poweroff: power off by %s (pid %d, parent %d)\n",
		current->comm, task_pid_nr(current), ppid);
	if ((current->flags & PF_KTHREAD) || ppid != 1)
		panic("klp_test_poweroff: power off by %s, not a child of PID 1: PID 1 races the shutdown of its root\n",
		      current->comm);
	return NOTIFY_DONE;
}

static int __init klp_test_poweroff_init(void)
{
	klp_poweroff_handler =
		register_sys_off_handler(SYS_OFF_MODE_POWER_OFF_PREPARE,
					 SYS_OFF_PRIO_DEFAULT,
					 klp_poweroff_prepare, NULL);
	return PTR_ERR_OR_ZERO(klp_poweroff_handler);
}

static void __exit klp_test_poweroff_exit(void)
{
	unregister_sys_off_handler(klp_poweroff_handler);
}

module_init(klp_test_poweroff_init);
module_exit(klp_test_poweroff_exit);
MODULE_DESCRIPTION("klp selftest: the guest harness powers off from a child of PID 1");
MODULE_LICENSE("GPL");
