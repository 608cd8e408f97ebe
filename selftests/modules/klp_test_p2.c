// SPDX-License-Identifier: GPL-2.0-or-later
/* klp_test_p2.c - stackable test patch 2 (see klp_test_patch.h) */
#define KLP_TEST_PATCH 2
#include "klp_test_patch.h"
