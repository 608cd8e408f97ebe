// SPDX-License-Identifier: GPL-2.0
/*
 * klp-trace_builtin_rec.c - what a hit of klp-trace's probes on the
 * builtin livepatch's own functions means, as records in the names klp's
 * own events use
 *
 * The probes (klp-trace_builtin.c) sit where bpf/livepatch.bpf.c's
 * programs sit, and their hits become the records those programs give
 * klptop's log:
 *
 *   klp_init_transition(patch, state)  klp_transition action=start,
 *                                      target=state
 *   klp_complete_transition()          klp_transition action=complete,
 *                                      then klp_patch_enable (target 1) or
 *                                      klp_patch_disable (target 0), ret=0
 *   klp_reverse_transition()           klp_transition action=reversed,
 *                                      target the one it flips to
 *   klp_force_transition()             klp_transition action=forced
 *   klp_enable_patch() returning err   klp_patch_enable ret=err (refused
 *                                      before or while its transition began)
 *
 * The patch is its module's name; the target klp_target_state, read when
 * the function is entered.  A kretprobe has no arguments: the return of
 * klp_enable_patch() is paired with its entry by pid (the entry's record
 * can be read a buffer read after the return's, so whichever comes first
 * waits for the other).  Nothing here touches tracefs: the host test
 * drives it (selftests/host/37-klp-trace-builtin.sh).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <klp/uapi.h>
#include "json.h"
#include "klp-trace_builtin.h"
#include "transition_names.h"

/* The function each probe is on. */
const char *const lpt_functions[LPT_NR] = {
	[LPT_INIT] = "klp_init_transition",
	[LPT_COMPLETE] = "klp_complete_transition",
	[LPT_REVERSE] = "klp_reverse_transition",
	[LPT_FORCE] = "klp_force_transition",
	[LPT_ENABLE] = "klp_enable_patch",
	[LPT_ENABLE_RET] = "klp_enable_patch",
};

/**
 * lpt_fetch_args() - the kprobe event's fetch args for one probe
 * @buf:   where to
 * @size:  its size
 * @probe: which
 * @off:   struct offsets from the kernel's BTF
 *
 * The patch is patch->mod->name: a string inside struct module, reached
 * from the argument (klp_init_transition, klp_enable_patch) or from the
 * builtin's klp_transition_patch; the target is klp_target_state (or
 * klp_init_transition's state argument).
 *
 * Return: 0, or -ENOSPC when @buf is too small.
 */
int lpt_fetch_args(char *buf, size_t size, enum lpt_probe probe,
		   const struct lpt_offsets *off)
{
	int n;

	switch (probe) {
	case LPT_INIT:
		n = snprintf(buf, size, "patch=+%u(+%u($arg1)):string target=$arg2:s32",
			     off->module_name, off->patch_mod);
		break;
	case LPT_COMPLETE:
	case LPT_REVERSE:
	case LPT_FORCE:
		n = snprintf(buf, size, "patch=+%u(+%u(@klp_transition_patch)):string target=@klp_target_state:s32",
			     off->module_name, off->patch_mod);
		break;
	case LPT_ENABLE:
		n = snprintf(buf, size, "patch=+%u(+%u($arg1)):string",
			     off->module_name, off->patch_mod);
		break;
	case LPT_ENABLE_RET:
		n = snprintf(buf, size, "ret=$retval:s32");
		break;
	default:
		return -EINVAL;
	}
	return n < 0 || (size_t)n >= size ? -ENOSPC : 0;
}

static void set_rec(struct lpt_rec *r, const char *event, const char *patch,
		    int target, int action, int ret, unsigned long long ts)
{
	r->event = event;
	snprintf(r->patch, sizeof(r->patch), "%s", patch ? patch : "");
	r->target = target;
	r->action = action;
	r->ret = ret;
	r->ts = ts;
}

/* The pending half of @pid's enable, of the other kind; -1: none. */
static int find_pending(const struct lpt_decoder *d, int pid, bool is_ret)
{
	int i;

	for (i = 0; i < d->nr_pending; i++)
		if (d->pending[i].pid == pid && d->pending[i].is_ret == is_ret)
			return i;
	return -1;
}

static void drop_pending(struct lpt_decoder *d, int i)
{
	memmove(&d->pending[i], &d->pending[i + 1],
		(d->nr_pending - i - 1) * sizeof(d->pending[0]));
	d->nr_pending--;
}

