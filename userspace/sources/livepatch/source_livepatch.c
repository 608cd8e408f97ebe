// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * source_livepatch.c - the kernel's builtin livepatch feeding the model
 *
 * Each update, in this order:
 *  0. Whether anything may have changed since the last full read: the
 *     BPF side's lp_gen (bumped by fexit programs after each enable, each
 *     transition's end and each module's coming or going) and a glance at
 *     each patch's enabled and transition files (livepatch_sysfs_lib.c).
 *     When neither moved and no transition runs, 1 and 2 are skipped: the
 *     stacks are as the last walk saw them, and only 3 reads the counters.
 *     The patches the glance found in transition have their tasks read
 *     from /proc (livepatch_transitions.c): the files are read once.
 *  1. /sys/kernel/livepatch: every patch (enabled), its objects (the
 *     object's "patched", 6.0+) and funcs.  A builtin patch is in sysfs
 *     from its klp_enable_patch() until it is freed after its disable.
 *  2. bpf/livepatch.bpf.c walks the builtin's klp_ops and their
 *     func_stacks: each patched function's stack, winner first, exactly
 *     as the builtin's ftrace handler reads it (never guessed from the
 *     order the patches were loaded in).
 *  3. A kprobe on the new function of every func found on a stack, its
 *     counter slot as the cookie; each read adds a slot's growth to its
 *     func and function (doc/klptop.md: what this counts, and why).
 * The model gets this source's patches as core MODEL_CORE_LIVEPATCH; klp's
 * own are left alone (model_unsee(), model_sweep()).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "ksyms.h"
#include "livepatch_walk.h"
#include "source_livepatch.h"
#include "livepatch.skel.h"

#define LP_WALK_TRIES	3

static int attach_events(struct lp_source *s);

static int say(const char *what, int err)
{
	fprintf(stderr, "%s: builtin livepatch: %s: %s (%d)\n",
		program_invocation_short_name, what, strerror(-err), err);
	return err;
}

/**
 * lp_source_open() - get ready to read the builtin livepatch
 * @s:     zeroed
 * @calls: count each winner's calls (a kprobe on its new function);
 *         without, no probe: the stacks, winners and transitions only
 *
 * A kernel without the builtin livepatch (no /sys/kernel/livepatch) is
 * not an error: the source then stays empty.
 *
 * Returns 0, or -errno after saying why on stderr.
 */
int lp_source_open(struct lp_source *s, bool calls)
{
	unsigned long long ops;
	void *hits;
	int err;

	s->no_calls = !calls;
	if (access(LP_SYSFS_ROOT, F_OK))
		return 0;
	ops = klp_ksyms_data_addr("klp_ops");
	if (!ops) {
		fprintf(stderr, "%s: builtin livepatch: klp_ops not in /proc/kallsyms (needs CONFIG_KALLSYMS_ALL and root): its func_stacks cannot be read\n",
			program_invocation_short_name);
		return -ENOENT;
	}
	s->ncpus = libbpf_num_possible_cpus();
	if (s->ncpus < 0)
		return say("count the possible CPUs", s->ncpus);
	s->skel = livepatch_bpf__open();
	if (!s->skel)
		return say("open its BPF object", errno ? -errno : -EINVAL);
	s->skel->rodata->nr_cpus = s->ncpus;
	s->skel->rodata->klp_ops_addr = ops;
	s->skel->rodata->klp_transition_patch_addr =
		klp_ksyms_data_addr("klp_transition_patch");
	s->skel->rodata->klp_target_state_addr =
		klp_ksyms_data_addr("klp_target_state");
	err = bpf_map__set_max_entries(s->skel->maps.lp_hits,
				       (__u32)s->ncpus * KLP_LP_MAX_KEYS);
	if (!err)
		err = livepatch_bpf__load(s->skel);
	if (err) {
		say("load its BPF programs", err);
		goto fail;
	}
	s->hits_len = (size_t)s->ncpus * KLP_LP_MAX_KEYS * sizeof(__u64);
	hits = mmap(NULL, s->hits_len, PROT_READ, MAP_SHARED,
		    bpf_map__fd(s->skel->maps.lp_hits), 0);
	if (hits == MAP_FAILED) {
		err = say("map its counters", -errno);
		goto fail;
	}
	s->hits = hits;
	err = attach_events(s);
	if (err)
		goto fail;
	s->present = true;
	return 0;
fail:
	lp_source_close(s);
	return err;
}

static int on_lp_event(void *ctx, void *data, size_t size)
{
	struct lp_source *s = ctx;

	if (size >= sizeof(struct klp_transition_event) && s->log)
		lp_log_event(s->log, data);
	return 0;
}

/*
 * The programs that bump lp_gen.  Without them every update reads all
 * again (as correct, and costlier): said once.
 */
