// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * source_livepatch_probes.c - the probes that count the builtin's calls,
 * for source_livepatch.c: a kprobe on the new function of every func on
 * a func_stack, its counter slot (1 to KLP_LP_MAX_KEYS - 1) as its
 * cookie; each read adds a slot's growth to its func in the model.
 *
 * A probe is one func of one load of its patch (struct klp_lp_rec's
 * patch_id): after each full read, the probes the walk did not see are
 * closed and their slots freed before the walk's new funcs get theirs,
 * so a patch loaded again and again under its name holds one probe and
 * one slot a func, whatever happened between two reads.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>
#include <bpf/libbpf.h>
#include "livepatch_walk.h"
#include "readat.h"
#include "source_livepatch.h"
#include "livepatch.skel.h"

/* files a tool holds besides the probes' (maps, programs, peers) */
#define LP_NOFILE_SLACK	256

/*
 * Whether pr is r's probe: the same func of the same load of its patch.
 * A patch module unloaded and loaded again between two reads may get
 * its funcs at the same addresses (the same .ko, its memory reused):
 * only patch_id tells the loads apart, and a probe of the gone load
 * counts nothing (its kprobe went with the module's text).
 */
static bool probe_is(const struct lp_probe *pr, const struct klp_lp_rec *r)
{
	return pr->kfunc == r->func && pr->new_func == r->new_func &&
	       pr->patch_id == r->patch_id && !strcmp(pr->patch, r->patch);
}

/*
 * The probe of r, or NULL: nearly always the @hint-th, as the walk meets
 * the stacks in the order their probes were added (a scan for each of
 * 1000 records was half a million comparisons an interval).
 */
struct lp_probe *lp_probe_find(struct lp_source *s,
			      const struct klp_lp_rec *r, size_t hint)
{
	size_t i;

	if (hint < s->nr_probes && probe_is(s->probes[hint], r))
		return s->probes[hint];
	for (i = 0; i < s->nr_probes; i++)
		if (probe_is(s->probes[i], r))
			return s->probes[i];
	return NULL;
}

/* The sum of a slot over the CPUs. */
static unsigned long long slot_sum(const struct lp_source *s, unsigned int slot)
{
	unsigned long long sum = 0;
	int cpu;

	for (cpu = 0; cpu < s->ncpus; cpu++)
		sum += s->hits[(size_t)cpu * KLP_LP_MAX_KEYS + slot];
	return sum;
}

/* The kprobe PMU's perf type, or -errno. */
static int kprobe_pmu_type(void)
{
	char buf[16];
	int fd, err;

	fd = open("/sys/bus/event_source/devices/kprobe", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = readat_line(fd, "type", buf, sizeof(buf));
	close(fd);
	return err ? err : atoi(buf);
}

/*
 * A kprobe at an address, the program attached with cookie: by address,
 * as two patches' new functions may share a name (libbpf 1.1's kprobe
 * takes a symbol).  perf_event_attr's kprobe_addr, with no kprobe_func.
 */
static struct bpf_link *attach_at(struct lp_source *s,
				  struct bpf_program *prog,
				  unsigned long long addr,
				  unsigned long long cookie)
{
	LIBBPF_OPTS(bpf_perf_event_opts, opts, .bpf_cookie = cookie);
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.kprobe_addr = addr,
	};
	struct bpf_link *link;
	int pfd, err;

	/* the same for every probe of this boot: read once it succeeds */
	if (s->kprobe_type <= 0)
		s->kprobe_type = kprobe_pmu_type();
	if (s->kprobe_type < 0) {
		errno = -s->kprobe_type;
		return NULL;
	}
	attr.type = s->kprobe_type;
	pfd = syscall(__NR_perf_event_open, &attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	if (pfd < 0)
		return NULL;
	link = bpf_program__attach_perf_event_opts(prog, pfd, &opts);
	if (!link) {
		err = errno;
		close(pfd);
		errno = err;
	}
	return link;	/* owns pfd: destroying the link closes it */
}

/*
 * Room for @need more open files: each probe holds two (its perf event
 * and its BPF link), and 1000 of them pass the usual soft limit of 1024.
 * The soft limit goes up to the hard one, and, for root, both go up
 * (doubled, so not at every probe).  Whatever is refused, the attach
 * that follows says so (EMFILE).
 */
static void nofile_room(unsigned int nr_open, unsigned int need)
{
	struct rlimit rl, up;
	rlim_t want = (rlim_t)nr_open + need + LP_NOFILE_SLACK;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= want)
		return;
	want *= 2;
	if (want > rl.rlim_max) {
		up.rlim_cur = want;
		up.rlim_max = want;
		if (!setrlimit(RLIMIT_NOFILE, &up))
			return;
		want = rl.rlim_max;
	}
	up.rlim_cur = want;
	up.rlim_max = rl.rlim_max;
	setrlimit(RLIMIT_NOFILE, &up);
}

/*
 * A free slot for pr and its kprobe on its new function.  With no slot
 * free (KLP_LP_MAX_KEYS - 1 funcs counted) it has none, its calls are
 * unknown, and the next full read tries again (a probe dropped meanwhile
 * frees one).  Returns whether it counts.
 */
