// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * klp_test_export.c - a module exporting a symbol that a patch module's
 * external relocation names (klp_test_reloc ext=1): the core must pin it.
 */
#include <linux/module.h>

unsigned long klp_test_exported = 0xe4907;
EXPORT_SYMBOL_GPL(klp_test_exported);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("klp selftests: an exporter for external relocations");
