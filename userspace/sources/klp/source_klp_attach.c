// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * source_klp_attach.c - klptop's BPF programs (bpf/klptop.bpf.c): loaded,
 * attached to the klp:* tracepoints, and their ring buffer of transition
 * events; shared by klptop and klp-exporter
 *
 * What goes wrong is said on stderr in terms of what to do: load the
 * core, a kernel with BTF, root or CAP_BPF and CAP_PERFMON.  While
 * attached, the programs pin klp.ko (a module's tracepoint cannot go
 * while a program is attached to it).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "source_klp.h"
#include "klptop.skel.h"

#define BTF_VMLINUX	"/sys/kernel/btf/vmlinux"

/**
 * klp_bpf_check_environment() - say what is missing to attach, if anything
 *
 * Returns 0 when the core is loaded and the kernel has BTF; after saying
 * which is missing, -ENOENT for the core, -EOPNOTSUPP for BTF.
 */
int klp_bpf_check_environment(void)
{
	if (access(KLP_SYSFS_ROOT, F_OK)) {
		fprintf(stderr, "%s: the klp core is not loaded (%s missing): load it first, e.g. insmod core/klp.ko\n",
			program_invocation_short_name, KLP_SYSFS_ROOT);
		return -ENOENT;
	}
	if (access(BTF_VMLINUX, R_OK)) {
		fprintf(stderr, "%s: this kernel has no BTF (%s missing): the CO-RE BPF program needs a kernel built with CONFIG_DEBUG_INFO_BTF=y\n",
			program_invocation_short_name, BTF_VMLINUX);
		return -EOPNOTSUPP;
	}
	return 0;
}

/**
 * klp_bpf_print_all() - libbpf's messages, its debug ones too (for -v)
 * @level:  of the message
 * @format: printf's
 * @args:   printf's
 *
 * Returns what vfprintf() returns.
 */
int klp_bpf_print_all(enum libbpf_print_level level, const char *format,
		      va_list args)
{
	return vfprintf(stderr, format, args);
}

static void explain_bpf_error(unsigned int flags, const char *what, int err)
{
	const char *me = program_invocation_short_name;

	if (flags & KLP_SOURCE_QUIET)
		return;

	if (err == -EPERM || err == -EACCES)
		fprintf(stderr, "%s: not allowed to %s (%s): %s needs root, or CAP_BPF and CAP_PERFMON (CAP_SYS_ADMIN before 5.8)\n",
			me, what, strerror(-err), me);
	else if (err == -ENOENT)
		fprintf(stderr, "%s: cannot %s: the klp:* tracepoints were not found (is klp.ko loaded and tracefs mounted at /sys/kernel/tracing?)\n",
			me, what);
	else
		fprintf(stderr, "%s: cannot %s: %s (%d)\n", me, what,
			strerror(-err), err);
}

/*
 * The consistency model's events, where the core has them: a core from
 * before them has no such tracepoint (-ENOENT), and klptop works on
 * without its transitions.
 */
static int print_none(enum libbpf_print_level level, const char *format,
		      va_list args)
{
	return 0;
}

static int attach_optional(struct bpf_program *prog, struct bpf_link **link)
{
	libbpf_print_fn_t print = libbpf_set_print(print_none);
	int err;

	*link = bpf_program__attach(prog);
	err = libbpf_get_error(*link);
	libbpf_set_print(print);	/* its warning is no news to us */
	if (!err)
		return 0;
	*link = NULL;
	return err == -ENOENT ? 0 : err;
}

/**
 * klp_bpf_attach() - load and attach the programs, open the ring buffer
 * @b:        zeroed, or detached
 * @on_event: called with each struct klp_transition_event consumed
 * @ctx:      its first argument
 * @flags:    KLP_SOURCE_CALLS: count the redirected calls
 *            (klp:klp_redirect); without, the core's handler stays on its
 *            untraced path: no cost per call.  KLP_SOURCE_QUIET: say
 *            nothing of a failure (a caller retrying says its first)
 *
 * The hits map gets a slice per possible CPU and is mapped (b->hits).
 *
 * Returns 0, or -errno after saying why unless quiet (@b is then
 * detached).
 */
