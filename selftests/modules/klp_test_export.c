// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * klp_test_export.c - a module exporting a symbol that a patch module's
 * external relocation names (klp_test_reloc ext=1): the core must pin it.
 *
 *   init_delay_ms=N  its init sleeps N ms first (state COMING, as a driver
 *                    probing at boot)
 *   fail_init=1      then its init fails, so it goes away pinned
 */
#include <linux/delay.h>
#include <linux/module.h>

unsigned long klp_test_exported = 0xe4907;
EXPORT_SYMBOL_GPL(klp_test_exported);

static unsigned int init_delay_ms;
module_param(init_delay_ms, uint, 0400);
MODULE_PARM_DESC(init_delay_ms, "sleep this long in the module's init");
static bool fail_init;
module_param(fail_init, bool, 0400);
MODULE_PARM_DESC(fail_init, "fail the init after the sleep");

static int __init klp_test_export_init(void)
{
	msleep(init_delay_ms);
	return fail_init ? -EIO : 0;
}

static void __exit klp_test_export_exit(void)
{
}

module_init(klp_test_export_init);
module_exit(klp_test_export_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("klp selftests: an exporter for external relocations");
