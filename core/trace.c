// SPDX-License-Identifier: GPL-2.0-or-later
/* trace.c - instantiate the klp:* tracepoints */
#define CREATE_TRACE_POINTS
#include "klp_trace.h"
