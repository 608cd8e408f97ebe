/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * uapi.h - what crosses the kernel/BPF/userspace boundary of klp
 *
 * Included by the core module, by the BPF programs (after vmlinux.h) and by
 * userspace.
 */
#ifndef _KLP_UAPI_H
#define _KLP_UAPI_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* The sysfs root of the klp core (the builtin livepatch owns /sys/kernel/livepatch). */
#define KLP_SYSFS_ROOT "/sys/kernel/klp"

/*
 * The core's debugfs directory: "state" (the whole state in one read, see
 * core/debugfs.c), "stacks" and "seq".
 */
#define KLP_DEBUGFS_DIR "/sys/kernel/debug/klp"
#define KLP_STATE_PATH KLP_DEBUGFS_DIR "/state"

/* klp:klp_object action field */
enum klp_obj_action {
	KLP_OBJ_DEFERRED = 0,	/* patch enabled, object module not loaded yet */
	KLP_OBJ_APPLIED = 1,	/* object module came: its funcs were patched */
	KLP_OBJ_REVERTED = 2,	/* object module is going: its funcs were unpatched */
};

/*
 * klp:klp_func_push, klp_func_pop and klp_object cause field: what made the
 * core push or pop a func (the patch is the event's patch field).
 */
enum klp_cause {
	KLP_CAUSE_ENABLE = 1,		/* the patch was enabled */
	KLP_CAUSE_DISABLE = 2,		/* the patch was disabled */
	KLP_CAUSE_MODULE_COMING = 3,	/* the object's module is loading */
	KLP_CAUSE_MODULE_GOING = 4,	/* the object's or the patch's module goes */
	KLP_CAUSE_ROLLBACK = 5,		/* undoing a failed enable or module load */
	KLP_CAUSE_REPLACE = 6,		/* another patch's enable replaced it */
};

/*
 * klp:klp_transition action field.  A transition moves every task of the
 * machine, one by one, to the patch's target state (enabled or disabled);
 * each task switches only when no function the transition changes is on
 * its stack (doc/writing-patches.md, "Consistency model").
 */
enum klp_transition_action {
	KLP_TR_START = 1,	/* enable or disable began: every task to switch */
	KLP_TR_SWEEP = 2,	/* a sweep of the tasks ended; pending left */
	KLP_TR_COMPLETE = 3,	/* every task switched: the target is reached */
	KLP_TR_REVERSED = 4,	/* the other state was written midway: target flipped */
	KLP_TR_FORCED = 5,	/* force: the tasks left were marked switched */
};

/* klp:klp_task_blocked reason field: why a task could not switch */
enum klp_block_reason {
	KLP_BLOCK_RUNNING = 1,		/* on a CPU: its stack cannot be read */
	KLP_BLOCK_UNRELIABLE = 2,	/* its stack trace is not reliable */
	KLP_BLOCK_ON_STACK = 3,		/* a function in transition is on its stack */
};

/* klp:klp_callback which field: the object callback that ran */
enum klp_callback_kind {
	KLP_CB_PRE_PATCH = 1,
	KLP_CB_POST_PATCH = 2,
	KLP_CB_PRE_UNPATCH = 3,
	KLP_CB_POST_UNPATCH = 4,
};

/*
 * The arguments of the klp:* tracepoints, in order: core/klp_trace.h
 * declares the tracepoints with these and the BPF programs (raw_tp) take
 * them, so each event is described once (TP_ARGS and the BPF programs
 * name the arguments in this order; the tracing and klptop selftests
 * check every field end to end).  The record each tracepoint writes for
 * perf, bpftrace and klp-trace has the same fields (its format file:
 * /sys/kernel/tracing/events/klp/<event>/format).  u64 is the kernel's
 * and vmlinux.h's.
 */

/* klp:klp_redirect: one redirected call, to the func with this id */
#define KLP_TP_REDIRECT_PROTO unsigned long old_addr, unsigned long new_func, \
	unsigned int id, const char *func, const char *patch

/* klp:klp_patch_{register,unregister,enable,disable} */
#define KLP_TP_PATCH_PROTO u64 seq, const char *patch, int ret

/*
 * klp:klp_patch_replaced: enabling patch by (a replace patch) disabled
 * patch; its funcs were popped just before (cause KLP_CAUSE_REPLACE)
 */
#define KLP_TP_PATCH_REPLACED_PROTO u64 seq, const char *patch, const char *by

/* klp:klp_func_{push,pop}; cause is an enum klp_cause */
#define KLP_TP_FUNC_PROTO u64 seq, const char *object, const char *func, \
	const char *patch, unsigned long old_addr, unsigned int id, \
	unsigned int depth, const char *winner, unsigned int winner_id, \
	int cause

/* klp:klp_object; action is an enum klp_obj_action, cause an enum klp_cause */
#define KLP_TP_OBJECT_PROTO u64 seq, const char *patch, const char *object, \
	int action, int cause

/*
 * klp:klp_callback: an object callback ran (which: enum klp_callback_kind;
 * cause: enum klp_cause; ret: pre_patch's result, 0 for the others)
 */
#define KLP_TP_CALLBACK_PROTO u64 seq, const char *patch, const char *object, \
	int which, int cause, int ret

/* klp:klp_enable_failed */
#define KLP_TP_ENABLE_FAILED_PROTO u64 seq, const char *patch, \
	const char *object, const char *func, int err

