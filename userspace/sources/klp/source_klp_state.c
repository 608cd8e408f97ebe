// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * source_klp_state.c - the klp core's part of the model read whole again
 * from the core's state file (debugfs klp/state, parsed by snapshot_lib.c)
 *
 * At start, after lost events, and whenever an event does not agree with
 * the model (source_klp_events.c), the file says it all: the core writes
 * it under one hold of its mutex.  The builtin's part of the model is
 * left as it is (model_unsee(), model_sweep() of klp's core only).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "source_klp.h"
#include "snapshot.h"

static void explain_snapshot_error(const struct model *m, int err,
				   const struct klp_snapshot *snap)
{
	const char *path = m->state_path ? m->state_path : KLP_STATE_PATH;
	const char *me = program_invocation_short_name;

	if (err == -ENOENT && !m->state_path && access(KLP_SYSFS_ROOT, F_OK))
		fprintf(stderr, "%s: the klp core went away (%s missing)\n",
			me, KLP_SYSFS_ROOT);
	else if (err == -ENOENT)
		fprintf(stderr, "%s: %s missing: is debugfs mounted? (mount -t debugfs none /sys/kernel/debug)\n",
			me, path);
	else if (err == -EPROTO && snap->bad_line && snap->bad_why[0])
		fprintf(stderr, "%s: %s: line %zu: %s\n", me, path,
			snap->bad_line, snap->bad_why);
	else if (err == -EPROTO && snap->bad_line)
		fprintf(stderr, "%s: %s: line %zu does not parse\n", me, path,
			snap->bad_line);
	else if (err == -EPROTO)
		fprintf(stderr, "%s: %s: the func_stacks do not add up (a klp core bug)\n",
			me, path);
	else
		fprintf(stderr, "%s: cannot read %s: %s (%d)\n", me, path,
			strerror(-err), err);
}

/**
 * klp_model_resync() - load the model from the core's state file
 * @m: the model (its state_path, or KLP_STATE_PATH)
 *
 * Funcs keep their counts; funcs and patches that are gone are dropped.
 * The events numbered up to the file's seq are in the model from now on.
 * A file that the parser refuses (snapshot.h) leaves the model as it was.
 * Returns 0, or -errno after saying why on stderr (unless m->quiet).
 */
int klp_model_resync(struct model *m)
{
	struct klp_snapshot snap;
	size_t i;
	int err;

	err = klp_snapshot_read(&snap, m->state_path);
	if (err) {
		if (!m->quiet)
			explain_snapshot_error(m, err, &snap);
		return err;
	}
	model_unsee(m, MODEL_CORE_KLP);
	for (i = 0; i < snap.nr_patches; i++) {
		const struct klp_snap_patch *sp = &snap.patches[i];
		struct model_patch *p = model_patch_find(m, sp->name, true);

		p->enabled = sp->enabled;
		p->seen = true;
		copy_name(p->srcversion, sizeof(p->srcversion),
			  sp->srcversion ?: "");
		copy_name(p->cve, sizeof(p->cve), sp->cve ?: "");
		p->enabled_ns = sp->enabled_ns;
		copy_name(p->replaced_by, sizeof(p->replaced_by),
			  sp->replaced_by ?: "");
	}
	/* sorted winner first: appending in order builds each stack */
	for (i = 0; i < snap.nr_funcs; i++) {
		const struct klp_snap_func *sf = &snap.funcs[i];
		struct model_fn *fn;
		struct model_func *f;

		if (sf->id >= KLP_MAX_HIT_KEYS)
			continue;
		fn = model_fn_find(m, sf->object, sf->func, true);
		f = model_func_bind(m, model_patch_find(m, sf->patch, true), fn, sf->id);
		f->seen = true;
		if (sf->patched) {
			model_stack_append(fn, f);
			if (sf->old_addr)
				fn->old_addr = sf->old_addr;
		}
	}
	m->snap_seq = snap.seq;
	klp_tr_from_snapshot(&m->trs, &snap);
	klp_snapshot_free(&snap);
	model_sweep(m, MODEL_CORE_KLP);
	m->need_resync = false;
	return 0;
}

/**
 * klp_model_drop() - the klp core's part of the model gone (the core
 * unloaded, or the source could not attach)
 * @m: the model
 *
 * Its patches, funcs and transitions leave; the builtin's stay, fed by
 * their own source, which keeps pointers to its funcs (model_sweep()
 * tells it when funcs are freed).  The next state file read starts anew.
 */
void klp_model_drop(struct model *m)
{
	model_unsee(m, MODEL_CORE_KLP);
	model_sweep(m, MODEL_CORE_KLP);
	model_tr_drop_core(&m->trs, MODEL_TR_CORE_KLP);
	m->snap_seq = 0;
	m->need_resync = false;
}
