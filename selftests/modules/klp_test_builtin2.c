// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * klp_test_builtin2.c - a second builtin livepatch patch, to stack on the
 * first: the same patch (klp_test_builtin.c), its function returning 7100
 */
#define KLP_BUILTIN_VALUE 7100
#include "klp_test_builtin.c"
