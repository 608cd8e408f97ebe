// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * livepatch.bpf.c - the kernel's builtin livepatch, seen through BPF CO-RE:
 * its func_stacks and the calls to its patches' new functions
 *
 * lp_walk reads the builtin's own state: its list of struct klp_ops (one
 * per patched function, kernel/livepatch/patch.c), and on each one the
 * func_stack, top (the winner) first, exactly the list the builtin's
 * ftrace handler takes its winner from.  Userspace runs it on demand
 * (BPF_PROG_TEST_RUN of a raw tracepoint program: attached nowhere, run
 * under rcu_read_lock(), as the handler reads the stacks); the list's
 * address comes from /proc/kallsyms ("klp_ops", a static of patch.c).
 * Every read goes through bpf_probe_read_kernel(): a klp_ops freed while
 * the walk runs gives a fault or a bounded walk, never a crash, and the
 * walk says which (enum klp_lp_walk_status); userspace walks again.
 *
 * lp_count is attached by userspace as a kprobe on each new function of
 * the builtin's funcs (through ftrace: the entry of a module function),
 * with the func's counter slot as its BPF cookie: one increment in this
 * CPU's slice of an array, as bpf/klptop.bpf.c counts klp's calls
 * (doc/klptop.md says why this probe and what it counts).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include <klp/livepatch_source.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Set before load. */
const volatile __u32 nr_cpus = 1;
const volatile __u64 klp_ops_addr;	/* &klp_ops, the list head */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, KLP_LP_MAX_KEYS);	/* times nr_cpus at load */
	__type(key, __u32);
	__type(value, __u64);
} lp_hits SEC(".maps");

/* The last walk: read by userspace after each run. */
struct klp_lp_rec recs[KLP_LP_MAX_RECS];
__u32 nr_recs;
__u32 walk_status;		/* enum klp_lp_walk_status */
__u64 lp_lost_hits;		/* a slot or a CPU beyond the array */
__u32 nr_ops;			/* klp_ops of the last walk */
/*
 * Always 0, but a map value to the verifier: kernels before 6.8 verify a
 * bpf_loop() callback once, with the state of its first call, and would
 * drop as dead the branch a constant NULL fnode never takes.
 */
__u64 lp_unknown_zero;
__u64 lp_lost_events;		/* ring buffer full */
/*
 * Bumped after every change of the builtin's patches and stacks is done:
 * the end of a klp_enable_patch(), of a transition (its stacks pushed or
 * popped, its nops discarded), of a module's coming or going (its object
 * patched or unpatched).  Userspace reads it before a walk and walks
 * again only when it moved or a transition runs (source_livepatch.c).
 */
__u64 lp_gen;

/* The builtin's transition state (kernel/livepatch/transition.c). */
const volatile __u64 klp_transition_patch_addr;	/* struct klp_patch ** */
const volatile __u64 klp_target_state_addr;	/* int * */

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 64 * 1024);
} lp_events SEC(".maps");

struct walk {
	struct list_head *head;		/* &klp_ops */
	struct list_head *ops_node;	/* the current klp_ops' node */
	struct list_head *stack;	/* its func_stack's head */
	struct list_head *fnode;	/* the current func's stack_node; NULL: next ops */
	__u32 ops;
	__u32 pos;
};

static __always_inline void *read_ptr(const void *src)
{
	void *p = NULL;

	if (bpf_probe_read_kernel(&p, sizeof(p), src))
		return NULL;
	return p;
}

static __always_inline void kobj_name(char *dst, __u32 size,
				      const struct kobject *kobj)
{
	const char *name = BPF_CORE_READ(kobj, name);

	if (!name || bpf_probe_read_kernel_str(dst, size, name) < 0)
		dst[0] = '\0';
}

