// SPDX-License-Identifier: GPL-2.0
/*
 * klp-trace_calls.c - each call of a builtin livepatch func, as a record
 * in the names of klp's klp_redirect
 *
 * A kprobe event on each builtin func's new function (the replacement in
 * the patch's module): every call that runs that func's code hits it, the
 * redirected calls and, as doc/klptop.md's table says for klptop's
 * counter, calls the patch makes to its own new function directly and, in
 * a transition, calls an unswitched task makes to the func below the
 * winner.  A nop func (a replace patch's) runs the original function: it
 * gets no probe.  Which funcs there are, which new function each has and
 * which one wins its function (the top of its func_stack) come from a walk
 * of the builtin's own klp_ops list through /proc/kcore
 * (livepatch_walk_lib.c), with no BPF: the record's patch is the func's,
 * its winner the top of the func_stack at the last walk.
 *
 * The walk runs again after every record of the builtin's state changes
 * (an enable, a transition's start or end) and every interval: a func new
 * since then gets its event.  A func that left the stacks (its patch
 * disabled, or the module it patches unloaded) has its event disabled at
 * once, and removed at the next walk, after the read between has taken
 * its last records; its slot goes to the next func found.  A func found
 * again later (that module loaded again) is a new one, with an event of
 * its own: one event per func on the stacks, so one record per call
 * however often a module comes and goes.  The events are in klp-trace's
 * group, enabled in its instance only, and removed on exit as the others
 * (klp-trace_builtin.c).  A call before the walk that found its func is
 * not seen.
 *
 * Every record klp-trace reads asks lpc_find() whether it is a call: the
 * funcs are indexed by their event's id (hindex.h; an id, not the
 * tep_event: a kernel that hands a removed event's id to the next one,
 * as 6.12's does, leaves two events of that id in the tep), by (struct klp_func, new
 * function, patch) for the walk's records, and the walk's tops by
 * old_func, so a lookup costs the same with 1000 builtin funcs as with
 * one, and a walk's sync is linear in them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/btf.h>
#include <tracefs.h>

#include "alloc.h"
#include "btfoff.h"
#include "json.h"
#include "kcore.h"
#include "klp-trace.h"

static int say(const char *what, int err)
{
	fprintf(stderr, "klp-trace: builtin livepatch: no per-call records: %s: %s\n",
		what, strerror(err));
	return -1;
}

/* The walk's offsets from /sys/kernel/btf/vmlinux. */
static int read_walk_offsets(struct lpw_offsets *o)
{
	static const struct {
		const char *sname, *member;
		size_t off;
	} m[] = {
		{ "klp_ops", "node", offsetof(struct lpw_offsets, ops_node) },
		{ "klp_ops", "func_stack", offsetof(struct lpw_offsets, ops_func_stack) },
		{ "klp_func", "stack_node", offsetof(struct lpw_offsets, func_stack_node) },
		{ "klp_func", "old_func", offsetof(struct lpw_offsets, func_old_func) },
		{ "klp_func", "new_func", offsetof(struct lpw_offsets, func_new_func) },
		{ "klp_func", "kobj", offsetof(struct lpw_offsets, func_kobj) },
		{ "klp_func", "transition", offsetof(struct lpw_offsets, func_transition) },
		{ "klp_func", "patched", offsetof(struct lpw_offsets, func_patched) },
		{ "klp_func", "nop", offsetof(struct lpw_offsets, func_nop) },
		{ "kobject", "name", offsetof(struct lpw_offsets, kobj_name) },
		{ "kobject", "parent", offsetof(struct lpw_offsets, kobj_parent) },
		{ NULL },
	};
	struct btf *btf = btf__load_vmlinux_btf();
	size_t i;
	int err = 0;

	if (!btf)
		return say("the kernel's BTF (/sys/kernel/btf/vmlinux)", errno);
	for (i = 0; m[i].sname && !err; i++)
		err = btf_struct_member(btf, m[i].sname, m[i].member,
					(unsigned int *)((char *)o + m[i].off));
	btf__free(btf);
	return err ? -1 : 0;
}

/**
 * lpc_open() - get ready to walk the builtin's func_stacks
 * @c: zeroed
 *
 * Return: 0, or -1 after saying what is missing (/proc/kcore, the
 * klp_ops symbol, BTF); klp-trace then goes on without per-call records.
 */