static void attach_gen(struct lp_source *s)
{
	struct bpf_program *progs[LP_NR_GEN_PROGS] = {
		s->skel->progs.lp_complete_done,
		s->skel->progs.lp_module_coming,
		s->skel->progs.lp_module_going,
	};
	size_t i;

	for (i = 0; i < LP_NR_GEN_PROGS; i++) {
		s->gen_links[i] = bpf_program__attach(progs[i]);
		if (!s->gen_links[i]) {
			fprintf(stderr, "%s: builtin livepatch: cannot attach %s (%s): its state is read again at every update\n",
				program_invocation_short_name,
				bpf_program__name(progs[i]), strerror(errno));
			return;
		}
	}
	s->gen_ok = true;
}

/* The programs on the builtin's own functions, and their ring buffer. */
static int attach_events(struct lp_source *s)
{
	struct bpf_program *progs[] = {
		s->skel->progs.lp_init_transition,
		s->skel->progs.lp_complete_transition,
		s->skel->progs.lp_reverse_transition,
		s->skel->progs.lp_force_transition,
		s->skel->progs.lp_enable_patch,
	};
	size_t i;

	for (i = 0; i < sizeof(progs) / sizeof(progs[0]); i++) {
		s->ev_links[i] = bpf_program__attach(progs[i]);
		if (!s->ev_links[i])
			return say("attach to its own functions", -errno);
	}
	attach_gen(s);
	s->rb = ring_buffer__new(bpf_map__fd(s->skel->maps.lp_events),
				 on_lp_event, s, NULL);
	if (!s->rb)
		return say("set up its ring buffer", errno ? -errno : -EINVAL);
	return 0;
}

/* One walk of the builtin's func_stacks; 0 when it reached the end. */
static int walk(struct lp_source *s)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts);
	int err, i;

	for (i = 0; i < LP_WALK_TRIES; i++) {
		err = bpf_prog_test_run_opts(bpf_program__fd(s->skel->progs.lp_walk),
					     &opts);
		if (err)
			return say("walk its func_stacks", -errno);
		if (s->skel->bss->walk_status == KLP_LP_WALK_DONE)
			return 0;
		if (s->skel->bss->walk_status == KLP_LP_WALK_TRUNCATED) {
			if (!s->said_truncated)
				fprintf(stderr, "%s: builtin livepatch: more than %d funcs on its stacks: the rest are not shown\n",
					program_invocation_short_name,
					KLP_LP_MAX_RECS);
			s->said_truncated = true;
			return 0;
		}
	}
	return -EAGAIN;	/* the lists changed under every walk */
}

/*
 * The walk's stacks into the model, its funcs' probes marked seen; the
 * funcs with no probe yet in s->rec_funcs, by record (NULL: none needed).
 */
static void apply_walk(struct lp_source *s, struct model *m, unsigned int n)
{
	const struct klp_lp_rec *recs = s->skel->bss->recs;
	char name[KLP_FUNC_LEN];
	size_t counted = 0;	/* records with a new function so far */
	unsigned int i;

	for (i = 0; i < n; i++) {
		const struct klp_lp_rec *r = &recs[i];
		struct model_patch *p;
		struct model_func *f;
		struct model_fn *fn;
		struct lp_probe *pr;

		s->rec_funcs[i] = NULL;
		if (!r->patch[0] || !r->object[0] || !r->name[0])
			continue;
		lpw_func_name(name, sizeof(name), r->name);
		p = model_patch_find(m, r->patch, false);
		if (!p) {	/* enabled after the sysfs read: seen next time */
			p = model_patch_find(m, r->patch, true);
			p->core = MODEL_CORE_LIVEPATCH;
			p->enabled = true;
			p->seen = true;
		}
		if (p->core != MODEL_CORE_LIVEPATCH)
			continue;
		fn = model_fn_find(m, r->object, name, true);
		f = model_func_bind(m, p, fn, 0);
		f->seen = true;
		/* records come top first, ops after ops */
		model_stack_append(fn, f);
		fn->old_addr = r->old_func;
		if (r->nop || !r->new_func)
			continue;	/* runs the original: nothing to count */
		if (s->no_calls)
			continue;	/* not asked to count */
		/*
		 * sysfs showed another load than the walk (the module went
		 * or came between the two reads, and lp_gen moved): the
		 * next read makes its probe, of the load then
		 */
		if (p->instance && r->patch_id && r->patch_id != p->instance)
			continue;
		pr = lp_probe_find(s, r, counted++);
		if (pr) {
			pr->seen = true;
			pr->func = f;
		} else {
			s->rec_funcs[i] = f;
		}
	}
}