/* Record the func at w->fnode; false when the records are full. */
static __always_inline bool record(struct walk *w)
{
	struct klp_func *f = (void *)w->fnode -
		bpf_core_field_offset(struct klp_func, stack_node);
	struct kobject *obj, *patch;
	struct klp_lp_rec *r;
	__u32 n = nr_recs;

	if (n >= KLP_LP_MAX_RECS)
		return false;
	r = &recs[n];
	r->func = (__u64)f;
	r->old_func = (__u64)BPF_CORE_READ(f, old_func);
	r->new_func = (__u64)BPF_CORE_READ(f, new_func);
	r->ops = w->ops;
	r->pos = w->pos;
	r->transition = BPF_CORE_READ(f, transition);
	r->patched = BPF_CORE_READ(f, patched);
	r->nop = BPF_CORE_READ(f, nop);
	/* func's kobject is in its object's, the object's in its patch's */
	obj = BPF_CORE_READ(f, kobj.parent);
	patch = obj ? BPF_CORE_READ(obj, parent) : NULL;
	kobj_name(r->name, sizeof(r->name), &f->kobj);
	if (obj)
		kobj_name(r->object, sizeof(r->object), obj);
	else
		r->object[0] = '\0';
	if (patch) {
		kobj_name(r->patch, sizeof(r->patch), patch);
		r->patch_id = BPF_CORE_READ(patch, sd, id);
	} else {
		r->patch[0] = '\0';
		r->patch_id = 0;
	}
	nr_recs = n + 1;
	return true;
}

/* One step: to the next klp_ops, or one func of the current stack. */
static long walk_step(__u32 i, struct walk *w)
{
	struct klp_ops *ops;

	if (!w->fnode) {
		w->ops_node = read_ptr(&w->ops_node->next);
		if (!w->ops_node) {
			walk_status = KLP_LP_WALK_FAULT;
			return 1;
		}
		if (w->ops_node == w->head) {
			walk_status = KLP_LP_WALK_DONE;
			return 1;
		}
		ops = (void *)w->ops_node -
			bpf_core_field_offset(struct klp_ops, node);
		w->stack = (void *)ops +
			bpf_core_field_offset(struct klp_ops, func_stack);
		w->ops++;
		w->pos = 0;
		w->fnode = read_ptr(&w->stack->next);
		if (!w->fnode) {
			walk_status = KLP_LP_WALK_FAULT;
			return 1;
		}
		if (w->fnode == w->stack)
			w->fnode = NULL;	/* an empty stack: next ops */
		return 0;
	}
	if (!record(w)) {
		walk_status = KLP_LP_WALK_TRUNCATED;
		return 1;
	}
	w->pos++;
	w->fnode = read_ptr(&w->fnode->next);
	if (!w->fnode) {
		walk_status = KLP_LP_WALK_FAULT;
		return 1;
	}
	if (w->fnode == w->stack)
		w->fnode = NULL;
	return 0;
}

SEC("raw_tp")
int lp_walk(void *ctx)
{
	struct walk w = {
		.head = (struct list_head *)klp_ops_addr,
		.ops_node = (struct list_head *)klp_ops_addr,
		.fnode = (struct list_head *)lp_unknown_zero,
		.ops = (__u32)lp_unknown_zero,
		.pos = (__u32)lp_unknown_zero,
	};

	nr_recs = 0;
	walk_status = KLP_LP_WALK_STEPS;	/* unless the walk ends first */
	if (!klp_ops_addr) {
		walk_status = KLP_LP_WALK_FAULT;
		return 0;
	}
	bpf_loop(KLP_LP_MAX_STEPS, walk_step, &w, 0);
	nr_ops = w.ops;
	return 0;
}

/*
 * Events of the builtin's patches, from its own functions: one struct
 * klp_transition_event each (KLP_EV_TRANSITION: target in depth, the
 * enum klp_transition_action in ret; KLP_EV_PATCH_ENABLE/DISABLE at the
 * end of a transition, ret the error of a failed enable).  The builtin
 * has no sequence numbers: seq is 0, the ring buffer keeps the order.
 */
