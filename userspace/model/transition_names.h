/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * transition_names.h - the one table of a transition action's names, as
 * klp:klp_transition prints them (core/klp_trace.h, show_tr_action), for
 * klptop's log and klp-trace's builtin records alike
 */
#ifndef _KLP_TRANSITION_NAMES_H
#define _KLP_TRANSITION_NAMES_H

#include <klp/uapi.h>

static inline const char *klp_tr_action_name(int action)
{
	static const char *const names[] = {
		[KLP_TR_START] = "start",
		[KLP_TR_SWEEP] = "sweep",
		[KLP_TR_COMPLETE] = "complete",
		[KLP_TR_REVERSED] = "reversed",
		[KLP_TR_FORCED] = "forced",
	};

	return action > 0 && (size_t)action < sizeof(names) / sizeof(names[0]) ?
	       names[action] : "unknown";
}

#endif /* _KLP_TRANSITION_NAMES_H */
