// SPDX-License-Identifier: GPL-2.0-or-later
#define BENCH_VALUE 4202
#include "bench_builtin.h"
