/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * klp_test_patch.h - body of the stackable test patches klp_test_p<N>
 *
 * Patch N replaces klp_target_a and klp_target_b of klp_test_target with
 * functions returning N*1000+1 and N*1000+2, so every call tells which
 * patch won.  enable=0 only registers the patch; fail_init=1 makes the
 * module's init fail after registering (and enabling) it, leaving it
 * registered, as a buggy patch module would.  Each claims to fix
 * CVE-2099-000N (cve= sets another list, to try the core's checks) and
 * has a MODULE_VERSION, so that it has a srcversion.
 */
#include <linux/module.h>
#include "klp_test_module.h"

static bool enable = true;
module_param(enable, bool, 0400);
MODULE_PARM_DESC(enable, "enable the patch on load (default 1)");
static bool fail_init;
module_param(fail_init, bool, 0400);
MODULE_PARM_DESC(fail_init, "fail the init after registering the patch");
#define KLP_TEST_STR(x)	#x
#define KLP_TEST_CVE(n)	"CVE-2099-000" KLP_TEST_STR(n)
static char *cve = KLP_TEST_CVE(KLP_TEST_PATCH);
module_param(cve, charp, 0400);
MODULE_PARM_DESC(cve, "the patch's cve list (default CVE-2099-000<N>)");

static int klp_test_new_a(void)
{
	return KLP_TEST_PATCH * 1000 + 1;
}

static int klp_test_new_b(void)
{
	return KLP_TEST_PATCH * 1000 + 2;
}

static struct klp_func funcs[] = {
	{ .old_name = "klp_target_a", .new_func = klp_test_new_a, },
	{ .old_name = "klp_target_b", .new_func = klp_test_new_b, },
	{ }
};

static struct klp_object objs[] = {
	{ .name = "klp_test_target", .funcs = funcs, },
	{ }
};

static struct klp_patch patch = {
	.mod = THIS_MODULE,
	.objs = objs,
};

static int __init klp_test_patch_init(void)
{
	int ret;

	patch.cve = cve;
	ret = klp_test_register_enable(&patch, enable);

	return ret ?: (fail_init ? -EIO : 0);
}

static void __exit klp_test_patch_exit(void)
{
}

module_init(klp_test_patch_init);
module_exit(klp_test_patch_exit);
MODULE_LICENSE("GPL");
MODULE_VERSION("1.0");
