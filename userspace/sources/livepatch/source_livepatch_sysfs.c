// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * source_livepatch_sysfs.c - the builtin livepatch's sysfs tree, for
 * source_livepatch.c: read whole into the model
 *
 * /sys/kernel/livepatch/<patch>/{enabled,transition}, and under it each
 * object (<object>/patched, 6.0+) and func (<object>/<func,sympos>).  The
 * whole read costs a directory per object and per func (1000 funcs: 1000
 * directories); the glance at two files a patch (livepatch_sysfs_lib.c)
 * is what an update reads when nothing else says the builtin changed.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "livepatch_walk.h"
#include "readat.h"
#include "source_livepatch.h"

/* 1 or 0 from a file of the builtin's sysfs; -1 when unreadable. */
static int read_bool_at(int dirfd, const char *name)
{
	char buf[16];

	if (readat_line(dirfd, name, buf, sizeof(buf)))
		return -1;
	return !strcmp(buf, "1") ? 1 : !strcmp(buf, "0") ? 0 : -1;
}

/* Every func of one object of patch p into the model. */
static void read_object(struct model *m, struct model_patch *p, int objfd,
			const char *object)
{
	char name[KLP_FUNC_LEN];
	int patched = read_bool_at(objfd, "patched");
	struct dirent *de;
	DIR *d;

	d = fdopendir(objfd);
	if (!d) {
		close(objfd);
		return;
	}
	while ((de = readdir(d))) {
		struct model_func *f;

		if (de->d_type != DT_DIR || de->d_name[0] == '.' ||
		    !strchr(de->d_name, ','))
			continue;
		lpw_func_name(name, sizeof(name), de->d_name);
		f = model_func_bind(m, p, model_fn_find(m, object, name, true), 0);
		f->seen = true;
		f->obj_patched = patched;
	}
	closedir(d);
}

/*
 * srcversion of the patch's module: once a load of the patch (its sysfs
 * directory's inode number, as the walk's patch_id), read again when the
 * patch was loaded again under its name, another build maybe.
 */
static void read_srcversion(struct model_patch *p, int patchfd)
{
	char path[KLP_NAME_LEN + 32];
	struct stat st;
	int fd;

	if (!fstat(patchfd, &st) && st.st_ino != p->instance) {
		p->instance = st.st_ino;
		p->srcversion[0] = '\0';
	}
	if (p->srcversion[0])
		return;
	snprintf(path, sizeof(path), "/sys/module/%s", p->name);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	if (readat_line(fd, "srcversion", p->srcversion,
			 sizeof(p->srcversion)))
		p->srcversion[0] = '\0';
	close(fd);
}

static void read_patch(struct model *m, int rootfd, const char *name)
{
	struct model_patch *p;
	struct dirent *de;
	int fd, enabled;
	DIR *d;

	fd = openat(rootfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	enabled = read_bool_at(fd, "enabled");
	if (enabled < 0) {	/* freed meanwhile */
		close(fd);
		return;
	}
	p = model_patch_find(m, name, true);
	p->core = MODEL_CORE_LIVEPATCH;
	p->enabled = enabled;
	p->seen = true;
	read_srcversion(p, fd);
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return;
	}
	while ((de = readdir(d))) {
		int objfd;

		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		objfd = openat(dirfd(d), de->d_name,
			       O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (objfd >= 0)
			read_object(m, p, objfd, de->d_name);
	}
	closedir(d);
}

/**
 * lp_sysfs_read() - every builtin patch, object and func into the model
 * @m: the model: each marked seen, with its core MODEL_CORE_LIVEPATCH
 */
void lp_sysfs_read(struct model *m)
{
	struct dirent *de;
	DIR *d = opendir(LP_SYSFS_ROOT);

	if (!d)
		return;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			read_patch(m, dirfd(d), de->d_name);
	closedir(d);
}
