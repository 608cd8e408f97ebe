// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * source_klp_events.c - the event applier: each transition event of the core
 * moves the model and becomes one line of the transition log
 *
 * The core numbers its transitions (seq) and says why it pushed or popped
 * each func (cause) and for which patch, so events are applied as they
 * come, in the core's order, with nothing held back: an event already in
 * the model's last state file (seq <= snap_seq) is only logged, and one
 * the model does not agree with marks it for a fresh read of that file.
 * A push or pop is logged when it happens, so a failed enable shows the
 * pushes it made and the rollback that undid them: calls did go to the
 * new func in between, and the counters say so.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "source_klp.h"


/* An object callback's name as klp:klp_callback prints it. */
static const char *klp_callback_name(unsigned int which)
{
	static const char *const names[] = {
		[KLP_CB_PRE_PATCH] = "pre_patch",
		[KLP_CB_POST_PATCH] = "post_patch",
		[KLP_CB_PRE_UNPATCH] = "pre_unpatch",
		[KLP_CB_POST_UNPATCH] = "post_unpatch",
	};

	return which < ARRAY_SIZE(names) && names[which] ?
	       names[which] : "unknown";
}

/* Apply a push or pop and check the stack against what the event says. */
static void apply_func_event(struct model *m,
			     const struct klp_transition_event *e)
{
	struct model_patch *p;
	struct model_fn *fn;
	struct model_func *f;

	if (e->id >= KLP_MAX_HIT_KEYS)
		return;
	p = model_patch_find(m, e->patch, false);
	if (!p) {
		/* registered after the state file was read: learn the rest */
		p = model_patch_find(m, e->patch, true);
		m->need_resync = true;
	}
	fn = model_fn_find(m, e->object, e->func, true);
	f = model_func_bind(m, p, fn, e->id);
	if (e->old_addr)
		fn->old_addr = e->old_addr;
	if (e->type == KLP_EV_FUNC_PUSH)
		model_stack_push(fn, f);
	else
		model_stack_remove(fn, f);
	if (fn->depth != e->depth ||
	    (fn->depth ? fn->stack[0]->id : 0) != e->winner_id)
		m->need_resync = true;
}

/* "patch P enabling: F now -> W (depth N)", after the push's cause */
static void log_func_event(struct model_log *log,
			   const struct klp_transition_event *e)
{
	const char *winner = e->winner[0] ? e->winner : "original";
	char why[MODEL_TEXT_LEN];

	switch (e->cause) {
	case KLP_CAUSE_ENABLE:
		snprintf(why, sizeof(why), "enabling");
		break;
	case KLP_CAUSE_DISABLE:
		snprintf(why, sizeof(why), "disabling");
		break;
	case KLP_CAUSE_MODULE_COMING:
		snprintf(why, sizeof(why), "applying to module %s", e->object);
		break;
	case KLP_CAUSE_MODULE_GOING:
		snprintf(why, sizeof(why), "reverting, module %s going",
			 e->object);
		break;
	case KLP_CAUSE_ROLLBACK:
		snprintf(why, sizeof(why), "rolled back");
		break;
	case KLP_CAUSE_REPLACE:
		snprintf(why, sizeof(why), "replaced");
		break;
	default:
		snprintf(why, sizeof(why), "%s",
			 e->type == KLP_EV_FUNC_PUSH ? "pushed" : "popped");
		break;
	}
	model_log_add(log, e, e->func, "patch %s %s: %s now -> %s (depth %u)",
		      e->patch, why, e->func, winner, e->depth);
}

