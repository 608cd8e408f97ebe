// SPDX-License-Identifier: GPL-2.0-or-later
/* klp_test_cb2.c - a second callback patch (see klp_test_cb.c) */
#define KLP_TEST_CB_VALUE 7103
#include "klp_test_cb.c"