int klp_bpf_attach(struct klp_bpf *b, klp_event_fn on_event, void *ctx,
		   unsigned int flags)
{
	void *hits;
	int err;

	b->ncpus = libbpf_num_possible_cpus();
	if (b->ncpus < 0) {
		err = b->ncpus;
		explain_bpf_error(flags, "count the possible CPUs", err);
		return err;
	}
	b->skel = klptop_bpf__open();
	if (!b->skel) {
		err = errno ? -errno : -EINVAL;
		explain_bpf_error(flags, "open the BPF object", err);
		return err;
	}
	b->skel->rodata->nr_cpus = b->ncpus;
	bpf_program__set_autoattach(b->skel->progs.klptop_transition, false);
	bpf_program__set_autoattach(b->skel->progs.klptop_task_blocked, false);
	if (!(flags & KLP_SOURCE_CALLS))
		bpf_program__set_autoload(b->skel->progs.klptop_redirect, false);
	err = bpf_map__set_max_entries(b->skel->maps.hits,
				       (__u32)b->ncpus * KLP_MAX_HIT_KEYS);
	if (err) {
		explain_bpf_error(flags, "size the hits map", err);
		goto fail;
	}
	err = klptop_bpf__load(b->skel);
	if (err) {
		explain_bpf_error(flags, "load the BPF programs", err);
		goto fail;
	}
	err = klptop_bpf__attach(b->skel) ?:
	      attach_optional(b->skel->progs.klptop_transition,
			      &b->skel->links.klptop_transition) ?:
	      attach_optional(b->skel->progs.klptop_task_blocked,
			      &b->skel->links.klptop_task_blocked);
	if (err) {
		explain_bpf_error(flags, "attach to the klp tracepoints", err);
		goto fail;
	}
	b->hits_len = (size_t)b->ncpus * KLP_MAX_HIT_KEYS * sizeof(__u64);
	hits = mmap(NULL, b->hits_len, PROT_READ, MAP_SHARED,
		    bpf_map__fd(b->skel->maps.hits), 0);
	if (hits == MAP_FAILED) {
		err = -errno;
		explain_bpf_error(flags, "map the hits map", err);
		goto fail;
	}
	b->hits = hits;
	b->rb = ring_buffer__new(bpf_map__fd(b->skel->maps.events),
				 on_event, ctx, NULL);
	if (!b->rb) {
		err = errno ? -errno : -EINVAL;
		explain_bpf_error(flags, "set up the ring buffer", err);
		goto fail;
	}
	return 0;
fail:
	klp_bpf_detach(b);
	return err;
}

/**
 * klp_bpf_consume() - hand every event in the ring buffer to on_event
 * @b: attached
 *
 * Returns 0, or -errno after saying why.
 */
int klp_bpf_consume(struct klp_bpf *b)
{
	int err = ring_buffer__consume(b->rb);

	if (err < 0 && err != -EINTR) {
		fprintf(stderr, "%s: reading the ring buffer: %s (%d)\n",
			program_invocation_short_name, strerror(-err), err);
		return err;
	}
	return 0;
}

/* The ring buffer's epoll fd: readable when events wait. */
int klp_bpf_events_fd(const struct klp_bpf *b)
{
	return ring_buffer__epoll_fd(b->rb);
}

/* What the programs could not record: events (ring buffer full), hits. */
unsigned long long klp_bpf_lost_events(const struct klp_bpf *b)
{
	return __atomic_load_n(&b->skel->bss->lost_events, __ATOMIC_RELAXED);
}

unsigned long long klp_bpf_lost_hits(const struct klp_bpf *b)
{
	return __atomic_load_n(&b->skel->bss->lost_hits, __ATOMIC_RELAXED);
}

/* Detach and free; the core can go from now on. */
void klp_bpf_detach(struct klp_bpf *b)
{
	ring_buffer__free(b->rb);
	if (b->hits)
		munmap((void *)b->hits, b->hits_len);
	klptop_bpf__destroy(b->skel);
	b->rb = NULL;
	b->skel = NULL;
	b->hits = NULL;
}
