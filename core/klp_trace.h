/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * klp_trace.h - tracepoints of the klp live patching core (system "klp")
 *
 * klp_redirect fires on every redirected call.  A BPF program counts it by
 * id alone from its first three arguments (a raw tracepoint); the record
 * also names the function and the winning patch, so perf and bpftrace
 * need no symbol lookup (on 6.12 /proc/kallsyms keeps the names of freed
 * module init code, which userspace symbolizers then give to the modules
 * loaded into that memory).  It fires only where RCU is watching: a
 * patched function that runs in the idle loop after RCU has
 * stopped watching the CPU (or in other RCU-idle code) is still
 * redirected, but those calls are not reported, so tools do not count them.
 * A tracepoint's consumers (BPF, perf) rely on RCU; lockdep kernels warn
 * at every such call otherwise.  The other events mark every state
 * change: registration, enable/disable, func_stack push/pop, module
 * coming/going, object callbacks and enable failures.  Each carries seq, the core's
 * transition number (klp_next_seq()): 1, 2, 3... without a gap, in the
 * order the core made the changes, so a consumer reading several CPUs'
 * buffers puts them back in order without trusting timestamps; the last
 * one given is in debugfs, klp/seq.  Each TP_printk uses only helpers that
 * libtraceevent knows, so perf script and klp-trace parse them.  The
 * arguments of each are declared once, in include/klp/uapi.h, for this
 * file and the BPF programs that take them (raw_tp).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM klp

#if !defined(_KLP_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _KLP_TRACE_H

#include <linux/tracepoint.h>
#include <klp/uapi.h>
#include "compat.h"


TRACE_DEFINE_ENUM(KLP_OBJ_DEFERRED);
TRACE_DEFINE_ENUM(KLP_OBJ_APPLIED);
TRACE_DEFINE_ENUM(KLP_OBJ_REVERTED);

TRACE_DEFINE_ENUM(KLP_CAUSE_ENABLE);
TRACE_DEFINE_ENUM(KLP_CAUSE_DISABLE);
TRACE_DEFINE_ENUM(KLP_CAUSE_MODULE_COMING);
TRACE_DEFINE_ENUM(KLP_CAUSE_MODULE_GOING);
TRACE_DEFINE_ENUM(KLP_CAUSE_ROLLBACK);
TRACE_DEFINE_ENUM(KLP_CAUSE_REPLACE);

#define show_cause(c)						\
	__print_symbolic(c,					\
			 { KLP_CAUSE_ENABLE, "enable" },		\
			 { KLP_CAUSE_DISABLE, "disable" },		\
			 { KLP_CAUSE_MODULE_COMING, "module_coming" },	\
			 { KLP_CAUSE_MODULE_GOING, "module_going" },	\
			 { KLP_CAUSE_ROLLBACK, "rollback" },		\
			 { KLP_CAUSE_REPLACE, "replace" })

TRACE_DEFINE_ENUM(KLP_CB_PRE_PATCH);
TRACE_DEFINE_ENUM(KLP_CB_POST_PATCH);
TRACE_DEFINE_ENUM(KLP_CB_PRE_UNPATCH);
TRACE_DEFINE_ENUM(KLP_CB_POST_UNPATCH);

#define show_callback(w)					\
	__print_symbolic(w,					\
			 { KLP_CB_PRE_PATCH, "pre_patch" },	\
			 { KLP_CB_POST_PATCH, "post_patch" },	\
			 { KLP_CB_PRE_UNPATCH, "pre_unpatch" },	\
			 { KLP_CB_POST_UNPATCH, "post_unpatch" })

#define show_obj_action(a)					\
	__print_symbolic(a,					\
			 { KLP_OBJ_DEFERRED, "deferred" },	\
			 { KLP_OBJ_APPLIED, "applied" },	\
			 { KLP_OBJ_REVERTED, "reverted" })