static __always_inline void emit(struct klp_patch *patch, __u32 type,
				 int target, int ret)
{
	struct klp_transition_event *e;
	struct module *mod;

	e = bpf_ringbuf_reserve(&lp_events, sizeof(*e), 0);
	if (!e) {
		__sync_fetch_and_add(&lp_lost_events, 1);
		return;
	}
	e->ts_ns = bpf_ktime_get_ns();
	e->seq = 0;
	e->type = type;
	e->ret = ret;
	e->old_addr = 0;
	e->id = 0;
	e->depth = target;
	e->winner_id = 0;
	e->cause = target == 1 ? KLP_CAUSE_ENABLE : KLP_CAUSE_DISABLE;
	e->pending = 0;
	e->total = 0;
	e->pid = 0;
	e->patch[0] = '\0';
	e->object[0] = '\0';
	e->winner[0] = '\0';
	e->func[0] = '\0';
	e->comm[0] = '\0';
	mod = patch ? BPF_CORE_READ(patch, mod) : NULL;
	if (mod && bpf_core_read_str(e->patch, sizeof(e->patch), &mod->name) < 0)
		e->patch[0] = '\0';
	bpf_ringbuf_submit(e, 0);
}

static __always_inline struct klp_patch *tr_patch(void)
{
	return read_ptr((void *)klp_transition_patch_addr);
}

static __always_inline int tr_target(void)
{
	int t = -1;

	bpf_probe_read_kernel(&t, sizeof(t), (void *)klp_target_state_addr);
	return t;
}

SEC("fentry/klp_init_transition")
int BPF_PROG(lp_init_transition, struct klp_patch *patch, int state)
{
	emit(patch, KLP_EV_TRANSITION, state, KLP_TR_START);
	return 0;
}

SEC("fentry/klp_complete_transition")
int BPF_PROG(lp_complete_transition)
{
	struct klp_patch *patch = tr_patch();
	int target = tr_target();

	emit(patch, KLP_EV_TRANSITION, target, KLP_TR_COMPLETE);
	emit(patch, target == 1 ? KLP_EV_PATCH_ENABLE : KLP_EV_PATCH_DISABLE,
	     target, 0);
	return 0;
}

SEC("fentry/klp_reverse_transition")
int BPF_PROG(lp_reverse_transition)
{
	/* the target it flips to */
	emit(tr_patch(), KLP_EV_TRANSITION, !tr_target(), KLP_TR_REVERSED);
	return 0;
}

SEC("fentry/klp_force_transition")
int BPF_PROG(lp_force_transition)
{
	emit(tr_patch(), KLP_EV_TRANSITION, tr_target(), KLP_TR_FORCED);
	return 0;
}

static __always_inline void bump(void)
{
	__sync_fetch_and_add(&lp_gen, 1);
}

SEC("fexit/klp_enable_patch")
int BPF_PROG(lp_enable_patch, struct klp_patch *patch, int ret)
{
	if (ret)	/* refused before any transition began */
		emit(patch, KLP_EV_PATCH_ENABLE, 1, ret);
	bump();
	return 0;
}

SEC("fexit/klp_complete_transition")
int BPF_PROG(lp_complete_done)
{
	bump();
	return 0;
}

SEC("fexit/klp_module_coming")
int BPF_PROG(lp_module_coming, struct module *mod, int ret)
{
	bump();
	return 0;
}

SEC("fexit/klp_module_going")
int BPF_PROG(lp_module_going, struct module *mod)
{
	bump();
	return 0;
}

SEC("kprobe")
int lp_count(struct pt_regs *ctx)
{
	__u32 cpu = bpf_get_smp_processor_id();
	__u64 key = bpf_get_attach_cookie(ctx);
	__u32 slot = cpu * KLP_LP_MAX_KEYS + (__u32)key;
	__u64 *val;

	/* this CPU's own slot; a kprobe program does not nest on a CPU */
	val = bpf_map_lookup_elem(&lp_hits, &slot);
	if (val && key < KLP_LP_MAX_KEYS && cpu < nr_cpus)
		(*val)++;
	else
		__sync_fetch_and_add(&lp_lost_hits, 1);
	return 0;
}
