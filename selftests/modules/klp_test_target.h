/* SPDX-License-Identifier: GPL-2.0-or-later */
/* klp_test_target.h - the functions klp_test_target.c offers to patch */
#ifndef _KLP_TEST_TARGET_H
#define _KLP_TEST_TARGET_H

#include <linux/types.h>

int klp_target_a(void);
int klp_target_b(void);
int klp_target_c(void);

/* A state for the system-state tests to change (debugfs "level") */
extern u32 klp_target_level;

#endif /* _KLP_TEST_TARGET_H */
