// SPDX-License-Identifier: GPL-2.0-or-later
/* klp_test_many16.c - a patch of 16 functions (see klp_test_many_patch.h) */
#define KLP_MANY_N 16
#include "klp_test_many_patch.h"
