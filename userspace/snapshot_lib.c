// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * snapshot_lib.c - read every klp func_stack from /sys/kernel/klp
 *
 * Each attribute read takes the core's klp_mutex on its own, so a walk is
 * not atomic: a transition in the middle can show a func pushed but its
 * neighbour's depth not yet updated.  klp_snapshot_read() checks the
 * stacks it built and walks again when they do not add up.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <klp/uapi.h>
#include "snapshot.h"

#define SNAP_TRIES	5

/* Read a small sysfs file into buf, newline stripped; -errno on failure. */
static int read_attr(int dirfd, const char *name, char *buf, size_t size)
{
	ssize_t n;
	int fd;

	fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	if (n < 0) {
		n = -errno;
		close(fd);
		return n;
	}
	close(fd);
	buf[n] = '\0';
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	return 0;
}

static int read_ull(int dirfd, const char *name, unsigned long long *val)
{
	char buf[32], *end;
	int err;

	err = read_attr(dirfd, name, buf, sizeof(buf));
	if (err)
		return err;
	errno = 0;
	*val = strtoull(buf, &end, 0);
	if (errno || end == buf)
		return -EINVAL;
	return 0;
}

static int read_int(int dirfd, const char *name, int *val)
{
	unsigned long long v;
	int err;

	err = read_ull(dirfd, name, &v);
	if (!err)
		*val = (int)v;
	return err;
}

static int is_dir(int dirfd, const struct dirent *de)
{
	struct stat st;

	if (de->d_name[0] == '.')
		return 0;
	if (de->d_type != DT_UNKNOWN)
		return de->d_type == DT_DIR;
	return !fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) &&
	       S_ISDIR(st.st_mode);
}

static int opendir_at(int dirfd, const char *name, DIR **dir)
{
	int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	*dir = fdopendir(fd);
	if (!*dir) {
		close(fd);
		return -errno;
	}
	return 0;
}

