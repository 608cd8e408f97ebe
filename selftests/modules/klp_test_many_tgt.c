// SPDX-License-Identifier: GPL-2.0-or-later
/* klp_test_many_tgt.c - 256 patchable functions (see klp_test_many_tgt.h) */
#include "klp_test_many_tgt.h"
