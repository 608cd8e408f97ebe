// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * source_livepatch_events.c - the builtin livepatch's events (its enables
 * and transitions, from bpf/livepatch.bpf.c's ring buffer) as lines of
 * the model's log (event_log.h)
 */
#include <stdio.h>
#include <string.h>
#include "source_livepatch.h"

/**
 * lp_log_event() - a line of the log for an event of a patch of the
 * kernel's builtin livepatch (bpf/livepatch.bpf.c), in klp's words and
 * causes: enable for a transition to enabled, disable to disabled
 * @log: the transition log
 * @ev:  the event (seq 0: the builtin numbers nothing)
 */
void lp_log_event(struct model_log *log, const struct klp_transition_event *ev)
{
	static const char *const actions[] = {
		[KLP_TR_START] = "started", [KLP_TR_SWEEP] = "swept",
		[KLP_TR_COMPLETE] = "complete", [KLP_TR_REVERSED] = "reversed",
		[KLP_TR_FORCED] = "forced",
	};
	struct klp_transition_event e = *ev;
	const char *to = e.depth == 1 ? "enabling" : "disabling";

	model_event_terminate(&e);
	if (e.type == KLP_EV_TRANSITION && e.ret > 0 &&
	    (size_t)e.ret < ARRAY_SIZE(actions) && actions[e.ret])
		model_log_add(log, &e, "", "patch %s (livepatch) %s: transition %s",
			      e.patch, to, actions[e.ret]);
	else if (e.type == KLP_EV_PATCH_ENABLE && e.ret)
		model_log_add(log, &e, "", "patch %s (livepatch) enable failed: %s (%d)",
			      e.patch, strerror(-e.ret), e.ret);
	else if (e.type == KLP_EV_PATCH_ENABLE || e.type == KLP_EV_PATCH_DISABLE)
		model_log_add(log, &e, "", "patch %s (livepatch) %s", e.patch,
			      e.type == KLP_EV_PATCH_ENABLE ? "enabled" : "disabled");
	else
		return;
	log->ring[(log->n - 1) % MODEL_LOG_LEN].cause = e.cause;
}