TRACE_EVENT_CONDITION(klp_redirect,

	TP_PROTO(KLP_TP_REDIRECT_PROTO),

	TP_ARGS(old_addr, new_func, id, func, patch),

	TP_CONDITION(rcu_is_watching()),

	TP_STRUCT__entry(
		__field(unsigned long,	old_addr)
		__field(unsigned long,	new_func)
		__field(unsigned int,	id)
		__string(func,		func)
		__string(patch,		patch)
	),

	TP_fast_assign(
		__entry->old_addr = old_addr;
		__entry->new_func = new_func;
		__entry->id = id;
		klp_assign_str(func, func);
		klp_assign_str(patch, patch);
	),

	TP_printk("%s -> %ps id=%u patch=%s", __get_str(func),
		  (void *)__entry->new_func, __entry->id, __get_str(patch))
);

DECLARE_EVENT_CLASS(klp_patch_class,

	TP_PROTO(KLP_TP_PATCH_PROTO),

	TP_ARGS(seq, patch, ret),

	TP_STRUCT__entry(
		__field(u64, seq)
		__string(patch, patch)
		__field(int, ret)
	),

	TP_fast_assign(
		__entry->seq = seq;
		klp_assign_str(patch, patch);
		__entry->ret = ret;
	),

	TP_printk("seq=%llu patch=%s ret=%d", __entry->seq, __get_str(patch),
		  __entry->ret)
);

DEFINE_EVENT(klp_patch_class, klp_patch_register,
	TP_PROTO(KLP_TP_PATCH_PROTO), TP_ARGS(seq, patch, ret));
DEFINE_EVENT(klp_patch_class, klp_patch_unregister,
	TP_PROTO(KLP_TP_PATCH_PROTO), TP_ARGS(seq, patch, ret));
DEFINE_EVENT(klp_patch_class, klp_patch_enable,
	TP_PROTO(KLP_TP_PATCH_PROTO), TP_ARGS(seq, patch, ret));
DEFINE_EVENT(klp_patch_class, klp_patch_disable,
	TP_PROTO(KLP_TP_PATCH_PROTO), TP_ARGS(seq, patch, ret));

/*
 * A func pushed on or popped off the func_stack of old_addr.  depth is the
 * stack's new depth; winner the patch whose func now runs ("" for none:
 * the original function runs again) and winner_id that func's id (0);
 * cause what made the core do it (enum klp_cause).
 */
DECLARE_EVENT_CLASS(klp_func_class,

	TP_PROTO(KLP_TP_FUNC_PROTO),

	TP_ARGS(seq, object, func, patch, old_addr, id, depth, winner,
		winner_id, cause),

	TP_STRUCT__entry(
		__field(u64, seq)
		__string(object, object)
		__string(func, func)
		__string(patch, patch)
		__string(winner, winner)
		__field(unsigned long, old_addr)
		__field(unsigned int, id)
		__field(unsigned int, depth)
		__field(unsigned int, winner_id)
		__field(int, cause)
	),

	TP_fast_assign(
		__entry->seq = seq;
		klp_assign_str(object, object);
		klp_assign_str(func, func);
		klp_assign_str(patch, patch);
		klp_assign_str(winner, winner);
		__entry->old_addr = old_addr;
		__entry->id = id;
		__entry->depth = depth;
		__entry->winner_id = winner_id;
		__entry->cause = cause;
	),

	TP_printk("seq=%llu %s:%s patch=%s id=%u depth=%u winner=%s winner_id=%u cause=%s",
		  __entry->seq, __get_str(object), __get_str(func),
		  __get_str(patch), __entry->id, __entry->depth,
		  __get_str(winner), __entry->winner_id,
		  show_cause(__entry->cause))
);

DEFINE_EVENT(klp_func_class, klp_func_push,
	TP_PROTO(KLP_TP_FUNC_PROTO),
	TP_ARGS(seq, object, func, patch, old_addr, id, depth, winner,
		winner_id, cause));
DEFINE_EVENT(klp_func_class, klp_func_pop,
	TP_PROTO(KLP_TP_FUNC_PROTO),
	TP_ARGS(seq, object, func, patch, old_addr, id, depth, winner,
		winner_id, cause));

