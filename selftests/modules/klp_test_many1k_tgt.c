// SPDX-License-Identifier: GPL-2.0-or-later
/* klp_test_many1k_tgt.c - 1024 patchable functions (see klp_test_many_tgt.h) */
#define KLP_MANY_1K
#include "klp_test_many_tgt.h"
