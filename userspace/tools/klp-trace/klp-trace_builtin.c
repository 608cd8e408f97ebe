// SPDX-License-Identifier: GPL-2.0
/*
 * klp-trace_builtin.c - the kernel's builtin livepatch, traced through
 * tracefs alone: kprobe events on its own functions
 *
 * The builtin has no tracepoints.  klp-trace puts a kprobe event on each
 * function bpf/livepatch.bpf.c attaches to (klp_init_transition,
 * klp_complete_transition, klp_reverse_transition, klp_force_transition,
 * and klp_enable_patch's entry and return), with fetch args that read the
 * patch's module name and the transition's target
 * (klp-trace_builtin_rec.c says what each hit means).  The offsets of
 * klp_patch.mod and module.name come from the running kernel's BTF,
 * parsed with libbpf (no BPF is loaded); klp_transition_patch and
 * klp_target_state are read by symbol (@sym fetch args).
 *
 * A kprobe event is global: it goes in group klp_trace_<pid>_<start>, is
 * enabled only in klp-trace's own instance, and is removed however
 * klp-trace ends (disabled there first: an enabled event cannot be
 * removed).  What a kill leaves behind, the next klp-trace removes
 * (klp-trace_owner.c).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/btf.h>
#include <tracefs.h>

#include "btfoff.h"
#include "klp-trace.h"
#include "livepatch_sysfs.h"

static const char *const event_names[LPT_NR] = {
	[LPT_INIT] = "init_transition",
	[LPT_COMPLETE] = "complete_transition",
	[LPT_REVERSE] = "reverse_transition",
	[LPT_FORCE] = "force_transition",
	[LPT_ENABLE] = "enable_patch",
	[LPT_ENABLE_RET] = "enable_patch_ret",
};

/* The offsets from /sys/kernel/btf/vmlinux. */
static int read_offsets(struct lpt_offsets *off)
{
	struct btf *btf = btf__load_vmlinux_btf();
	int err;

	if (!btf) {
		fprintf(stderr, "klp-trace: builtin livepatch: cannot read the kernel's BTF (/sys/kernel/btf/vmlinux, CONFIG_DEBUG_INFO_BTF): %s\n",
			strerror(errno));
		return -1;
	}
	err = btf_struct_member(btf, "klp_patch", "mod", &off->patch_mod) ||
	      btf_struct_member(btf, "module", "name", &off->module_name);
	btf__free(btf);
	return err ? -1 : 0;
}

/* Which of the functions available_filter_functions lacks, as a bitmask. */
static unsigned int untraceable(void)
{
	unsigned int missing = (1u << LPT_NR) - 1;
	char path[PATH_MAX], *line = NULL;
	size_t cap = 0, n;
	FILE *f;
	int i;

	missing &= ~(1u << LPT_ENABLE_RET);	/* the same as LPT_ENABLE */
	snprintf(path, sizeof(path), "%s/available_filter_functions",
		 tracefs_tracing_dir());
	f = fopen(path, "re");
	if (!f)
		return missing;
	while (missing && getline(&line, &cap, f) > 0) {
		n = strcspn(line, " \t\n");
		for (i = 0; i < LPT_NR; i++)
			if (missing & (1u << i) &&
			    strlen(lpt_functions[i]) == n &&
			    !strncmp(line, lpt_functions[i], n))
				missing &= ~(1u << i);
	}
	free(line);
	fclose(f);
	return missing;
}

/**
 * lpt_check() - whether the builtin livepatch's events can be traced here
 * @lp:         its offsets are filled in
 * @say_absent: say so too when the kernel has no builtin livepatch
 *
 * Return: 0, or -1 after saying what is missing.
 */