TRACE_EVENT(klp_object,

	TP_PROTO(KLP_TP_OBJECT_PROTO),

	TP_ARGS(seq, patch, object, action, cause),

	TP_STRUCT__entry(
		__field(u64, seq)
		__string(patch, patch)
		__string(object, object)
		__field(int, action)
		__field(int, cause)
	),

	TP_fast_assign(
		__entry->seq = seq;
		klp_assign_str(patch, patch);
		klp_assign_str(object, object);
		__entry->action = action;
		__entry->cause = cause;
	),

	TP_printk("seq=%llu patch=%s object=%s %s cause=%s", __entry->seq,
		  __get_str(patch), __get_str(object),
		  show_obj_action(__entry->action), show_cause(__entry->cause))
);

TRACE_EVENT(klp_patch_replaced,

	TP_PROTO(KLP_TP_PATCH_REPLACED_PROTO),

	TP_ARGS(seq, patch, by),

	TP_STRUCT__entry(
		__field(u64, seq)
		__string(patch, patch)
		__string(by, by)
	),

	TP_fast_assign(
		__entry->seq = seq;
		klp_assign_str(patch, patch);
		klp_assign_str(by, by);
	),

	TP_printk("seq=%llu patch=%s by=%s", __entry->seq, __get_str(patch),
		  __get_str(by))
);

TRACE_EVENT(klp_callback,

	TP_PROTO(KLP_TP_CALLBACK_PROTO),

	TP_ARGS(seq, patch, object, which, cause, ret),

	TP_STRUCT__entry(
		__field(u64, seq)
		__string(patch, patch)
		__string(object, object)
		__field(int, which)
		__field(int, cause)
		__field(int, ret)
	),

	TP_fast_assign(
		__entry->seq = seq;
		klp_assign_str(patch, patch);
		klp_assign_str(object, object);
		__entry->which = which;
		__entry->cause = cause;
		__entry->ret = ret;
	),

	TP_printk("seq=%llu patch=%s object=%s %s cause=%s ret=%d",
		  __entry->seq, __get_str(patch), __get_str(object),
		  show_callback(__entry->which), show_cause(__entry->cause),
		  __entry->ret)
);

TRACE_EVENT(klp_enable_failed,

	TP_PROTO(KLP_TP_ENABLE_FAILED_PROTO),

	TP_ARGS(seq, patch, object, func, err),

	TP_STRUCT__entry(
		__field(u64, seq)
		__string(patch, patch)
		__string(object, object)
		__string(func, func)
		__field(int, err)
	),

	TP_fast_assign(
		__entry->seq = seq;
		klp_assign_str(patch, patch);
		klp_assign_str(object, object);
		klp_assign_str(func, func);
		__entry->err = err;
	),

	TP_printk("seq=%llu patch=%s %s:%s err=%d", __entry->seq, __get_str(patch),
		  __get_str(object), __get_str(func), __entry->err)
);

TRACE_DEFINE_ENUM(KLP_TR_START);
TRACE_DEFINE_ENUM(KLP_TR_SWEEP);
TRACE_DEFINE_ENUM(KLP_TR_COMPLETE);
TRACE_DEFINE_ENUM(KLP_TR_REVERSED);
TRACE_DEFINE_ENUM(KLP_TR_FORCED);

#define show_tr_action(a)					\
	__print_symbolic(a,					\
			 { KLP_TR_START, "start" },		\
			 { KLP_TR_SWEEP, "sweep" },		\
			 { KLP_TR_COMPLETE, "complete" },	\
			 { KLP_TR_REVERSED, "reversed" },	\
			 { KLP_TR_FORCED, "forced" })

TRACE_DEFINE_ENUM(KLP_BLOCK_RUNNING);
TRACE_DEFINE_ENUM(KLP_BLOCK_UNRELIABLE);
TRACE_DEFINE_ENUM(KLP_BLOCK_ON_STACK);

