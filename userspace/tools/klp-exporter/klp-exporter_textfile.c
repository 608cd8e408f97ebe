// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * klp-exporter_textfile.c - the textfile for node_exporter, replaced whole
 *
 * node_exporter's textfile directory may be writable by other users, and
 * the exporter runs as root: nothing it writes there may be a name
 * someone could have planted first.  The new text goes to a file this
 * process made itself (mkstemp(): a random name, O_CREAT | O_EXCL, so a
 * planted symlink or file is never opened), named .FILE.XXXXXX (not
 * *.prom, which node_exporter would read half written); it is made
 * readable by all whatever the umask (node_exporter runs as its own
 * user), flushed to disk, then renamed over FILE.  rename() replaces the
 * name FILE itself, a symlink too, never what it points to: a reader sees
 * the old file or the new one, never a part, and nothing outside the
 * directory is ever written.
 *
 * On a clean stop the exporter removes the file it wrote, and only that:
 * FILE is opened without following a symlink (O_NOFOLLOW) and removed
 * only if it is still the file of the last write (same device and
 * inode), so a file someone else put at FILE since stays.  In a sticky
 * directory (node_exporter's, mode 1777 or root's) nobody else can
 * rename or remove root's file, so FILE cannot change between that check
 * and the unlink().
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "klp-exporter.h"

#define EX_TEXTFILE_MODE	0644

/* ".FILE.XXXXXX" beside FILE, for mkstemp(); NULL if too long */
static char *temp_template(const char *path)
{
	const char *slash = strrchr(path, '/');
	size_t dir = slash ? (size_t)(slash - path) + 1 : 0;
	size_t len = strlen(path);
	char *t;

	if (len > 4000)
		return NULL;
	t = xrealloc(NULL, 1, len + sizeof("..XXXXXX"));
	memcpy(t, path, dir);
	sprintf(t + dir, ".%s.XXXXXX", path + dir);
	return t;
}

/**
 * ex_textfile_write() - replace a file with a text, atomically and safely
 * @path: the file (its directory must exist)
 * @s:    the text
 * @len:  its length
 * @id:   set to the file written (on success only)
 *
 * Return: 0, or -errno (nothing is left behind then).
 */
int ex_textfile_write(const char *path, const char *s, size_t len,
		      struct ex_file_id *id)
{
	struct stat st;
	char *tmp = temp_template(path);
	int fd, err;

	if (!tmp)
		return -ENAMETOOLONG;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		free(tmp);
		return err;
	}
	err = fchmod(fd, EX_TEXTFILE_MODE) ? -errno : 0;
	if (!err)
		err = sb_write_all(fd, s, len);
	if (!err && fsync(fd))
		err = -errno;
	if (!err && fstat(fd, &st))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	free(tmp);
	if (!err) {
		id->dev = st.st_dev;
		id->ino = st.st_ino;
	}
	return err;
}

/**
 * ex_textfile_remove() - remove the textfile, if it is still ours
 * @path: the file
 * @id:   the file the last write made
 *
 * Return: 0 (removed, or nothing of ours to remove), or -errno.
 */
int ex_textfile_remove(const char *path, const struct ex_file_id *id)
{
	struct stat st;
	int fd, err = 0;

	if (!id->ino)
		return 0;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT || errno == ELOOP ? 0 : -errno;
	if (fstat(fd, &st))
		err = -errno;
	else if (S_ISREG(st.st_mode) && st.st_dev == id->dev &&
		 st.st_ino == id->ino && unlink(path))
		err = -errno;
	close(fd);
	return err;
}
