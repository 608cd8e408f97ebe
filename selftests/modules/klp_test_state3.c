// SPDX-License-Identifier: GPL-2.0-or-later
/* klp_test_state3.c - version 2 of the level state, a replace patch */
#define KLP_TEST_STATE_VERSION 2
#define KLP_TEST_STATE_REPLACE true
#include "klp_test_state.c"
