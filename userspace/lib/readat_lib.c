// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * readat_lib.c - one line or one integer from a file of a kernel
 * directory, for the builtin livepatch's source (its sysfs, /proc)
 *
 * The file is opened relative to its directory's fd, without following
 * a symlink (O_NOFOLLOW) and read once: a kernel attribute is one read.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "readat.h"

/**
 * readat_line() - the first line of dirfd/name, without its newline
 * @dirfd:	the directory
 * @name:	the file in it
 * @buf:	where the line goes, NUL-terminated (cut at @size - 1 bytes)
 * @size:	the size of @buf, at least 1
 *
 * Return: 0, or -errno if the file could not be opened or read (ELOOP
 * for a symlink)
 */
int readat_line(int dirfd, const char *name, char *buf, size_t size)
{
	ssize_t n;
	int fd;

	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	if (n < 0)
		n = -errno;
	close(fd);
	if (n < 0)
		return n;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/**
 * readat_int() - the decimal int on the first line of dirfd/name
 * @dirfd:	the directory
 * @name:	the file in it
 * @val:	set to the value, only on success
 *
 * Return: 0, -errno if unread, or -EINVAL if the line is not one decimal
 * integer (an optional sign, digits, nothing after) that fits an int
 */
int readat_int(int dirfd, const char *name, int *val)
{
	char buf[32], *end;
	long v;
	int err = readat_line(dirfd, name, buf, sizeof(buf));

	if (err)
		return err;
	errno = 0;
	v = strtol(buf, &end, 10);
	if (errno || end == buf || *end || v < INT_MIN || v > INT_MAX)
		return -EINVAL;
	*val = v;
	return 0;
}
