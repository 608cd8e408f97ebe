// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * livepatch_sysfs_lib.c - whether the builtin livepatch has a patch, and
 * a glance at each one's enabled and transition files
 *
 * The glance reads two files a patch: what an update of the builtin's
 * source reads when nothing else says the builtin changed, and what tells
 * the transitions' reader (livepatch_transitions.c) which patch is in
 * transition, so each update reads them once.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "alloc.h"
#include "livepatch_sysfs.h"
#include "readat.h"

/* Whether /sys/kernel/livepatch holds a patch (one directory each). */
bool lp_sysfs_has_patches(void)
{
	DIR *dir = opendir(LP_SYSFS_ROOT);
	struct dirent *de;
	bool any = false;

	if (!dir)
		return false;
	while (!any && (de = readdir(dir)))
		any = de->d_name[0] != '.';
	closedir(dir);
	return any;
}

/**
 * lp_sysfs_glance() - each patch's name, enabled and transition files
 * @g:    emptied, then one entry a patch, in the order sysfs lists them;
 *        busy when one is in transition (its stacks and tasks change with
 *        no other sign)
 * @root: the builtin's sysfs root (NULL: LP_SYSFS_ROOT)
 *
 * Return: 0 (also when there is no builtin livepatch: no patch), or
 * -errno when its root cannot be listed.
 */
int lp_sysfs_glance(struct lp_glance *g, const char *root)
{
	struct lp_glance_patch *p;
	struct dirent *de;
	DIR *d;
	int fd;

	g->root = root ?: LP_SYSFS_ROOT;
	g->nr = 0;
	g->busy = false;
	d = opendir(g->root);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		fd = openat(dirfd(d), de->d_name,
			    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue;	/* freed meanwhile: its name is gone */
		if (g->nr == g->cap) {
			g->cap = g->cap ? 2 * g->cap : 8;
			g->patches = xrealloc(g->patches, g->cap,
					      sizeof(*g->patches));
		}
		p = &g->patches[g->nr++];
		copy_name(p->name, sizeof(p->name), de->d_name);
		if (readat_line(fd, "enabled", p->enabled, sizeof(p->enabled)))
			p->enabled[0] = '\0';
		if (readat_line(fd, "transition", p->transition,
				sizeof(p->transition)))
			p->transition[0] = '\0';
		close(fd);
		g->busy |= !strcmp(p->transition, "1");
	}
	closedir(d);
	return 0;
}

/* Whether two glances found the same patches, files and order. */
bool lp_glance_same(const struct lp_glance *a, const struct lp_glance *b)
{
	size_t i;

	if (a->nr != b->nr)
		return false;
	for (i = 0; i < a->nr; i++)
		if (strcmp(a->patches[i].name, b->patches[i].name) ||
		    strcmp(a->patches[i].enabled, b->patches[i].enabled) ||
		    strcmp(a->patches[i].transition, b->patches[i].transition))
			return false;
	return true;
}

void lp_glance_free(struct lp_glance *g)
{
	free(g->patches);
	memset(g, 0, sizeof(*g));
}