/*
 * klp:klp_transition: patch's transition toward target (1 enabling, 0
 * disabling); action an enum klp_transition_action; sweep the number of
 * sweeps so far (0 at start); pending the tasks not switched yet, of total
 * (the idle tasks included: one per CPU)
 */
#define KLP_TP_TRANSITION_PROTO u64 seq, const char *patch, int target, \
	int action, unsigned int sweep, unsigned int pending, \
	unsigned int total

/*
 * klp:klp_task_blocked: sweep number sweep of patch's transition could not
 * switch task pid (comm); reason an enum klp_block_reason, func the
 * function in transition found on its stack ("" unless
 * KLP_BLOCK_ON_STACK).  At most one per task per sweep.
 */
#define KLP_TP_TASK_BLOCKED_PROTO u64 seq, const char *patch, \
	unsigned int sweep, int pid, const char *comm, const char *func, \
	int reason

/*
 * klp:klp_shadow_add: shadow variable <obj, id> with size bytes of data
 * allocated (ret 0) or not (-EEXIST, -ENOMEM, or its constructor's error)
 */
#define KLP_TP_SHADOW_ADD_PROTO unsigned long obj, unsigned long id, \
	unsigned long size, int ret

/*
 * klp:klp_shadow_del: count variables of number id freed, by
 * klp_shadow_free(obj, id) (count 0 or 1) or by klp_shadow_free_all(id)
 * (obj 0)
 */
#define KLP_TP_SHADOW_DEL_PROTO unsigned long obj, unsigned long id, \
	unsigned int count

/*
 * BPF maps.  hits: BPF_MAP_TYPE_ARRAY, BPF_F_MMAPABLE, of __u64 counters
 * in one slice of KLP_MAX_HIT_KEYS per possible CPU: a call redirected to
 * the func with id N on CPU C counts at [C * KLP_MAX_HIT_KEYS + N], in its
 * own CPU's slice (no cache line shared between CPUs).  A func id names
 * the (patched function, replacement) pair, 1 to KLP_MAX_HIT_KEYS - 1,
 * unique among registered funcs.  Monotonic (never reset; readers take
 * deltas); userspace maps the array and sums an id's slices, no syscall.
 * events: BPF_MAP_TYPE_RINGBUF of struct klp_transition_event.
 */
#define KLP_MAX_HIT_KEYS	16384
#define KLP_RINGBUF_BYTES	(256 * 1024)

enum klp_event_type {
	KLP_EV_PATCH_REGISTER = 1,
	KLP_EV_PATCH_UNREGISTER,
	KLP_EV_PATCH_ENABLE,
	KLP_EV_PATCH_DISABLE,
	KLP_EV_FUNC_PUSH,
	KLP_EV_FUNC_POP,
	KLP_EV_OBJECT,
	KLP_EV_ENABLE_FAILED,
	KLP_EV_CALLBACK,
	KLP_EV_PATCH_REPLACED,
	KLP_EV_TRANSITION,	/* target in depth, action in ret, sweep in id */
	KLP_EV_TASK_BLOCKED,	/* pid, comm, reason in ret, sweep in id */
};

/*
 * Names, one length for the core, the BPF records and the tools, so a
 * name is never cut: two functions whose names share a prefix stay two.
 * A patch or an object is a module (names < MODULE_NAME_LEN, 56) or
 * "vmlinux".  A function is named as sysfs, the state file and the events
 * name it: its symbol, with ",<sympos>" after it for old_sympos > 1; the
 * core refuses a longer one (it must fit a sysfs directory entry and a
 * kernel symbol: min(NAME_MAX, KSYM_NAME_LEN - 1) is 255 on every kernel
 * klp supports).  The *_LEN sizes hold the name and its NUL.
 */
#define KLP_NAME_LEN		64	/* module names are < 56 */
#define KLP_CVE_MAX_LEN		255	/* the longest klp_patch.cve the core accepts */
#define KLP_FUNC_MAX_LEN	255	/* the longest function name the core accepts */
#define KLP_FUNC_LEN		(KLP_FUNC_MAX_LEN + 1)
#define KLP_COMM_LEN		16	/* TASK_COMM_LEN */

struct klp_transition_event {
	__u64 ts_ns;		/* bpf_ktime_get_ns() */
	__u64 seq;		/* the core's transition number (1, 2, ...) */
	__u32 type;		/* enum klp_event_type */
	__s32 ret;		/* result or error code; action for KLP_EV_OBJECT */
	__u64 old_addr;
	__u32 id;		/* enum klp_callback_kind for KLP_EV_CALLBACK */
	__u32 depth;
	__u32 winner_id;
	__s32 cause;		/* enum klp_cause, for push, pop, object, callback */
	char patch[KLP_NAME_LEN];
	char object[KLP_NAME_LEN];
	char winner[KLP_NAME_LEN];	/* the replacing patch for KLP_EV_PATCH_REPLACED */
	char func[KLP_FUNC_LEN];
	/* KLP_EV_TRANSITION: tasks not switched yet, of total */
	__u32 pending;
	__u32 total;
	/* KLP_EV_TASK_BLOCKED: the task */
	__s32 pid;
	char comm[KLP_COMM_LEN];
};

#endif /* _KLP_UAPI_H */
