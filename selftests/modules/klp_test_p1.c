// SPDX-License-Identifier: GPL-2.0-or-later
/* klp_test_p1.c - stackable test patch 1 (see klp_test_patch.h) */
#define KLP_TEST_PATCH 1
#include "klp_test_patch.h"
