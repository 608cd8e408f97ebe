/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * uapi.h - what crosses the kernel/BPF/userspace boundary of klp
 *
 * Included by the core module, by the BPF programs (after vmlinux.h) and by
 * userspace.  The *_ctx structs mirror the records of the klp:* tracepoints
 * (see /sys/kernel/tracing/events/klp/<event>/format); the selftests check
 * every offset here against those format files.
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
};

/* Common header of every trace record. */
struct klp_trace_common {
	__u16 common_type;
	__u8 common_flags;
	__u8 common_preempt_count;
	__s32 common_pid;
};

/* A __data_loc field: offset of the string from the record start, and length. */
#define KLP_DATA_LOC_OFF(loc) ((loc) & 0xffff)
#define KLP_DATA_LOC_LEN(loc) ((loc) >> 16)

/* klp:klp_redirect */
struct klp_redirect_ctx {
	struct klp_trace_common common;
	__u64 old_addr;
	__u64 new_func;
	__u32 id;
	__u32 func;		/* __data_loc char[]: the patched function */
	__u32 patch;		/* __data_loc char[]: the winning patch */
};

/* klp:klp_patch_{register,unregister,enable,disable} */
struct klp_patch_ctx {
	struct klp_trace_common common;
	__u64 seq;		/* the core's transition number */
	__u32 patch;		/* __data_loc char[] */
	__s32 ret;
};

/* klp:klp_func_{push,pop} */
struct klp_func_ctx {
	struct klp_trace_common common;
	__u64 seq;
	__u32 object;		/* __data_loc char[] */
	__u32 func;		/* __data_loc char[] */
	__u32 patch;		/* __data_loc char[] */
	__u32 winner;		/* __data_loc char[] */
	__u64 old_addr;
	__u32 id;
	__u32 depth;
	__u32 winner_id;
	__s32 cause;		/* enum klp_cause */
};

/* klp:klp_object */
struct klp_object_ctx {
	struct klp_trace_common common;
	__u64 seq;
	__u32 patch;		/* __data_loc char[] */
	__u32 object;		/* __data_loc char[] */
	__s32 action;		/* enum klp_obj_action */
	__s32 cause;		/* enum klp_cause */
};

/* klp:klp_enable_failed */
struct klp_enable_failed_ctx {
	struct klp_trace_common common;
	__u64 seq;
	__u32 patch;		/* __data_loc char[] */
	__u32 object;		/* __data_loc char[] */
	__u32 func;		/* __data_loc char[] */
	__s32 err;
};

/*
 * BPF maps.  hits: BPF_MAP_TYPE_PERCPU_HASH, key struct klp_hit_key,
 * value __u64 per CPU, monotonic (never reset; readers take deltas).
 * events: BPF_MAP_TYPE_RINGBUF of struct klp_transition_event.
 */
#define KLP_MAX_HIT_KEYS	16384
#define KLP_RINGBUF_BYTES	(256 * 1024)

struct klp_hit_key {
	__u64 old_addr;		/* the patched function */
	__u32 id;		/* the winning klp_func (sysfs .../<func>/id) */
	__u32 pad;
};

enum klp_event_type {
	KLP_EV_PATCH_REGISTER = 1,
	KLP_EV_PATCH_UNREGISTER,
	KLP_EV_PATCH_ENABLE,
	KLP_EV_PATCH_DISABLE,
	KLP_EV_FUNC_PUSH,
	KLP_EV_FUNC_POP,
	KLP_EV_OBJECT,
	KLP_EV_ENABLE_FAILED,
};

#define KLP_NAME_LEN	64	/* module names are < 56 */
#define KLP_FUNC_LEN	128	/* longer function names are truncated */

struct klp_transition_event {
	__u64 ts_ns;		/* bpf_ktime_get_ns() */
	__u64 seq;		/* the core's transition number (1, 2, ...) */
	__u32 type;		/* enum klp_event_type */
	__s32 ret;		/* result or error code; action for KLP_EV_OBJECT */
	__u64 old_addr;
	__u32 id;
	__u32 depth;
	__u32 winner_id;
	__s32 cause;		/* enum klp_cause, for push, pop and object */
	char patch[KLP_NAME_LEN];
	char object[KLP_NAME_LEN];
	char winner[KLP_NAME_LEN];
	char func[KLP_FUNC_LEN];
};

#endif /* _KLP_UAPI_H */
