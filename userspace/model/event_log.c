// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * event_log.c - the last state changes of both cores as lines (event_log.h)
 */
#include <stdarg.h>
#include <stdio.h>
#include "alloc.h"
#include "event_log.h"

const char *model_event_name(unsigned int type)
{
	static const char *const names[] = {
		[KLP_EV_PATCH_REGISTER] = "register",
		[KLP_EV_PATCH_UNREGISTER] = "unregister",
		[KLP_EV_PATCH_ENABLE] = "enable",
		[KLP_EV_PATCH_DISABLE] = "disable",
		[KLP_EV_FUNC_PUSH] = "push",
		[KLP_EV_FUNC_POP] = "pop",
		[KLP_EV_OBJECT] = "object",
		[KLP_EV_ENABLE_FAILED] = "enable_failed",
		[KLP_EV_CALLBACK] = "callback",
		[KLP_EV_PATCH_REPLACED] = "replaced",
		[KLP_EV_TRANSITION] = "transition",
		[KLP_EV_TASK_BLOCKED] = "task_blocked",
	};

	return type < ARRAY_SIZE(names) && names[type] ?
	       names[type] : "unknown";
}

/* The cause's name as the tracepoints print it; NULL for none. */
const char *model_cause_name(int cause)
{
	static const char *const names[] = {
		[KLP_CAUSE_ENABLE] = "enable",
		[KLP_CAUSE_DISABLE] = "disable",
		[KLP_CAUSE_MODULE_COMING] = "module_coming",
		[KLP_CAUSE_MODULE_GOING] = "module_going",
		[KLP_CAUSE_ROLLBACK] = "rollback",
		[KLP_CAUSE_REPLACE] = "replace",
	};

	return cause > 0 && (size_t)cause < ARRAY_SIZE(names) ?
	       names[cause] : NULL;
}

/**
 * model_log_add() - a line at the end of the log
 * @log:  the log; its oldest line goes once it holds MODEL_LOG_LEN
 * @e:    the event the line is of: its time, seq, type, cause, result and
 *        patch
 * @func: the function it is about, or ""
 * @fmt:  printf's, the line's text
 */
void model_log_add(struct model_log *log, const struct klp_transition_event *e,
		   const char *func, const char *fmt, ...)
{
	struct model_transition *t = &log->ring[log->n % MODEL_LOG_LEN];
	va_list ap;

	t->ts_ns = e->ts_ns;
	t->seq = e->seq;
	t->type = e->type;
	t->cause = e->type == KLP_EV_FUNC_PUSH || e->type == KLP_EV_FUNC_POP ||
		   e->type == KLP_EV_OBJECT || e->type == KLP_EV_CALLBACK ?
		   e->cause : e->type == KLP_EV_PATCH_REPLACED ?
		   KLP_CAUSE_REPLACE : 0;
	t->ret = e->ret;
	copy_name(t->patch, sizeof(t->patch), e->patch);
	copy_name(t->func, sizeof(t->func), func);
	va_start(ap, fmt);
	vsnprintf(t->text, sizeof(t->text), fmt, ap);
	va_end(ap);
	log->n++;
}

/* The event's strings terminated, whatever the ring buffer held. */
void model_event_terminate(struct klp_transition_event *e)
{
	e->patch[sizeof(e->patch) - 1] = '\0';
	e->object[sizeof(e->object) - 1] = '\0';
	e->winner[sizeof(e->winner) - 1] = '\0';
	e->func[sizeof(e->func) - 1] = '\0';
	e->comm[sizeof(e->comm) - 1] = '\0';
}
