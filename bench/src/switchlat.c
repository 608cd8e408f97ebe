// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * switchlat - how long until a live patch switch is live
 *
 * Usage: switchlat [-f FILE -v VALUE] [-t TRANSITION] [-T SECONDS] \
 *                  write PATH STRING | insmod MODULE.ko [PARAMS]
 *
 * Does one action -- write STRING to PATH (an `enabled` file) or load a
 * module -- and times, from just before it:
 *   write  until the write (or finit_module()) returned
 *   same   until this task, calling the function right after, gets VALUE
 *   other  until a second thread, spinning on another CPU since before the
 *          action, first gets VALUE
 *   trans  until TRANSITION (the builtin livepatch's `transition` file)
 *          reads 0 or is gone (a disabled builtin patch is freed)
 * A call of the function is a read of FILE (as in callloop).  Prints
 *   write=<ns> same=<ns> other=<ns> trans=<ns>
 * with -1 for what was not asked for; exits 1 if anything timed out.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static const char *fn_file;
static long want;
static unsigned long long timeout_ns = 60000000000ULL;
static atomic_int poller_ready;
static atomic_int poller_stop;
static unsigned long long t_start;
static long long t_other = -1;

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* One call of the function: its value, or -1 on error. */
static long call_fn(int *fd)
{
	char buf[32];
	ssize_t len;

	if (*fd >= 0) {
		len = pread(*fd, buf, sizeof(buf) - 1, 0);
		if (len >= 0 || errno != ESPIPE)
			goto got;
		close(*fd);
		*fd = -1;
	}
	/* nonseekable file: one open per call */
	{
		int f = open(fn_file, O_RDONLY);

		if (f < 0)
			return -1;
		len = read(f, buf, sizeof(buf) - 1);
		close(f);
	}
got:
	if (len < 0)
		return -1;
	buf[len] = '\0';
	return strtol(buf, NULL, 10);
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static void *poller(void *arg)
{
	int fd = open(fn_file, O_RDONLY);

	(void)arg;
	pin(1);
	call_fn(&fd);
	atomic_store(&poller_ready, 1);
	while (!atomic_load(&poller_stop)) {
		if (call_fn(&fd) == want) {
			t_other = now_ns() - t_start;
			break;
		}
		if (t_start && now_ns() - t_start > timeout_ns)
			break;
	}
	if (fd >= 0)
		close(fd);
	return NULL;
}

static int do_write(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, s, strlen(s));
	close(fd);
	return n == (ssize_t)strlen(s) ? 0 : -1;
}

static int do_insmod(const char *ko, const char *params)
{
	int fd = open(ko, O_RDONLY | O_CLOEXEC);
	long ret;

	if (fd < 0)
		return -1;
	ret = syscall(SYS_finit_module, fd, params, 0);
	close(fd);
	return ret ? -1 : 0;
}

/* 0 when the transition file reads 0 or is gone, 1 while it reads 1. */
static int in_transition(const char *path)
{
	char c = 0;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return 0;
	if (read(fd, &c, 1) != 1)
		c = '0';
	close(fd);
	return c != '0';
}

static void usage(const char *argv0)
{
	fprintf(stderr, "%s%s%s", "usage: ", argv0,
		" [-f FILE -v VALUE] [-t TRANSITION] [-T SECONDS] write PATH STRING | insmod KO [PARAMS]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *trans = NULL;
	long long t_write, t_same = -1, t_trans = -1;
	struct timespec ms = { 0, 500000 };
	pthread_t thr;
	int fd = -1, ret, opt, late = 0;

	while ((opt = getopt(argc, argv, "f:v:t:T:")) != -1) {
		switch (opt) {
		case 'f':
			fn_file = optarg;
			break;
		case 'v':
			want = strtol(optarg, NULL, 10);
			break;
		case 't':
			trans = optarg;
			break;
		case 'T':
			timeout_ns = strtoull(optarg, NULL, 10) * 1000000000ULL;
			break;
		default:
			usage(argv[0]);
		}
	}
	if (argc - optind < 2)
		usage(argv[0]);

	pin(0);
	if (fn_file) {
		fd = open(fn_file, O_RDONLY);
		if (call_fn(&fd) == want) {
			fprintf(stderr, "switchlat: %s already returns %ld\n",
				fn_file, want);
			return 1;
		}
		if (pthread_create(&thr, NULL, poller, NULL))
			return 1;
		while (!atomic_load(&poller_ready))
			sched_yield();
	}

	t_start = now_ns();
	if (!strcmp(argv[optind], "write") && argc - optind == 3)
		ret = do_write(argv[optind + 1], argv[optind + 2]);
	else if (!strcmp(argv[optind], "insmod"))
		ret = do_insmod(argv[optind + 1],
				argc - optind > 2 ? argv[optind + 2] : "");
	else
		usage(argv[0]);
	t_write = now_ns() - t_start;
	if (ret) {
		perror(argv[optind + 1]);
		atomic_store(&poller_stop, 1);
		return 1;
	}

	if (fn_file) {
		while (now_ns() - t_start < timeout_ns) {
			if (call_fn(&fd) == want) {
				t_same = now_ns() - t_start;
				break;
			}
		}
		/* the poller gives up by itself after the timeout */
		pthread_join(thr, NULL);
		late |= t_same < 0 || t_other < 0;
		if (fd >= 0)
			close(fd);
	}

	if (trans) {
		while (in_transition(trans)) {
			if (now_ns() - t_start > timeout_ns)
				break;
			nanosleep(&ms, NULL);
		}
		if (!in_transition(trans))
			t_trans = now_ns() - t_start;
		late |= t_trans < 0;
	}

	printf("write=%lld same=%lld other=%lld trans=%lld\n", t_write, t_same,
	       t_other, t_trans);
	return late;
}