static bool probe_attach(struct lp_source *s, struct lp_probe *pr)
{
	unsigned int slot;

	for (slot = 1; slot < KLP_LP_MAX_KEYS && s->slot_used[slot]; slot++)
		;
	if (slot == KLP_LP_MAX_KEYS) {
		if (!s->said_full)
			fprintf(stderr, "%s: builtin livepatch: more than %d funcs to count: the calls of %s's %s and of the next are unknown\n",
				program_invocation_short_name,
				KLP_LP_MAX_KEYS - 1, pr->patch, pr->name);
		s->said_full = true;
		return false;
	}
	pr->slot = slot;
	s->slot_used[slot] = true;
	/* the slot only grows (a probe before may have used it) */
	pr->last = slot_sum(s, slot);
	nofile_room(2 * s->nr_probes, 2);
	pr->link = attach_at(s, s->skel->progs.lp_count, pr->new_func, slot);
	if (!pr->link) {
		fprintf(stderr, "%s: builtin livepatch: cannot count the calls of %s's %s (a kprobe at 0x%llx): %s\n",
			program_invocation_short_name, pr->patch, pr->name,
			pr->new_func, strerror(errno));
		s->probe_failures++;
	}
	return pr->link;
}

/* A new probe of r's func (its function's name in the model: name). */
static struct lp_probe *probe_add(struct lp_source *s,
				  const struct klp_lp_rec *r, const char *name)
{
	struct lp_probe *pr;

	pr = xrealloc(NULL, 1, sizeof(*pr));
	memset(pr, 0, sizeof(*pr));
	pr->kfunc = r->func;
	pr->new_func = r->new_func;
	pr->patch_id = r->patch_id;
	copy_name(pr->patch, sizeof(pr->patch), r->patch);
	copy_name(pr->object, sizeof(pr->object), r->object);
	copy_name(pr->name, sizeof(pr->name), name);
	if (!probe_attach(s, pr) && !pr->slot)
		s->probe_failures++;
	s->probes = xrealloc(s->probes, s->nr_probes + 1, sizeof(*s->probes));
	s->probes[s->nr_probes++] = pr;
	return pr;
}

/* Close the i-th probe, free its slot; the last probe takes its place. */
static void probe_drop(struct lp_source *s, size_t i)
{
	struct lp_probe *pr = s->probes[i];

	bpf_link__destroy(pr->link);
	if (pr->slot)
		s->slot_used[pr->slot] = false;
	free(pr);
	s->probes[i] = s->probes[--s->nr_probes];
}

/*
 * The probes the walk did not see: their funcs left the stacks, or went
 * with their patch's load (a patch loaded again under its name between
 * two reads has new funcs; the old ones' kprobes count nothing more).
 * lp_probes_count() read them up to now.  Closed, and their slots
 * freed, before the walk's new funcs get theirs.  A walk cut short (more
 * funcs than its records) saw only some: then only the probes of a load
 * the model no longer has go.
 */
void lp_probes_drop_unseen(struct lp_source *s, struct model *m)
{
	bool done = s->skel->bss->walk_status == KLP_LP_WALK_DONE;
	struct model_patch *p;
	size_t i;

	for (i = 0; i < s->nr_probes; ) {
		struct lp_probe *pr = s->probes[i];

		p = model_patch_find(m, pr->patch, false);
		if (!pr->seen && (done || !p ||
				   (p->instance && p->instance != pr->patch_id)))
			probe_drop(s, i);
		else
			i++;
	}
}

/* The model's func of a probe, or NULL when it is gone. */
static struct model_func *probe_func(struct model *m, const struct lp_probe *pr)
{
	struct model_fn *fn = model_fn_find(m, pr->object, pr->name, false);
	unsigned int i;

	if (!fn)
		return NULL;
	for (i = 0; i < fn->nr_funcs; i++)
		if (fn->funcs[i]->patch->core == MODEL_CORE_LIVEPATCH &&
		    !strcmp(fn->funcs[i]->patch->name, pr->patch))
			return fn->funcs[i];
	return NULL;
}

/* The probes of the walk's funcs that have none; a slot for those without. */
void lp_probes_add(struct lp_source *s, unsigned int n)
{
	const struct klp_lp_rec *recs = s->skel->bss->recs;
	char name[KLP_FUNC_LEN];
	struct lp_probe *pr;
	unsigned int i;

	for (i = 0; i < s->nr_probes; i++)
		if (!s->probes[i]->slot)
			probe_attach(s, s->probes[i]);
	for (i = 0; i < n; i++) {
		if (!s->rec_funcs[i])
			continue;
		lpw_func_name(name, sizeof(name), recs[i].name);
		pr = probe_add(s, &recs[i], name);
		pr->seen = true;
		pr->func = s->rec_funcs[i];
	}
}

/*
 * Each probe's growth to its func.  A probe keeps its func (the walk that
 * saw it on a stack set it) until the model frees a func: then each
 * probe's func is looked up again and the probes of funcs gone are
 * dropped (1000 lookups an interval cost more than the rest of an update
 * that reads only the counters).
 */
void lp_probes_count(struct lp_source *s, struct model *m)
{
	bool bind = m->funcs_freed != s->funcs_freed_seen;
	size_t i;

	s->funcs_freed_seen = m->funcs_freed;
	for (i = 0; i < s->nr_probes; ) {
		struct lp_probe *pr = s->probes[i];
		struct model_func *f;
		unsigned long long now, delta;

		if (bind)
			pr->func = probe_func(m, pr);
		f = pr->func;

		if (!f) {
			probe_drop(s, i);
			continue;
		}
		/* a probe that failed counts nothing: unknown, not 0 */
		f->uncounted = !pr->link;
		now = slot_sum(s, pr->slot);
		delta = now - pr->last;
		pr->last = now;
		model_func_add_hits(f, delta);
		i++;
	}
}