/* Hold one half of an enable until the other comes; the oldest goes when full. */
static void hold(struct lpt_decoder *d, const struct lpt_hit *hit)
{
	struct lpt_pending *p;
	int i = find_pending(d, hit->pid, hit->probe == LPT_ENABLE_RET);

	if (i >= 0) {		/* one of an earlier call never paired */
		drop_pending(d, i);
		d->dropped++;
	}
	if (d->nr_pending == LPT_MAX_PENDING) {
		drop_pending(d, 0);
		d->dropped++;
	}
	p = &d->pending[d->nr_pending++];
	p->pid = hit->pid;
	p->is_ret = hit->probe == LPT_ENABLE_RET;
	p->ret = hit->ret;
	p->ts = hit->ts;
	snprintf(p->patch, sizeof(p->patch), "%s", hit->patch ? hit->patch : "");
}

/* An enable's two halves: a record when it failed. */
static int enable_done(struct lpt_rec *out, const char *patch, int ret,
		       unsigned long long ts)
{
	if (!ret)	/* a success is told by its transition's complete */
		return 0;
	set_rec(out, "klp_patch_enable", patch, 1, 0, ret, ts);
	return 1;
}

/**
 * lpt_decode() - the records one probe hit makes
 * @d:   the pairing of klp_enable_patch()'s entries and returns
 * @hit: the hit
 * @out: up to two records
 *
 * Return: how many records are in @out (0, 1 or 2).
 */
int lpt_decode(struct lpt_decoder *d, const struct lpt_hit *hit,
	       struct lpt_rec out[2])
{
	const char *tr = "klp_transition";
	char patch[LPT_NAME_LEN];
	unsigned long long ts;
	int i, ret;

	switch (hit->probe) {
	case LPT_INIT:
		set_rec(out, tr, hit->patch, hit->target, KLP_TR_START, 0, hit->ts);
		return 1;
	case LPT_COMPLETE:
		set_rec(out, tr, hit->patch, hit->target, KLP_TR_COMPLETE, 0,
			hit->ts);
		set_rec(out + 1, hit->target == 1 ? "klp_patch_enable" :
			"klp_patch_disable", hit->patch, hit->target, 0, 0,
			hit->ts);
		return 2;
	case LPT_REVERSE:
		set_rec(out, tr, hit->patch, !hit->target, KLP_TR_REVERSED, 0,
			hit->ts);
		return 1;
	case LPT_FORCE:
		set_rec(out, tr, hit->patch, hit->target, KLP_TR_FORCED, 0,
			hit->ts);
		return 1;
	case LPT_ENABLE:
		i = find_pending(d, hit->pid, true);
		if (i < 0 || d->pending[i].ts < hit->ts) {
			hold(d, hit);
			return 0;
		}
		ret = d->pending[i].ret;
		ts = d->pending[i].ts;
		drop_pending(d, i);
		return enable_done(out, hit->patch, ret, ts);
	case LPT_ENABLE_RET:
		i = find_pending(d, hit->pid, false);
		if (i < 0 || d->pending[i].ts > hit->ts) {
			hold(d, hit);
			return 0;
		}
		memcpy(patch, d->pending[i].patch, sizeof(patch));
		drop_pending(d, i);
		return enable_done(out, patch, hit->ret, hit->ts);
	default:
		return 0;
	}
}

/**
 * lpt_print_fields() - a builtin record's fields, as klp's records print
 * theirs (klp-trace_format.c) but led by its core: " core=livepatch
 * patch=P target=1 action=start" (a sweep with " pending=N total=M"
 * after it) or " core=livepatch patch=P ret=0"; in
 * JSON ",\"core\":\"livepatch\",..." with the action's "action_sym"
 * @out:  where to
 * @json: JSON, else text
 * @r:    the record
 */
void lpt_print_fields(FILE *out, bool json, const struct lpt_rec *r)
{
	bool tr = !strcmp(r->event, "klp_transition");
	size_t len = strnlen(r->patch, sizeof(r->patch));

	if (json) {
		fputs(",\"core\":\"" CORE_LIVEPATCH "\",\"patch\":", out);
		json_put_str(out, r->patch, len);
		if (tr)
			fprintf(out, ",\"target\":%d,\"action\":%d,\"action_sym\":\"%s\"",
				r->target, r->action, klp_tr_action_name(r->action));
		if (tr && r->action == KLP_TR_SWEEP)
			fprintf(out, ",\"pending\":%u,\"total\":%u", r->pending,
				r->total);
		if (!tr)
			fprintf(out, ",\"ret\":%d", r->ret);
		return;
	}
	fputs(" core=" CORE_LIVEPATCH " patch=", out);
	json_put_text(out, r->patch, len);
	if (tr)
		fprintf(out, " target=%d action=%s", r->target,
			klp_tr_action_name(r->action));
	if (tr && r->action == KLP_TR_SWEEP)
		fprintf(out, " pending=%u total=%u", r->pending, r->total);
	if (!tr)
		fprintf(out, " ret=%d", r->ret);
}
