// SPDX-License-Identifier: GPL-2.0-or-later
/* klp_test_state2.c - version 1 of the level state, a replace patch */
#define KLP_TEST_STATE_VERSION 1
#define KLP_TEST_STATE_REPLACE true
#include "klp_test_state.c"
