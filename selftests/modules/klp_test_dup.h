/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef _KLP_TEST_DUP_H
#define _KLP_TEST_DUP_H

/* the klp_dup_fn() of klp_test_dup_b.c */
int (*klp_dup_b_fn(void))(void);

#endif /* _KLP_TEST_DUP_H */
