/* SPDX-License-Identifier: GPL-2.0-or-later */
/* klp_test_target.h - the functions klp_test_target.c offers to patch */
#ifndef _KLP_TEST_TARGET_H
#define _KLP_TEST_TARGET_H

int klp_target_a(void);
int klp_target_b(void);
int klp_target_c(void);

#endif /* _KLP_TEST_TARGET_H */