int lpc_open(struct lp_calls *c)
{
	int err;

	c->head = klp_ksyms_data_addr("klp_ops");
	if (!c->head)
		return say("klp_ops not in /proc/kallsyms (CONFIG_KALLSYMS_ALL)",
			   ENOENT);
	err = kcore_open(&c->kc, NULL);
	if (err)
		return say("reading " KCORE_PATH, -err);
	c->res.recs = calloc(KLP_LP_MAX_RECS, sizeof(*c->res.recs));
	if (read_walk_offsets(&c->off) || !c->res.recs) {
		if (!c->res.recs)
			say("its records", ENOMEM);
		kcore_close(&c->kc);
		free(c->res.recs);
		c->res.recs = NULL;
		return -1;
	}
	c->on = true;
	return 0;
}

/* A func's key in by_key: its struct klp_func, new function and patch. */
static unsigned long long call_key(unsigned long long kfunc,
				   unsigned long long new_func,
				   const char *patch)
{
	unsigned long long h = HINDEX_FNV1A_INIT;

	h = hindex_fnv1a(h, &kfunc, sizeof(kfunc));
	h = hindex_fnv1a(h, &new_func, sizeof(new_func));
	return hindex_fnv1a(h, patch, strlen(patch));
}

/* The calls indexed anew, after slots were freed. */
static int reindex(struct lp_calls *c)
{
	const struct lp_call *k;
	size_t i;

	hindex_clear(&c->by_key);
	hindex_clear(&c->by_event);
	for (i = 0; i < c->nr; i++) {
		k = &c->calls[i];
		if (k->state == LPC_LIVE &&
		    hindex_add(&c->by_key, call_key(k->kfunc, k->new_func, k->patch), i))
			return say("its records", ENOMEM);
		if (hindex_add(&c->by_event, k->event_id, i))
			return say("its records", ENOMEM);
	}
	return 0;
}

/* A call's event removed from kprobe_events (disabled in the instance). */
static void remove_event(struct lp_call *k, const char *group)
{
	/* force: disabled wherever it is on (only ours can be) */
	if (tracefs_dynevent_destroy(k->dev, false) &&
	    tracefs_dynevent_destroy(k->dev, true))
		fprintf(stderr, "klp-trace: cannot remove kprobe event %s/%s: %s\n",
			group, k->name, strerror(errno));
	tracefs_dynevent_free(k->dev);
	k->dev = NULL;
}

/*
 * The draining calls' events removed, their slots freed: the buffers were
 * read since they were disabled, so no record of theirs is left.  The
 * others keep their order.
 */
static int drop_drained(struct lp_calls *c, const char *group)
{
	size_t i, n = 0;

	for (i = 0; i < c->nr; i++) {
		if (c->calls[i].state == LPC_DRAINING) {
			remove_event(&c->calls[i], group);
			continue;
		}
		if (n != i)
			c->calls[n] = c->calls[i];
		n++;
	}
	if (n == c->nr)
		return 0;
	c->nr = n;
	return reindex(c);
}

/* A live call whose func left the stacks: its event off, to be removed. */
static void retire(struct lp_calls *c, struct lp_call *k, const char *group,
		   struct tracefs_instance *inst)
{
	if (k->enabled && tracefs_event_disable(inst, group, k->name))
		fprintf(stderr, "klp-trace: cannot disable %s/%s\n", group,
			k->name);
	k->enabled = false;
	k->state = LPC_DRAINING;
	c->live--;
}

static struct lp_call *find_call(struct lp_calls *c, const struct klp_lp_rec *r)
{
	struct hindex_iter it;
	struct lp_call *k;
	size_t i;

	hindex_find(&c->by_key, call_key(r->func, r->new_func, r->patch), &it);
	while (hindex_next(&it, &i)) {
		k = &c->calls[i];
		if (k->state == LPC_LIVE && k->kfunc == r->func &&
		    k->new_func == r->new_func && !strcmp(k->patch, r->patch))
			return k;
	}
	return NULL;
}

/* The kprobe event on r's new function, enabled in inst. */
static int add_call(struct lp_calls *c, const struct klp_lp_rec *r,
		    const char *group, struct tep_handle *tep,
		    struct tracefs_instance *inst)
{
	struct tep_event *event;
	struct lp_call *k;
	char addr[32];