static int add_func(struct klp_snapshot *snap, size_t *cap,
		    const struct klp_snap_func *f)
{
	struct klp_snap_func *n;

	if (snap->nr_funcs == *cap) {
		*cap = *cap ? *cap * 2 : 16;
		n = realloc(snap->funcs, *cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		snap->funcs = n;
	}
	snap->funcs[snap->nr_funcs++] = *f;
	return 0;
}

/* One <function> directory of an object; -ENOENT/-ENODEV: it went away. */
static int read_func(int objfd, const char *name, struct klp_snap_func *f)
{
	unsigned long long v;
	int fd, err;

	fd = openat(objfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = read_ull(fd, "id", &v);
	if (err)
		goto out;
	f->id = v;
	err = read_int(fd, "patched", &f->patched);
	if (err)
		goto out;
	err = read_int(fd, "stack_pos", &f->stack_pos);
	if (err)
		goto out;
	err = read_ull(fd, "stack_depth", &v);
	if (err)
		goto out;
	f->stack_depth = v;
	/* root only: a reader without them still gets the stacks */
	if (read_ull(fd, "old_addr", &f->old_addr))
		f->old_addr = 0;
	if (read_ull(fd, "new_func", &f->new_func))
		f->new_func = 0;
out:
	close(fd);
	return err;
}

static int read_object(struct klp_snapshot *snap, size_t *cap, int patchfd,
		       const char *patch, const char *object)
{
	struct klp_snap_func f;
	struct dirent *de;
	int loaded, err = 0;
	DIR *dir;

	err = opendir_at(patchfd, object, &dir);
	if (err)
		return err;
	err = read_int(dirfd(dir), "loaded", &loaded);
	if (err)
		goto out;

	while ((de = readdir(dir))) {
		if (!is_dir(dirfd(dir), de))
			continue;
		memset(&f, 0, sizeof(f));
		err = read_func(dirfd(dir), de->d_name, &f);
		if (err)
			goto out;
		f.patch = patch;
		f.loaded = loaded;
		f.object = strdup(object);
		f.func = strdup(de->d_name);
		if (!f.object || !f.func ||
		    add_func(snap, cap, &f)) {
			free(f.object);
			free(f.func);
			err = -ENOMEM;
			goto out;
		}
	}
out:
	closedir(dir);
	return err;
}

static void drop_funcs_from(struct klp_snapshot *snap, size_t from)
{
	while (snap->nr_funcs > from) {
		snap->nr_funcs--;
		free(snap->funcs[snap->nr_funcs].object);
		free(snap->funcs[snap->nr_funcs].func);
	}
}

/* One <patch> directory; returns -ENOENT or -ENODEV when it went away. */
static int read_patch(struct klp_snapshot *snap, size_t *cap, int rootfd,
		      const char *patch)
{
	size_t first = snap->nr_funcs;
	struct dirent *de;
	DIR *dir;
	int err;

	err = opendir_at(rootfd, patch, &dir);
	if (err)
		return err;
	while ((de = readdir(dir))) {
		if (!is_dir(dirfd(dir), de))
			continue;
		err = read_object(snap, cap, dirfd(dir), patch, de->d_name);
		if (err)
			break;
	}
	closedir(dir);
	if (err)
		drop_funcs_from(snap, first);
	return err;
}

static int cmp_func(const void *a, const void *b)
{
	const struct klp_snap_func *x = a, *y = b;
	int c;

	c = strcmp(x->object, y->object);
	if (c)
		return c;
	c = strcmp(x->func, y->func);
	if (c)
		return c;
	/* winner first, funcs off the stack (pos 0) last */
	if (x->stack_pos != y->stack_pos) {
		if (!x->stack_pos)
			return 1;
		if (!y->stack_pos)
			return -1;
		return x->stack_pos < y->stack_pos ? -1 : 1;
	}
	return strcmp(x->patch, y->patch);
}

static int read_once(struct klp_snapshot *snap, const char *root)
{
	size_t pcap = 0, fcap = 0, i;
	struct klp_snap_patch *np;
	struct dirent *de;
	char buf[16];
	int pfd, err = 0;
	DIR *dir;

	memset(snap, 0, sizeof(*snap));
	dir = opendir(root);
	if (!dir)
		return -errno;

	while ((de = readdir(dir))) {
		struct klp_snap_patch p;

		if (!is_dir(dirfd(dir), de))
			continue;
		pfd = openat(dirfd(dir), de->d_name,
			     O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (pfd < 0)
			continue;	/* unregistered meanwhile */
		err = read_attr(pfd, "enabled", buf, sizeof(buf));
		close(pfd);
		if (err == -ENOENT || err == -ENODEV) {
			err = 0;	/* unregistered meanwhile */
			continue;
		}
		if (err)
			break;
		p.name = strdup(de->d_name);
		p.enabled = atoi(buf);
		if (!p.name) {
			err = -ENOMEM;
			break;
		}
		if (snap->nr_patches == pcap) {
			pcap = pcap ? pcap * 2 : 8;
			np = realloc(snap->patches, pcap * sizeof(*np));
			if (!np) {
				free(p.name);
				err = -ENOMEM;
				break;
			}
			snap->patches = np;
		}
		snap->patches[snap->nr_patches++] = p;
	}
	/* Patch names are stable now: the funcs point at them. */
	for (i = 0; !err && i < snap->nr_patches; i++) {
		err = read_patch(snap, &fcap, dirfd(dir),
				 snap->patches[i].name);
		if (err == -ENOENT || err == -ENODEV) {
			free(snap->patches[i].name);
			memmove(&snap->patches[i], &snap->patches[i + 1],
				(snap->nr_patches - i - 1) * sizeof(*np));
			snap->nr_patches--;
			i--;
			err = 0;
		}
	}
	closedir(dir);
	if (err) {
		klp_snapshot_free(snap);
		return err;
	}
	if (snap->nr_funcs)
		qsort(snap->funcs, snap->nr_funcs, sizeof(*snap->funcs),
		      cmp_func);
	return 0;
}

int klp_snapshot_check(const struct klp_snapshot *snap)
{
	size_t i = 0, j, n;

	/* funcs are sorted: each function's funcs are adjacent, stack first */
	while (i < snap->nr_funcs) {
		const struct klp_snap_func *f = &snap->funcs[i];
		unsigned int depth = 0;

		for (j = i; j < snap->nr_funcs &&
		     !strcmp(snap->funcs[j].object, f->object) &&
		     !strcmp(snap->funcs[j].func, f->func); j++)
			;
		n = 0;
		for (; i < j; i++) {
			const struct klp_snap_func *g = &snap->funcs[i];

			if (!g->patched) {
				if (g->stack_pos)
					return -EAGAIN;
				continue;
			}
			n++;
			if (!depth)
				depth = g->stack_depth;
			/* sorted by position: the n-th patched func is at n */
			if (g->stack_depth != depth || g->stack_pos != (int)n)
				return -EAGAIN;
		}
		if (n != depth)
			return -EAGAIN;
	}
	return 0;
}

int klp_snapshot_read(struct klp_snapshot *snap, const char *root)
{
	int tries, err = -EAGAIN;

	if (!root)
		root = KLP_SYSFS_ROOT;
	for (tries = 0; tries < SNAP_TRIES; tries++) {
		err = read_once(snap, root);
		if (err)
			return err;
		err = klp_snapshot_check(snap);
		if (!err)
			return 0;
		klp_snapshot_free(snap);
		usleep(1000 << tries);
	}
	return err;
}

void klp_snapshot_free(struct klp_snapshot *snap)
{
	size_t i;

	drop_funcs_from(snap, 0);
	free(snap->funcs);
	for (i = 0; i < snap->nr_patches; i++)
		free(snap->patches[i].name);
	free(snap->patches);
	memset(snap, 0, sizeof(*snap));
}