#define show_block_reason(r)					\
	__print_symbolic(r,					\
			 { KLP_BLOCK_RUNNING, "running" },	\
			 { KLP_BLOCK_UNRELIABLE, "unreliable" },	\
			 { KLP_BLOCK_ON_STACK, "on_stack" })

/*
 * A transition of patch toward target (1 enabled, 0 disabled): its start,
 * each sweep of the tasks, its end (transition.c).
 */
TRACE_EVENT(klp_transition,

	TP_PROTO(KLP_TP_TRANSITION_PROTO),

	TP_ARGS(seq, patch, target, action, sweep, pending, total),

	TP_STRUCT__entry(
		__field(u64, seq)
		__string(patch, patch)
		__field(int, target)
		__field(int, action)
		__field(unsigned int, sweep)
		__field(unsigned int, pending)
		__field(unsigned int, total)
	),

	TP_fast_assign(
		__entry->seq = seq;
		klp_assign_str(patch, patch);
		__entry->target = target;
		__entry->action = action;
		__entry->sweep = sweep;
		__entry->pending = pending;
		__entry->total = total;
	),

	TP_printk("seq=%llu patch=%s target=%d %s sweep=%u pending=%u total=%u",
		  __entry->seq, __get_str(patch), __entry->target,
		  show_tr_action(__entry->action), __entry->sweep,
		  __entry->pending, __entry->total)
);

/* A task a sweep could not switch, and why. */
TRACE_EVENT(klp_task_blocked,

	TP_PROTO(KLP_TP_TASK_BLOCKED_PROTO),

	TP_ARGS(seq, patch, sweep, pid, comm, func, reason),

	TP_STRUCT__entry(
		__field(u64, seq)
		__string(patch, patch)
		__field(unsigned int, sweep)
		__field(int, pid)
		__string(comm, comm)
		__string(func, func)
		__field(int, reason)
	),

	TP_fast_assign(
		__entry->seq = seq;
		klp_assign_str(patch, patch);
		__entry->sweep = sweep;
		__entry->pid = pid;
		klp_assign_str(comm, comm);
		klp_assign_str(func, func);
		__entry->reason = reason;
	),

	TP_printk("seq=%llu patch=%s sweep=%u pid=%d comm=%s func=%s %s",
		  __entry->seq, __get_str(patch), __entry->sweep, __entry->pid,
		  __get_str(comm), __get_str(func),
		  show_block_reason(__entry->reason))
);

/*
 * Shadow variables (core/shadow.c), allocated and freed wherever patched
 * code runs: like klp_redirect, reported only where RCU is watching.
 */
TRACE_EVENT_CONDITION(klp_shadow_add,

	TP_PROTO(KLP_TP_SHADOW_ADD_PROTO),

	TP_ARGS(obj, id, size, ret),

	TP_CONDITION(rcu_is_watching()),

	TP_STRUCT__entry(
		__field(unsigned long, obj)
		__field(unsigned long, id)
		__field(unsigned long, size)
		__field(int, ret)
	),

	TP_fast_assign(
		__entry->obj = obj;
		__entry->id = id;
		__entry->size = size;
		__entry->ret = ret;
	),

	TP_printk("obj=0x%lx id=%lu size=%lu ret=%d", __entry->obj,
		  __entry->id, __entry->size, __entry->ret)
);

TRACE_EVENT_CONDITION(klp_shadow_del,

	TP_PROTO(KLP_TP_SHADOW_DEL_PROTO),

	TP_ARGS(obj, id, count),

	TP_CONDITION(rcu_is_watching()),

	TP_STRUCT__entry(
		__field(unsigned long, obj)
		__field(unsigned long, id)
		__field(unsigned int, count)
	),

	TP_fast_assign(
		__entry->obj = obj;
		__entry->id = id;
		__entry->count = count;
	),

	TP_printk("obj=0x%lx id=%lu count=%u", __entry->obj, __entry->id,
		  __entry->count)
);

#endif /* _KLP_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE klp_trace
#include <trace/define_trace.h>
