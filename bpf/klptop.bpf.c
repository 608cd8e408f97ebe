// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * klptop.bpf.c - redirection counters and transition events for klptop
 *
 * klp:klp_redirect fires once per redirected call, from the core's ftrace
 * handler: count it by the winning func's id (which names the patched
 * function too) in this CPU's slice of an array (include/klp/uapi.h), so
 * the hot path is one bounds check and one increment, and takes no shared
 * cache line.  Userspace maps the array and reads it without a syscall.
 * The counters are monotonic: userspace takes deltas, nothing here ever
 * resets one.
 *
 * Every state change of the core (register, enable, disable, func_stack
 * push/pop, module coming/going, enable failure) goes to a ring buffer as
 * one struct klp_transition_event, so klptop stays current without
 * polling sysfs.
 *
 * Every program is a raw tracepoint: it runs straight from the tracepoint
 * with its arguments (declared once, in include/klp/uapi.h), without the
 * trace record and the perf event a tp/ program sits behind, so a call
 * costs less, perf's own view of the events is untouched, and nothing here
 * depends on a record's layout.  Strings are the core's, read with
 * bpf_probe_read_kernel_str().  (No tp_btf: Debian's headers ship no
 * module BTF for a module built out of tree.)
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <klp/uapi.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Set before load: the possible CPUs, and hits' size with them. */
const volatile __u32 nr_cpus = 1;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, KLP_MAX_HIT_KEYS);	/* times nr_cpus at load */
	__type(key, __u32);
	__type(value, __u64);
} hits SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, KLP_RINGBUF_BYTES);
} events SEC(".maps");

/* Read by userspace: anything lost here means its view is incomplete. */
__u64 lost_hits = 0;		/* an id or a CPU beyond the array */
__u64 lost_events = 0;		/* ring buffer full */

SEC("raw_tp/klp_redirect")
int BPF_PROG(klptop_redirect, KLP_TP_REDIRECT_PROTO)
{
	__u32 cpu = bpf_get_smp_processor_id();
	__u32 slot = cpu * KLP_MAX_HIT_KEYS + id;
	__u64 *val;

	/*
	 * The slot is this CPU's own, tracepoints run with preemption off
	 * and a program does not nest on a CPU: a plain increment is exact.
	 */
	val = bpf_map_lookup_elem(&hits, &slot);
	if (val && id < KLP_MAX_HIT_KEYS && cpu < nr_cpus)
		(*val)++;
	else
		__sync_fetch_and_add(&lost_hits, 1);
	return 0;
}

static __always_inline void copy_str(char *dst, __u32 size, const char *src)
{
	if (bpf_probe_read_kernel_str(dst, size, src) < 0)
		dst[0] = '\0';
}

static __always_inline struct klp_transition_event *
reserve_event(__u32 type, __u64 seq)
{
	struct klp_transition_event *e;

	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		__sync_fetch_and_add(&lost_events, 1);
		return NULL;
	}
	/* Reserved memory is not zeroed; set every field a reader may look at. */
	e->ts_ns = bpf_ktime_get_ns();
	e->seq = seq;
	e->type = type;
	e->ret = 0;
	e->old_addr = 0;
	e->id = 0;
	e->depth = 0;
	e->winner_id = 0;
	e->cause = 0;
	e->patch[0] = '\0';
	e->object[0] = '\0';
	e->winner[0] = '\0';
	e->func[0] = '\0';
	e->pending = 0;
	e->total = 0;
	e->pid = 0;
	e->comm[0] = '\0';
	return e;
}

static __always_inline int patch_event(__u32 type, KLP_TP_PATCH_PROTO)
{
	struct klp_transition_event *e = reserve_event(type, seq);

	if (!e)
		return 0;
	e->ret = ret;
	copy_str(e->patch, sizeof(e->patch), patch);
	bpf_ringbuf_submit(e, 0);
	return 0;
}

SEC("raw_tp/klp_patch_register")
int BPF_PROG(klptop_register, KLP_TP_PATCH_PROTO)
{
	return patch_event(KLP_EV_PATCH_REGISTER, seq, patch, ret);
}

SEC("raw_tp/klp_patch_unregister")
int BPF_PROG(klptop_unregister, KLP_TP_PATCH_PROTO)
{
	return patch_event(KLP_EV_PATCH_UNREGISTER, seq, patch, ret);
}

SEC("raw_tp/klp_patch_enable")
int BPF_PROG(klptop_enable, KLP_TP_PATCH_PROTO)
{
	return patch_event(KLP_EV_PATCH_ENABLE, seq, patch, ret);
}