	/* at most the last walk's funcs and the previous one's: bounded */
	if (c->nr == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 16;
		c->calls = xrealloc(c->calls, c->cap, sizeof(*c->calls));
	}
	k = &c->calls[c->nr];
	memset(k, 0, sizeof(*k));
	k->kfunc = r->func;
	k->old_func = r->old_func;
	k->new_func = r->new_func;
	snprintf(k->patch, sizeof(k->patch), "%s", r->patch);
	lpw_func_name(k->func, sizeof(k->func), r->name);
	snprintf(k->name, sizeof(k->name), "call_%u", c->next_id++);
	snprintf(addr, sizeof(addr), "0x%llx", r->new_func);
	k->dev = tracefs_kprobe_alloc(group, k->name, addr, NULL);
	if (!k->dev || tracefs_dynevent_create(k->dev)) {
		fprintf(stderr, "klp-trace: cannot create kprobe event %s/%s on %s's new function %s (%s): its calls are not traced\n",
			group, k->name, k->func, addr, strerror(errno));
		tracefs_dynevent_free(k->dev);
		return 0;	/* the others still are */
	}
	c->nr++;
	c->live++;
	k->state = LPC_LIVE;
	if (hindex_add(&c->by_key, call_key(k->kfunc, k->new_func, k->patch),
		       c->nr - 1))
		return say("its records", ENOMEM);
	event = tracefs_dynevent_get_event(tep, k->dev);
	if (!event) {
		fprintf(stderr, "klp-trace: cannot read the format of %s/%s\n",
			group, k->name);
		return -1;
	}
	k->event_id = event->id;
	if (hindex_add(&c->by_event, k->event_id, c->nr - 1))
		return say("its records", ENOMEM);
	if (tracefs_event_enable(inst, group, k->name)) {
		fprintf(stderr, "klp-trace: cannot enable %s/%s\n", group, k->name);
		return -1;
	}
	k->enabled = true;
	k->seen = true;
	return 0;
}

/* The top of old_func's stack in the last walk (index_tops()), or NULL. */
static const char *winner_of(const struct lp_calls *c,
			     unsigned long long old_func)
{
	struct hindex_iter it;
	size_t i;

	hindex_find(&c->tops, old_func, &it);
	while (hindex_next(&it, &i))
		if (c->res.recs[i].old_func == old_func)
			return c->res.recs[i].patch;
	return NULL;
}

/*
 * tops, of the last walk: each stack's top (pos 0; the walk gives each
 * stack from its top), the first one the walk found for an old_func.
 */
static int index_tops(struct lp_calls *c)
{
	const struct klp_lp_rec *r;
	size_t i;

	hindex_clear(&c->tops);
	for (i = 0; i < c->res.nr; i++) {
		r = &c->res.recs[i];
		if (r->pos || winner_of(c, r->old_func))
			continue;
		if (hindex_add(&c->tops, r->old_func, i))
			return say("its records", ENOMEM);
	}
	return 0;
}

/*
 * A line on stderr when what is traced changed: the tests wait for it.
 * Nothing while the builtin has had no func to trace: klp-trace's output
 * stays klp's alone on a machine without builtin patches.
 */
static void say_synced(struct lp_calls *c)
{
	unsigned long long sig = HINDEX_FNV1A_INIT;
	size_t i;

	for (i = 0; i < c->nr; i++)	/* the funcs' winners, each with its NUL */
		if (c->calls[i].state == LPC_LIVE)
			sig = hindex_fnv1a(sig, c->calls[i].winner,
					   strlen(c->calls[i].winner) + 1);
	if (!c->said && !c->live)
		return;
	if (c->said && sig == c->said_sig && c->live == c->said_nr)
		return;
	c->said = true;
	c->said_sig = sig;
	c->said_nr = c->live;
	fprintf(stderr, "klp-trace: builtin livepatch: the calls of %zu func%s traced (walk %u)\n",
		c->live, c->live == 1 ? "" : "s", c->walks);
}

/**
 * lpc_sync() - walk the builtin's func_stacks again: an event for each new
 * func, each func's winner as the walk found it, the events of the funcs
 * gone disabled (and removed at the next call)
 * @c:     opened
 * @group: klp-trace's kprobe group
 * @tep:   the new events' formats go in it
 * @inst:  klp-trace's instance, its buffers read since the last call
 *
 * Return: 0 (also when the lists changed under every walk: the last
 * picture stays), or -1 when an event could not be enabled.
 */
