// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * livepatch_transitions.c - the builtin livepatch's transitions, from sysfs
 * and /proc, read again every interval
 *
 * A patch is in transition while /sys/kernel/livepatch/<patch>/transition
 * reads 1; its target is its enabled file.  Both come from the update's
 * glance at the builtin's sysfs (livepatch_sysfs_lib.c), which the
 * builtin's source reads anyway to know whether anything changed.  Each task (thread) shows its
 * state in /proc/<pid>/task/<tid>/patch_state: -1 outside a transition,
 * else 0 unpatched or 1 patched; a task is switched when its state equals
 * the target, and tasks at -1 (leaving, or the transition just ended) are
 * left out.  The idle tasks are not in /proc, so total is the tasks /proc
 * lists, idle ones not included.
 *
 * For a task not switched, the reason upstream's transition code would
 * give (kernel/livepatch/transition.c, klp_try_switch_task()) is told
 * from what /proc shows, and that is less than the kernel knows:
 *   running   its stat says R (the kernel would not read its stack)
 *   on_stack  its stack (/proc/<pid>/task/<tid>/stack, root only) holds
 *             a function the patch changes: when enabling, a function
 *             listed under the patch's objects (<func,sympos>); when
 *             disabling, a function of the patch's own module (the
 *             replacement, named by the frame, as sysfs does not name it)
 *   unknown   neither: its stack may have been unreliable, or the next
 *             sweep will switch it; /proc cannot tell which.
 * The elapsed time of a builtin transition counts from when it was first
 * seen (sysfs says nothing of its start), and it has no sweep number.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "alloc.h"
#include "livepatch_transitions.h"
#include "readat.h"

/* The functions a patch changes, from its sysfs directory. */
struct patch_funcs {
	char (*names)[KLP_FUNC_LEN];
	size_t nr;
};