SEC("raw_tp/klp_patch_disable")
int BPF_PROG(klptop_disable, KLP_TP_PATCH_PROTO)
{
	return patch_event(KLP_EV_PATCH_DISABLE, seq, patch, ret);
}

static __always_inline int func_event(__u32 type, KLP_TP_FUNC_PROTO)
{
	struct klp_transition_event *e = reserve_event(type, seq);

	if (!e)
		return 0;
	e->old_addr = old_addr;
	e->id = id;
	e->depth = depth;
	e->winner_id = winner_id;
	e->cause = cause;
	copy_str(e->object, sizeof(e->object), object);
	copy_str(e->func, sizeof(e->func), func);
	copy_str(e->patch, sizeof(e->patch), patch);
	copy_str(e->winner, sizeof(e->winner), winner);
	bpf_ringbuf_submit(e, 0);
	return 0;
}

SEC("raw_tp/klp_func_push")
int BPF_PROG(klptop_push, KLP_TP_FUNC_PROTO)
{
	return func_event(KLP_EV_FUNC_PUSH, seq, object, func, patch,
			  old_addr, id, depth, winner, winner_id, cause);
}

SEC("raw_tp/klp_func_pop")
int BPF_PROG(klptop_pop, KLP_TP_FUNC_PROTO)
{
	return func_event(KLP_EV_FUNC_POP, seq, object, func, patch,
			  old_addr, id, depth, winner, winner_id, cause);
}

SEC("raw_tp/klp_object")
int BPF_PROG(klptop_object, KLP_TP_OBJECT_PROTO)
{
	struct klp_transition_event *e = reserve_event(KLP_EV_OBJECT, seq);

	if (!e)
		return 0;
	e->ret = action;
	e->cause = cause;
	copy_str(e->patch, sizeof(e->patch), patch);
	copy_str(e->object, sizeof(e->object), object);
	bpf_ringbuf_submit(e, 0);
	return 0;
}

SEC("raw_tp/klp_patch_replaced")
int BPF_PROG(klptop_replaced, KLP_TP_PATCH_REPLACED_PROTO)
{
	struct klp_transition_event *e = reserve_event(KLP_EV_PATCH_REPLACED,
							     seq);

	if (!e)
		return 0;
	copy_str(e->patch, sizeof(e->patch), patch);
	copy_str(e->winner, sizeof(e->winner), by);
	bpf_ringbuf_submit(e, 0);
	return 0;
}

SEC("raw_tp/klp_callback")
int BPF_PROG(klptop_callback, KLP_TP_CALLBACK_PROTO)
{
	struct klp_transition_event *e = reserve_event(KLP_EV_CALLBACK, seq);

	if (!e)
		return 0;
	e->id = which;
	e->cause = cause;
	e->ret = ret;
	copy_str(e->patch, sizeof(e->patch), patch);
	copy_str(e->object, sizeof(e->object), object);
	bpf_ringbuf_submit(e, 0);
	return 0;
}

SEC("raw_tp/klp_enable_failed")
int BPF_PROG(klptop_failed, KLP_TP_ENABLE_FAILED_PROTO)
{
	struct klp_transition_event *e = reserve_event(KLP_EV_ENABLE_FAILED,
							     seq);

	if (!e)
		return 0;
	e->ret = err;
	copy_str(e->patch, sizeof(e->patch), patch);
	copy_str(e->object, sizeof(e->object), object);
	copy_str(e->func, sizeof(e->func), func);
	bpf_ringbuf_submit(e, 0);
	return 0;
}

/*
 * The consistency model's events: attached only where the core has them
 * (source_klp_attach.c), so klptop keeps working with a core from before it.
 */
SEC("raw_tp/klp_transition")
int BPF_PROG(klptop_transition, KLP_TP_TRANSITION_PROTO)
{
	struct klp_transition_event *e = reserve_event(KLP_EV_TRANSITION, seq);

	if (!e)
		return 0;
	e->depth = target;
	e->ret = action;
	e->id = sweep;
	e->pending = pending;
	e->total = total;
	copy_str(e->patch, sizeof(e->patch), patch);
	bpf_ringbuf_submit(e, 0);
	return 0;
}

SEC("raw_tp/klp_task_blocked")
int BPF_PROG(klptop_task_blocked, KLP_TP_TASK_BLOCKED_PROTO)
{
	struct klp_transition_event *e = reserve_event(KLP_EV_TASK_BLOCKED,
							     seq);

	if (!e)
		return 0;
	e->ret = reason;
	e->id = sweep;
	e->pid = pid;
	copy_str(e->patch, sizeof(e->patch), patch);
	copy_str(e->comm, sizeof(e->comm), comm);
	copy_str(e->func, sizeof(e->func), func);
	bpf_ringbuf_submit(e, 0);
	return 0;
}
