/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * klp_test_cm.h - what klp_test_cm (the target) and klp_test_cm_patch (its
 * patch) share: the functions the patch replaces together.
 *
 * klp_cm_f() calls klp_cm_g(), sleeps, and calls it again; the original
 * pair returns 10 * 1 + 1 = 11, the patched pair 100 + 10 * 2 + 2 = 122.
 * Any other value is a task that ran a mix of the two versions.
 */
#ifndef _KLP_TEST_CM_H
#define _KLP_TEST_CM_H

#define KLP_CM_OLD	11
#define KLP_CM_NEW	122
#define KLP_CM_MAX	128	/* values recorded: 0 to KLP_CM_MAX - 1 */

int klp_cm_g(void);
int klp_cm_f(unsigned int ms);
int klp_cm_wait(void);
int klp_cm_hold(void);
bool klp_cm_released(void);
void klp_cm_sleep(unsigned int ms);
extern wait_queue_head_t klp_cm_wq;

#endif /* _KLP_TEST_CM_H */