static void apply_patch_event(struct model *m, struct model_log *log,
			      const struct klp_transition_event *e, bool fresh)
{
	static const char *const done[] = {
		[KLP_EV_PATCH_REGISTER] = "registered",
		[KLP_EV_PATCH_UNREGISTER] = "unregistered",
		[KLP_EV_PATCH_ENABLE] = "enabled",
		[KLP_EV_PATCH_DISABLE] = "disabled",
	};
	static const char *const failed[] = {
		[KLP_EV_PATCH_REGISTER] = "registration",
		[KLP_EV_PATCH_UNREGISTER] = "unregister",
		[KLP_EV_PATCH_ENABLE] = "enable",
		[KLP_EV_PATCH_DISABLE] = "disable",
	};
	struct model_patch *p;

	if (e->ret) {
		model_log_add(log, e, "", "patch %s %s failed: %s (%d)", e->patch,
			      failed[e->type], strerror(-e->ret), e->ret);
		return;
	}
	if (fresh) {
		p = model_patch_find(m, e->patch, false);
		switch (e->type) {
		case KLP_EV_PATCH_REGISTER:
			/* the funcs and their ids are in the state file only */
			m->need_resync = true;
			break;
		case KLP_EV_PATCH_UNREGISTER:
			if (p)
				model_patch_free(m, p);
			break;
		default:
			if (!p) {
				p = model_patch_find(m, e->patch, true);
				m->need_resync = true;
			}
			p->enabled = e->type == KLP_EV_PATCH_ENABLE;
			if (p->enabled)
				p->replaced_by[0] = '\0';
			break;
		}
	}
	model_log_add(log, e, "", "patch %s %s", e->patch, done[e->type]);
}

/* A replace patch's enable disabled this patch. */
static void apply_replaced_event(struct model *m,
				 const struct klp_transition_event *e)
{
	struct model_patch *p = model_patch_find(m, e->patch, false);

	if (!p) {
		p = model_patch_find(m, e->patch, true);
		m->need_resync = true;
	}
	p->enabled = false;
	copy_name(p->replaced_by, sizeof(p->replaced_by), e->winner);
}

/**
 * klp_event_apply() - apply one transition event of the core
 * @m:   the model; moved unless the event is already in it
 * @log: the transition log, which gains the event's line
 * @ev:  the event as the BPF program wrote it
 */
void klp_event_apply(struct model *m, struct model_log *log,
		     const struct klp_transition_event *ev)
{
	struct klp_transition_event e = *ev;
	bool fresh = e.seq > m->snap_seq;

	model_event_terminate(&e);

	switch (e.type) {
	case KLP_EV_FUNC_PUSH:
	case KLP_EV_FUNC_POP:
		if (fresh)
			apply_func_event(m, &e);
		log_func_event(log, &e);
		break;
	case KLP_EV_PATCH_REGISTER:
	case KLP_EV_PATCH_UNREGISTER:
	case KLP_EV_PATCH_ENABLE:
	case KLP_EV_PATCH_DISABLE:
		apply_patch_event(m, log, &e, fresh);
		break;
	case KLP_EV_OBJECT:
		if (e.ret == KLP_OBJ_APPLIED)
			model_log_add(log, &e, "", "patch %s applied to module %s",
				      e.patch, e.object);
		else if (e.ret == KLP_OBJ_REVERTED)
			model_log_add(log, &e, "", "patch %s reverted, module %s going",
				      e.patch, e.object);
		else
			model_log_add(log, &e, "", "patch %s deferred: module %s not loaded",
				      e.patch, e.object);
		break;
	case KLP_EV_PATCH_REPLACED:
		if (fresh)
			apply_replaced_event(m, &e);
		model_log_add(log, &e, "", "patch %s replaced by %s", e.patch,
			      e.winner);
		break;
	case KLP_EV_CALLBACK:
		if (e.ret)
			model_log_add(log, &e, "", "patch %s: %s callback of %s failed: %s (%d)",
				      e.patch, klp_callback_name(e.id), e.object,
				      strerror(-e.ret), e.ret);
		else
			model_log_add(log, &e, "", "patch %s: %s callback of %s",
				      e.patch, klp_callback_name(e.id), e.object);
		break;
	case KLP_EV_ENABLE_FAILED:
		model_log_add(log, &e, e.func, "patch %s failed on %s%s%s: %s (%d)",
			      e.patch, e.object, e.func[0] ? ":" : "", e.func,
			      strerror(-e.ret), e.ret);
		break;
	case KLP_EV_TRANSITION:
		if (klp_tr_event(&m->trs, &e, fresh))
			m->need_resync = true;
		if (e.ret != KLP_TR_SWEEP)	/* the sweeps show in its line */
			model_log_add(log, &e, "", "patch %s %s: transition %s, %u of %u tasks pending",
				      e.patch, e.depth ? "enabling" : "disabling",
				      model_tr_action_name(e.ret), e.pending, e.total);
		break;
	case KLP_EV_TASK_BLOCKED:
		if (klp_tr_event(&m->trs, &e, fresh))
			m->need_resync = true;
		break;
	default:
		break;
	}
}
