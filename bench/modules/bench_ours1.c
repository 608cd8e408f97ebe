// SPDX-License-Identifier: GPL-2.0-or-later
#define BENCH_VALUE 4201
#include "bench_ours.h"
