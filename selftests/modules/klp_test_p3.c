// SPDX-License-Identifier: GPL-2.0-or-later
/* klp_test_p3.c - stackable test patch 3 (see klp_test_patch.h) */
#define KLP_TEST_PATCH 3
#include "klp_test_patch.h"
