// SPDX-License-Identifier: GPL-2.0-or-later
/* klp_test_probe2.c - a second probe patch (see klp_test_probe.c) */
#include "klp_test_probe.c"
