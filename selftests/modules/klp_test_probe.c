// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * klp_test_probe.c - a patch built from module parameters, for the
 * selftests of symbol resolution and rollback
 *
 *   objname=NAME     object (module) to patch; unset: vmlinux
 *   funcs=F1[,F2..]  up to four functions, each replaced by a function
 *                    returning 9000 + its index
 *   old_addr=ADDR    old_addr hint of the first function
 *   sympos=P1[,P2..] old_sympos of the functions, in order
 *   enable=0         only register
 *
 * A registration or enable that fails makes the module load fail, so the
 * same module can probe again.
 */
#include <linux/module.h>
#include "klp_test_module.h"

static char *objname;
module_param(objname, charp, 0400);
static char *func_names[4];
static int nr_funcs;
module_param_array_named(funcs, func_names, charp, &nr_funcs, 0400);
static unsigned long old_addr;
module_param(old_addr, ulong, 0400);

static unsigned long sympos[4];
static int nr_sympos;
module_param_array(sympos, ulong, &nr_sympos, 0400);
static bool enable = true;
module_param(enable, bool, 0400);

static int klp_probe_new0(void) { return 9000; }
static int klp_probe_new1(void) { return 9001; }
static int klp_probe_new2(void) { return 9002; }
static int klp_probe_new3(void) { return 9003; }

static void *const klp_probe_new[4] = {
	klp_probe_new0, klp_probe_new1, klp_probe_new2, klp_probe_new3,
};

static struct klp_func funcs[5];
static struct klp_object objs[2] = { { .funcs = funcs, }, { } };
static struct klp_patch patch = { .mod = THIS_MODULE, .objs = objs, };

static int __init klp_probe_init(void)
{
	int i;

	for (i = 0; i < nr_funcs; i++) {
		funcs[i].old_name = func_names[i];
		funcs[i].new_func = klp_probe_new[i];
		funcs[i].old_sympos = i < nr_sympos ? sympos[i] : 0;
	}
	funcs[0].old_addr = old_addr;
	objs[0].name = objname;

	return klp_test_register_enable(&patch, enable);
}

static void __exit klp_probe_exit(void)
{
}

module_init(klp_probe_init);
module_exit(klp_probe_exit);
MODULE_LICENSE("GPL");
