// SPDX-License-Identifier: GPL-2.0-or-later
/* klp_test_many1000.c - a patch of 1000 of klp_test_many1k_tgt's functions */
#define KLP_MANY_1K
#define KLP_MANY_N 1000
#include "klp_test_many_patch.h"