static bool is_number(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

static bool is_subdir(int dir, const struct dirent *d)
{
	struct stat st;

	if (d->d_name[0] == '.')
		return false;
	if (d->d_type != DT_UNKNOWN)
		return d->d_type == DT_DIR;
	return !fstatat(dir, d->d_name, &st, AT_SYMLINK_NOFOLLOW) &&
	       S_ISDIR(st.st_mode);
}

/* Each <object>/<func,sympos> of the patch's directory, by function name. */
static void read_patch_funcs(int pdir, struct patch_funcs *pf)
{
	DIR *pd, *od;
	struct dirent *o, *f;
	int ofd;

	pd = fdopendir(dup(pdir));
	if (!pd)
		return;
	while ((o = readdir(pd))) {
		if (!is_subdir(pdir, o))
			continue;
		ofd = openat(pdir, o->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC |
			     O_NOFOLLOW);
		od = ofd >= 0 ? fdopendir(ofd) : NULL;
		if (!od) {
			if (ofd >= 0)
				close(ofd);
			continue;
		}
		while ((f = readdir(od))) {
			if (!is_subdir(ofd, f))
				continue;
			pf->names = xrealloc(pf->names, pf->nr + 1,
					     sizeof(*pf->names));
			copy_name(pf->names[pf->nr], KLP_FUNC_LEN, f->d_name);
			pf->names[pf->nr][strcspn(pf->names[pf->nr], ",")] = '\0';
			pf->nr++;
		}
		closedir(od);
	}
	closedir(pd);
}

/*
 * A frame of /proc/.../stack, "[<0>] name+0x1/0x2 [module]", that the
 * transition changes: copied to func; true if found.
 */
static bool frame_matches(char *line, const struct model_tr *tr,
			  const struct patch_funcs *pf, char *func)
{
	char *name = strstr(line, "] "), *mod = NULL, *end;
	size_t i, len;

	if (!name)
		return false;
	name += 2;
	len = strcspn(name, "+ \n");
	if (name[len]) {
		name[len] = '\0';
		mod = strchr(name + len + 1, '[');
	}
	if (tr->target) {
		for (i = 0; i < pf->nr; i++)
			if (!strcmp(pf->names[i], name))
				goto found;
		return false;
	}
	/* disabling: the patch's own functions, in its module */
	if (!mod)
		return false;
	end = strchr(++mod, ']');
	if (!end || (size_t)(end - mod) != strlen(tr->patch) ||
	    strncmp(mod, tr->patch, end - mod))
		return false;
found:
	copy_name(func, KLP_FUNC_LEN, name);
	return true;
}

/* on_stack (func named), or unknown: the task's stack against the patch */
static int stack_reason(int tdir, const struct model_tr *tr,
			const struct patch_funcs *pf, char *func)
{
	char line[512];
	int reason = MODEL_BLOCK_UNKNOWN, fd;
	FILE *in;

	fd = openat(tdir, "stack", O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	in = fd >= 0 ? fdopen(fd, "r") : NULL;
	if (!in) {
		if (fd >= 0)
			close(fd);
		return reason;
	}
	while (fgets(line, sizeof(line), in))
		if (frame_matches(line, tr, pf, func)) {
			reason = KLP_BLOCK_ON_STACK;
			break;
		}
	fclose(in);
	return reason;
}

/* One task not switched: why, from its stat and its stack. */
static void add_blocked(struct model_tr *tr, int tdir, int tid,
			const struct patch_funcs *pf)
{
	char stat[512], comm[KLP_COMM_LEN] = "", func[KLP_FUNC_LEN] = "";
	int reason = MODEL_BLOCK_UNKNOWN;
	char *lp = NULL, *rp = NULL;

	/* "tid (comm) S ...": comm may hold ')' itself, the state follows the last */
	if (!readat_line(tdir, "stat", stat, sizeof(stat))) {
		lp = strchr(stat, '(');
		rp = strrchr(stat, ')');
	}
	if (lp && rp > lp) {
		*rp = '\0';
		copy_name(comm, sizeof(comm), lp + 1);
		if (rp[1] == ' ' && rp[2] == 'R')
			reason = KLP_BLOCK_RUNNING;
	}
	if (reason != KLP_BLOCK_RUNNING)
		reason = stack_reason(tdir, tr, pf, func);
	model_tr_add_task(tr, tid, comm, func, reason);
}

/* Every thread of process dir pdir: counted, and blocked if not switched. */
static void scan_process(struct model_tr *tr, int pdir,
			 const struct patch_funcs *pf)
{
	int tasks, tdir, state;
	struct dirent *d;
	DIR *td;

	tasks = openat(pdir, "task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	td = tasks >= 0 ? fdopendir(tasks) : NULL;
	if (!td) {
		if (tasks >= 0)
			close(tasks);
		return;		/* gone meanwhile */
	}
	while ((d = readdir(td))) {
		if (!is_number(d->d_name))
			continue;
		tdir = openat(tasks, d->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (tdir < 0)
			continue;
		if (!readat_int(tdir, "patch_state", &state) && state >= 0) {
			tr->total++;
			if (state != tr->target) {
				tr->pending++;
				add_blocked(tr, tdir, atoi(d->d_name), pf);
			}
		}
		close(tdir);
	}
	closedir(td);
}

static void scan_tasks(struct model_tr *tr, int pdir, const char *proc_root)
{
	struct patch_funcs pf = {};
	struct dirent *d;
	int proc, dir;
	DIR *pd;

	tr->total = tr->pending = 0;
	model_tr_clear_tasks(tr);
	proc = open(proc_root ?: LP_PROC_ROOT,
		    O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	pd = proc >= 0 ? fdopendir(proc) : NULL;
	if (!pd) {
		if (proc >= 0)
			close(proc);
		return;
	}
	read_patch_funcs(pdir, &pf);
	while ((d = readdir(pd))) {
		if (!is_number(d->d_name))
			continue;
		dir = openat(proc, d->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dir < 0)
			continue;
		scan_process(tr, dir, &pf);
		close(dir);
	}
	closedir(pd);
	free(pf.names);
}

/* A patch in transition (the glance says), to target: its tasks. */
static void scan_patch(struct model_trset *s, int root, const char *name,
		       int target, const char *proc_root)
{
	struct model_tr *tr;
	int dir;

	dir = openat(root, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return;
	tr = model_tr_find(s, MODEL_TR_CORE_LIVEPATCH, name, true);
	if (!tr->started_ns) {
		tr->started_ns = model_tr_realtime_ns();
		tr->start_seen = true;
	}
	tr->target = target;
	tr->seen = true;
	scan_tasks(tr, dir, proc_root);
	close(dir);
}

/**
 * lp_tr_builtin_scan() - the builtin livepatch's transitions, read again
 * @s:         the transitions; the builtin's are replaced, klp's kept
 * @g:         the glance at its patches of this update: those it found in
 *             transition are (their tasks read from /proc)
 * @proc_root: /proc (NULL: LP_PROC_ROOT)
 */
void lp_tr_builtin_scan(struct model_trset *s, const struct lp_glance *g,
			const char *proc_root)
{
	const struct lp_glance_patch *p;
	size_t i;
	int root;

	for (i = 0; i < s->nr; i++)
		s->trs[i]->seen = false;
	root = g->nr ? open(g->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
	for (i = 0; root >= 0 && i < g->nr; i++) {
		p = &g->patches[i];
		if (!strcmp(p->transition, "1") &&
		    (!strcmp(p->enabled, "0") || !strcmp(p->enabled, "1")))
			scan_patch(s, root, p->name, p->enabled[0] == '1',
				   proc_root);
	}
	if (root >= 0)
		close(root);
	for (i = 0; i < s->nr; ) {
		if (!strcmp(s->trs[i]->core, MODEL_TR_CORE_LIVEPATCH) &&
		    !s->trs[i]->seen)
			model_tr_drop(s, s->trs[i]);
		else
			i++;
	}
}