int lpt_check(struct lp_trace *lp, bool say_absent)
{
	unsigned int missing;
	char path[PATH_MAX];
	int i;

	if (access(LP_SYSFS_ROOT, F_OK)) {
		if (say_absent)
			fprintf(stderr, "klp-trace: this kernel has no builtin livepatch (%s missing: CONFIG_LIVEPATCH)\n",
				LP_SYSFS_ROOT);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/kprobe_events", tracefs_tracing_dir());
	if (access(path, W_OK)) {
		fprintf(stderr, "klp-trace: builtin livepatch records off: no %s (CONFIG_KPROBE_EVENTS)\n",
			path);
		return -1;
	}
	missing = untraceable();
	if (missing) {
		fprintf(stderr, "klp-trace: builtin livepatch records off: not in %s/available_filter_functions:",
			tracefs_tracing_dir());
		for (i = 0; i < LPT_NR; i++)
			if (missing & (1u << i))
				fprintf(stderr, " %s", lpt_functions[i]);
		fputc('\n', stderr);
		return -1;
	}
	return read_offsets(&lp->off);
}

/* One probe created, loaded into tep and enabled in inst. */
static int create_one(struct lp_trace *lp, int i, struct tep_handle *tep,
		      struct tracefs_instance *inst)
{
	struct tracefs_dynevent *dev;
	char args[256];

	if (lpt_fetch_args(args, sizeof(args), i, &lp->off))
		return -1;
	if (i == LPT_ENABLE_RET)
		dev = tracefs_kretprobe_alloc(lp->group, event_names[i],
					      lpt_functions[i], args, 0);
	else
		dev = tracefs_kprobe_alloc(lp->group, event_names[i],
					   lpt_functions[i], args);
	if (!dev || tracefs_dynevent_create(dev)) {
		char *log = tracefs_error_last(NULL);

		fprintf(stderr, "klp-trace: cannot create kprobe event %s/%s on %s (%s)%s%s",
			lp->group, event_names[i], lpt_functions[i],
			strerror(errno), log ? ": " : "\n", log ? log : "");
		free(log);
		tracefs_dynevent_free(dev);
		return -1;
	}
	lp->dev[i] = dev;
	lp->event[i] = tracefs_dynevent_get_event(tep, dev);
	if (!lp->event[i]) {
		fprintf(stderr, "klp-trace: cannot read the format of %s/%s\n",
			lp->group, event_names[i]);
		return -1;
	}
	if (tracefs_event_enable(inst, lp->group, event_names[i])) {
		fprintf(stderr, "klp-trace: cannot enable %s/%s\n", lp->group,
			event_names[i]);
		return -1;
	}
	lp->enabled[i] = true;
	return 0;
}

/**
 * lpt_create() - the probes, enabled in klp-trace's instance
 * @lp:    checked by lpt_check()
 * @owner: this klp-trace, whose name their group gets
 * @tep:   their formats go in it
 * @inst:  klp-trace's instance
 *
 * lpt_disable() and lpt_destroy() undo whatever was done, even on failure.
 *
 * Return: 0, or -1 after saying why.
 */
int lpt_create(struct lp_trace *lp, const struct kt_owner *owner,
	       struct tep_handle *tep, struct tracefs_instance *inst)
{
	int i;

	kt_group_name(lp->group, sizeof(lp->group), owner);
	for (i = 0; i < LPT_NR; i++)
		if (create_one(lp, i, tep, inst))
			return -1;
	return 0;
}

/* The probes disabled in the instance (before it and they are removed). */
void lpt_disable(struct lp_trace *lp, struct tracefs_instance *inst)
{
	int i;

	for (i = 0; i < LPT_NR; i++) {
		if (lp->enabled[i] &&
		    tracefs_event_disable(inst, lp->group, event_names[i]))
			fprintf(stderr, "klp-trace: cannot disable %s/%s\n",
				lp->group, event_names[i]);
		lp->enabled[i] = false;
	}
}

/* The probes removed from kprobe_events. */
void lpt_destroy(struct lp_trace *lp)
{
	int i;

	for (i = 0; i < LPT_NR; i++) {
		if (!lp->dev[i])
			continue;
		/* force: disabled wherever it is on (only ours can be) */
		if (tracefs_dynevent_destroy(lp->dev[i], false) &&
		    tracefs_dynevent_destroy(lp->dev[i], true))
			fprintf(stderr, "klp-trace: cannot remove kprobe event %s/%s: %s\n",
				lp->group, event_names[i], strerror(errno));
		tracefs_dynevent_free(lp->dev[i]);
		lp->dev[i] = NULL;
	}
}

/* A __data_loc string field, bounded by the record. */
static void read_str(struct tep_event *event, struct tep_record *rec,
		     const char *name, char *buf, size_t size)
{
	const char *data = rec->data, *s;
	int len = 0;

	buf[0] = '\0';
	s = tep_get_field_raw(NULL, event, name, rec, &len, 0);
	if (!s || s < data || len < 0 || s + len > data + rec->size)
		return;
	len = strnlen(s, len);
	if ((size_t)len >= size)
		len = size - 1;
	memcpy(buf, s, len);
	buf[len] = '\0';
}

static int read_int(struct tep_event *event, struct tep_record *rec,
		    const char *name)
{
	unsigned long long val = 0;

	if (tep_get_field_val(NULL, event, name, rec, &val, 0))
		return -1;
	return (int)val;
}

/**
 * lpt_read() - the records a hit of one of the probes makes
 * @lp:    the probes
 * @event: the record's event
 * @rec:   the record
 * @out:   up to two records
 *
 * Return: -1 when @event is none of the probes, else how many records.
 */
int lpt_read(struct lp_trace *lp, struct tep_event *event,
	     struct tep_record *rec, struct lpt_rec out[2])
{
	char patch[LPT_NAME_LEN];
	struct lpt_hit hit = {};
	int i;

	for (i = 0; i < LPT_NR; i++)
		if (lp->event[i] && lp->event[i] == event)
			break;
	if (i == LPT_NR)
		return -1;
	hit.probe = i;
	hit.pid = tep_data_pid(event->tep, rec);
	hit.ts = rec->ts;
	if (i == LPT_ENABLE_RET) {
		hit.ret = read_int(event, rec, "ret");
	} else {
		read_str(event, rec, "patch", patch, sizeof(patch));
		hit.patch = patch;
		if (i != LPT_ENABLE)
			hit.target = read_int(event, rec, "target");
	}
	return lpt_decode(&lp->dec, &hit, out);
}