int lpc_sync(struct lp_calls *c, const char *group, struct tep_handle *tep,
	     struct tracefs_instance *inst)
{
	const struct klp_lp_rec *r;
	struct lp_call *k;
	const char *w;
	size_t i;

	c->rewalk = false;
	if (drop_drained(c, group))
		return -1;
	if (lpw_walk_tries(&c->kc, &c->off, c->head, &c->res)) {
		if (!c->said_changing)
			fprintf(stderr, "klp-trace: builtin livepatch: its func_stacks changed under %d walks (status %d): walking again later\n",
				LPW_TRIES, c->res.status);
		c->said_changing = true;
		return 0;
	}
	c->walks++;
	if (index_tops(c))
		return -1;
	for (i = 0; i < c->nr; i++)
		c->calls[i].seen = false;
	for (i = 0; i < c->res.nr; i++) {
		r = &c->res.recs[i];
		if (r->nop || !r->new_func)
			continue;
		k = find_call(c, r);
		if (k) {
			k->seen = true;
			k->old_func = r->old_func;	/* its module reloaded */
		} else if (add_call(c, r, group, tep, inst)) {
			return -1;
		}
	}
	for (i = 0; i < c->nr; i++) {
		k = &c->calls[i];
		if (k->state != LPC_LIVE)
			continue;
		/* gone from the stacks: a func found again later is another */
		if (!k->seen && c->res.status == KLP_LP_WALK_DONE) {
			retire(c, k, group, inst);
			continue;
		}
		w = winner_of(c, k->old_func);
		snprintf(k->winner, sizeof(k->winner), "%s", w ?: "");
	}
	say_synced(c);
	return 0;
}

/**
 * lpc_find() - the func whose event a record is of
 * @c:     the calls traced
 * @event: the record's event
 *
 * Return: the func, or NULL when @event is none of them.
 */
const struct lp_call *lpc_find(const struct lp_calls *c,
			       const struct tep_event *event)
{
	struct hindex_iter it;
	size_t i;

	hindex_find(&c->by_event, event->id, &it);
	while (hindex_next(&it, &i))
		if (c->calls[i].event_id == event->id)
			return &c->calls[i];
	return NULL;
}

static void put_addr(FILE *out, const struct ev_format *fmt, const char *name,
		     unsigned long long addr)
{
	const struct klp_ksym *k = klp_ksyms_resolve(fmt->ksyms, addr);

	if (fmt->json) {
		fprintf(out, ",\"%s\":\"0x%llx\"", name, addr);
		if (k && k->addr == addr)
			fprintf(out, ",\"%s_sym\":\"%s\"", name, k->name);
	} else if (k && k->addr == addr) {
		fprintf(out, " %s=%s", name, k->name);
	} else {
		fprintf(out, " %s=0x%llx", name, addr);
	}
}

/**
 * lpc_print_fields() - a call's record as klp_redirect's fields print,
 * led by its core and without klp's func id: " core=livepatch
 * old_addr=F new_func=N func=F patch=P winner=W" (JSON alike)
 * @out: where to
 * @fmt: how
 * @k:   the func called
 */
void lpc_print_fields(FILE *out, const struct ev_format *fmt,
		      const struct lp_call *k)
{
	json_put_field(out, fmt->json, "core", CORE_LIVEPATCH);
	put_addr(out, fmt, "old_addr", k->old_func);
	put_addr(out, fmt, "new_func", k->new_func);
	json_put_field(out, fmt->json, "func", k->func);
	json_put_field(out, fmt->json, "patch", k->patch);
	json_put_field(out, fmt->json, "winner", k->winner);
}

/* The events disabled in the instance, then removed; kcore closed. */
void lpc_close(struct lp_calls *c, const char *group,
	       struct tracefs_instance *inst)
{
	struct lp_call *k;
	size_t i;

	for (i = 0; i < c->nr; i++) {
		k = &c->calls[i];
		if (k->enabled && tracefs_event_disable(inst, group, k->name))
			fprintf(stderr, "klp-trace: cannot disable %s/%s\n",
				group, k->name);
		k->enabled = false;
	}
	for (i = 0; i < c->nr; i++)
		remove_event(&c->calls[i], group);
	free(c->calls);
	hindex_free(&c->by_key);
	hindex_free(&c->by_event);
	hindex_free(&c->tops);
	free(c->res.recs);
	if (c->on)
		kcore_close(&c->kc);
	memset(c, 0, sizeof(*c));
}
