// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * klptop.bpf.c - redirection counters and transition events for klptop
 *
 * klp:klp_redirect fires once per redirected call, from the core's ftrace
 * handler: count it per (patched function, winning func id) in a per-CPU
 * hash, so the hot path takes no shared cache line.  The counters are
 * monotonic: userspace reads them and takes deltas, nothing here ever
 * resets or deletes an entry.
 *
 * Every state change of the core (register, enable, disable, func_stack
 * push/pop, module coming/going, enable failure) goes to a ring buffer as
 * one struct klp_transition_event, so klptop stays current without
 * polling sysfs.
 *
 * The context structs of the module's tracepoints come from
 * include/klp/uapi.h (no module BTF on the stock kernel, so no tp_btf);
 * klp_redirect, whose arguments are plain integers, is a raw tracepoint.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <klp/uapi.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/*
 * A tp/ program's return value filters the event for perf: on 0,
 * perf_trace_run_bpf_submit() drops it for every perf event on that
 * tracepoint, so `perf record -e klp:*` beside klptop would see no
 * transitions.  klptop only watches: those programs let the event through.
 */
#define KLP_TP_PASS 1

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, KLP_MAX_HIT_KEYS);
	__type(key, struct klp_hit_key);
	__type(value, __u64);
} hits SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, KLP_RINGBUF_BYTES);
} events SEC(".maps");

/* Read by userspace: anything lost here means its view is incomplete. */
__u64 lost_hits = 0;		/* hits map full */
__u64 lost_events = 0;		/* ring buffer full */

/*
 * A raw tracepoint: run straight from the tracepoint with its arguments,
 * without the trace record and the perf event a tp/ program sits behind,
 * so each call costs less and perf's own view of the event is untouched.
 */
SEC("raw_tp/klp_redirect")
int BPF_PROG(klptop_redirect, unsigned long old_addr, unsigned long new_func,
	     unsigned int id)
{
	struct klp_hit_key key = {
		.old_addr = old_addr,
		.id = id,
	};
	__u64 one = 1;
	__u64 *val;

	/*
	 * Tracepoint programs do not nest on a CPU and the value is this
	 * CPU's own slot, so a plain increment is exact.
	 */
	val = bpf_map_lookup_elem(&hits, &key);
	if (val) {
		(*val)++;
		return 0;
	}
	/* First hit of this pair; another CPU may insert it concurrently. */
	if (!bpf_map_update_elem(&hits, &key, &one, BPF_NOEXIST))
		return 0;
	val = bpf_map_lookup_elem(&hits, &key);
	if (val)
		(*val)++;
	else
		__sync_fetch_and_add(&lost_hits, 1);
	return 0;
}

/* __data_loc strings live at ctx + low 16 bits of the field. */
static __always_inline void copy_loc_str(char *dst, __u32 size, void *ctx,
					 __u32 loc)
{
	if (bpf_probe_read_kernel_str(dst, size, ctx + KLP_DATA_LOC_OFF(loc)) < 0)
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
	return e;
}

static __always_inline int handle_patch(struct klp_patch_ctx *ctx, __u32 type)
{
	struct klp_transition_event *e = reserve_event(type, ctx->seq);

	if (!e)
		return KLP_TP_PASS;
	e->ret = ctx->ret;
	copy_loc_str(e->patch, sizeof(e->patch), ctx, ctx->patch);
	bpf_ringbuf_submit(e, 0);
	return KLP_TP_PASS;
}

SEC("tp/klp/klp_patch_register")
int klptop_register(struct klp_patch_ctx *ctx)
{
	return handle_patch(ctx, KLP_EV_PATCH_REGISTER);
}

SEC("tp/klp/klp_patch_unregister")
int klptop_unregister(struct klp_patch_ctx *ctx)
{
	return handle_patch(ctx, KLP_EV_PATCH_UNREGISTER);
}

SEC("tp/klp/klp_patch_enable")
int klptop_enable(struct klp_patch_ctx *ctx)
{
	return handle_patch(ctx, KLP_EV_PATCH_ENABLE);
}

SEC("tp/klp/klp_patch_disable")
int klptop_disable(struct klp_patch_ctx *ctx)
{
	return handle_patch(ctx, KLP_EV_PATCH_DISABLE);
}

static __always_inline int handle_func(struct klp_func_ctx *ctx, __u32 type)
{
	struct klp_transition_event *e = reserve_event(type, ctx->seq);

	if (!e)
		return KLP_TP_PASS;
	e->old_addr = ctx->old_addr;
	e->id = ctx->id;
	e->depth = ctx->depth;
	e->winner_id = ctx->winner_id;
	e->cause = ctx->cause;
	copy_loc_str(e->object, sizeof(e->object), ctx, ctx->object);
	copy_loc_str(e->func, sizeof(e->func), ctx, ctx->func);
	copy_loc_str(e->patch, sizeof(e->patch), ctx, ctx->patch);
	copy_loc_str(e->winner, sizeof(e->winner), ctx, ctx->winner);
	bpf_ringbuf_submit(e, 0);
	return KLP_TP_PASS;
}

SEC("tp/klp/klp_func_push")
int klptop_push(struct klp_func_ctx *ctx)
{
	return handle_func(ctx, KLP_EV_FUNC_PUSH);
}

SEC("tp/klp/klp_func_pop")
int klptop_pop(struct klp_func_ctx *ctx)
{
	return handle_func(ctx, KLP_EV_FUNC_POP);
}

SEC("tp/klp/klp_object")
int klptop_object(struct klp_object_ctx *ctx)
{
	struct klp_transition_event *e = reserve_event(KLP_EV_OBJECT, ctx->seq);

	if (!e)
		return KLP_TP_PASS;
	e->ret = ctx->action;
	e->cause = ctx->cause;
	copy_loc_str(e->patch, sizeof(e->patch), ctx, ctx->patch);
	copy_loc_str(e->object, sizeof(e->object), ctx, ctx->object);
	bpf_ringbuf_submit(e, 0);
	return KLP_TP_PASS;
}

SEC("tp/klp/klp_enable_failed")
int klptop_failed(struct klp_enable_failed_ctx *ctx)
{
	struct klp_transition_event *e = reserve_event(KLP_EV_ENABLE_FAILED,
							     ctx->seq);

	if (!e)
		return KLP_TP_PASS;
	e->ret = ctx->err;
	copy_loc_str(e->patch, sizeof(e->patch), ctx, ctx->patch);
	copy_loc_str(e->object, sizeof(e->object), ctx, ctx->object);
	copy_loc_str(e->func, sizeof(e->func), ctx, ctx->func);
	bpf_ringbuf_submit(e, 0);
	return KLP_TP_PASS;
}
