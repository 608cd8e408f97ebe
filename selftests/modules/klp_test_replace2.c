// SPDX-License-Identifier: GPL-2.0-or-later
/* klp_test_replace2.c - a second replace patch (see klp_test_replace.c) */
#define KLP_TEST_REPLACE_BASE 6000
#include "klp_test_replace.c"
