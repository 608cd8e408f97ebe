// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * callloop - call a patched function N times from userspace
 *
 * Usage: callloop FILE N
 *
 * Each call is one pread() of a debugfs file whose read handler calls the
 * function once (FILE is e.g. /sys/kernel/debug/klp_target/a).  A file that
 * refuses pread() (nonseekable_open(): ESPIPE) is opened, read and closed
 * once per call instead.  Prints one line:
 *   <ns per call> <value of the last call> <pread|reopen>
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int read_once(const char *path, int *fd, int reopen, char *buf,
		     size_t size)
{
	ssize_t len;

	if (reopen) {
		*fd = open(path, O_RDONLY);
		if (*fd < 0)
			return -1;
		len = read(*fd, buf, size - 1);
		close(*fd);
	} else {
		len = pread(*fd, buf, size - 1, 0);
	}
	if (len < 0)
		return -1;
	buf[len] = '\0';
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long long t0, t1;
	char buf[32];
	long i, n;
	int reopen = 0;
	int fd;

	n = argc == 3 ? strtol(argv[2], NULL, 10) : 0;
	if (n <= 0) {
		fprintf(stderr, "usage: %s FILE N\n", argv[0]);
		return 2;
	}

	fd = open(argv[1], O_RDONLY);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	if (pread(fd, buf, sizeof(buf) - 1, 0) < 0) {
		if (errno != ESPIPE) {
			perror("pread");
			return 1;
		}
		close(fd);
		reopen = 1;
	}

	t0 = now_ns();
	for (i = 0; i < n; i++) {
		if (read_once(argv[1], &fd, reopen, buf, sizeof(buf))) {
			perror(argv[1]);
			return 1;
		}
	}
	t1 = now_ns();
	if (!reopen)
		close(fd);

	printf("%.1f %ld %s\n", (double)(t1 - t0) / n, strtol(buf, NULL, 10),
	       reopen ? "reopen" : "pread");
	return 0;
}