/**
 * lp_source_check() - whether the next update reads the builtin's state
 * again: something moved since the last full read, or a transition runs
 * @s: opened (without the builtin's BPF side, only the glance)
 *
 * Reads lp_gen, then glances at sysfs; lp_source_update() acts on what
 * this found (it calls it when the caller did not), the transitions'
 * reader too.  A caller that does work of its own around a change (the
 * exporter's winner comparison) asks first.
 *
 * Return: true when the next update reads all again.
 */
bool lp_source_check(struct lp_source *s)
{
	/* lp_gen first: a change while the update reads moves it again */
	if (s->skel)
		s->gen_now = __atomic_load_n(&s->skel->bss->lp_gen,
					     __ATOMIC_ACQUIRE);
	lp_sysfs_glance(&s->now, NULL);
	s->need_read = !s->gen_ok || !s->reads || s->now.busy ||
		       s->gen_now != s->last_gen ||
		       !lp_glance_same(&s->now, &s->last);
	s->checked = true;
	return s->need_read;
}

/**
 * lp_source_update() - the builtin livepatch's patches, stacks, calls and
 * transitions into the model
 * @s:   opened; without its BPF side (no builtin livepatch, or it could
 *       not be loaded), its transitions only
 * @m:   the model; its interval started (model_interval_start()),
 *       after klp's counters were read
 * @log: gains a line per event of the builtin's patches, in order
 *
 * Returns 0, or -errno after saying why (the walk failed LP_WALK_TRIES
 * times in a row on three updates running: the builtin's stacks would be
 * wrong, not just late).
 */
int lp_source_update(struct lp_source *s, struct model *m,
		     struct model_log *log)
{
	struct lp_glance swap;
	unsigned int n;
	size_t i;
	int err;

	if (!s->checked)
		lp_source_check(s);
	s->checked = false;
	/* its transitions, from the same glance (sysfs and /proc, no BPF) */
	lp_tr_builtin_scan(&m->trs, &s->now, NULL);
	if (!s->present)
		return 0;
	s->log = log;
	err = ring_buffer__consume(s->rb);
	if (err < 0)
		return say("read its ring buffer", err);
	if (!s->need_read) {
		lp_probes_count(s, m);
		return 0;
	}
	err = walk(s);
	if (err == -EAGAIN && ++s->walk_failures < 3) {
		lp_probes_count(s, m);	/* the stacks as the last walk saw them */
		return 0;
	}
	if (err == -EAGAIN)
		return say("its func_stacks changed under every walk", err);
	if (err)
		return err;
	s->walk_failures = 0;
	/* each probe's calls so far, to its func as the last read left it */
	lp_probes_count(s, m);
	model_unsee(m, MODEL_CORE_LIVEPATCH);
	lp_sysfs_read(m);
	for (i = 0; i < s->nr_probes; i++)
		s->probes[i]->seen = false;
	n = s->skel->bss->nr_recs;
	if (n > KLP_LP_MAX_RECS)
		n = KLP_LP_MAX_RECS;
	if (!s->rec_funcs)
		s->rec_funcs = xrealloc(NULL, KLP_LP_MAX_RECS,
					sizeof(*s->rec_funcs));
	apply_walk(s, m, n);
	lp_probes_drop_unseen(s, m);
	lp_probes_add(s, n);
	model_sweep(m, MODEL_CORE_LIVEPATCH);
	lp_probes_count(s, m);
	swap = s->last;
	s->last = s->now;
	s->now = swap;
	s->last_gen = s->gen_now;
	s->reads++;
	return 0;
}

unsigned long long lp_source_lost_events(const struct lp_source *s)
{
	return s->skel ? __atomic_load_n(&s->skel->bss->lp_lost_events,
					 __ATOMIC_RELAXED) : 0;
}

unsigned long long lp_source_lost_hits(const struct lp_source *s)
{
	return s->skel ? __atomic_load_n(&s->skel->bss->lp_lost_hits,
					 __ATOMIC_RELAXED) : 0;
}

void lp_source_close(struct lp_source *s)
{
	size_t i;

	for (i = 0; i < s->nr_probes; i++) {
		bpf_link__destroy(s->probes[i]->link);
		free(s->probes[i]);
	}
	free(s->probes);
	free(s->rec_funcs);
	ring_buffer__free(s->rb);
	for (i = 0; i < LP_NR_EVENT_PROGS; i++)
		bpf_link__destroy(s->ev_links[i]);
	for (i = 0; i < LP_NR_GEN_PROGS; i++)
		bpf_link__destroy(s->gen_links[i]);
	lp_glance_free(&s->now);
	lp_glance_free(&s->last);
	if (s->hits)
		munmap((void *)s->hits, s->hits_len);
	livepatch_bpf__destroy(s->skel);
	memset(s, 0, sizeof(*s));
}
