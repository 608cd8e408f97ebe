// SPDX-License-Identifier: GPL-2.0-or-later
/* klp_test_many1.c - a patch of 1 function (see klp_test_many_patch.h) */
#define KLP_MANY_N 1
#include "klp_test_many_patch.h"
