/* SPDX-License-Identifier: GPL-2.0 */
/*
 * klp_test_module.h - what every test and bench patch module does on load:
 * register its patch, enable it unless told not to, and take the
 * registration back if the enable fails, so that a refused insmod leaves
 * nothing registered.
 */
#ifndef _KLP_TEST_MODULE_H
#define _KLP_TEST_MODULE_H

#include <linux/bug.h>
#include <klp/livepatch.h>

static inline int klp_test_register_enable(struct klp_patch *patch, bool enable)
{
	int ret = klp_register_patch(patch);

	if (ret || !enable)
		return ret;
	ret = klp_enable_patch(patch);
	if (ret)
		WARN_ON(klp_unregister_patch(patch));
	return ret;
}

#endif /* _KLP_TEST_MODULE_H */
