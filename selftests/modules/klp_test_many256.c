// SPDX-License-Identifier: GPL-2.0-or-later
/* klp_test_many256.c - a patch of 256 functions (see klp_test_many_patch.h) */
#define KLP_MANY_N 256
#include "klp_test_many_patch.h"
