// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * emptyprog - attach one of emptyprog.bpf.o's programs, which do nothing,
 * and hold it until SIGINT or SIGTERM
 *
 * Usage: emptyprog OBJ              emptyprog on klp:klp_redirect
 *        emptyprog OBJ kprobe ADDR  emptykprobe on a kprobe at ADDR (hex),
 *                                   by address, as klptop attaches its
 *                                   counters of builtin livepatch calls
 *
 * Prints "attached" once the program is attached, so a caller can wait
 * for that line before it measures.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <bpf/libbpf.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* The kprobe PMU's perf type, or -1. */
static int kprobe_type(void)
{
	FILE *f = fopen("/sys/bus/event_source/devices/kprobe/type", "re");
	int type = -1;

	if (f) {
		if (fscanf(f, "%d", &type) != 1)
			type = -1;
		fclose(f);
	}
	return type;
}

/* prog attached to a perf kprobe at addr (kprobe_addr, no kprobe_func) */
static struct bpf_link *attach_at(struct bpf_program *prog,
				  unsigned long long addr)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.kprobe_addr = addr,
	};
	struct bpf_link *link;
	int pfd, type = kprobe_type();

	if (type < 0) {
		errno = ENOENT;
		return NULL;
	}
	attr.type = type;
	pfd = syscall(__NR_perf_event_open, &attr, -1, 0, -1,
		      PERF_FLAG_FD_CLOEXEC);
	if (pfd < 0)
		return NULL;
	link = bpf_program__attach_perf_event(prog, pfd);
	if (!link) {
		int err = errno;

		close(pfd);
		errno = err;
	}
	return link;
}

int main(int argc, char **argv)
{
	unsigned long long addr = 0;
	const char *name = "emptyprog";
	struct bpf_object *obj;
	struct bpf_program *prog;
	struct bpf_link *link = NULL;
	char *end;
	int err;

	if (argc == 4 && !strcmp(argv[2], "kprobe")) {
		errno = 0;
		addr = strtoull(argv[3], &end, 16);
		if (errno || end == argv[3] || *end || !addr) {
			fprintf(stderr, "emptyprog: not an address: %s\n", argv[3]);
			return 2;
		}
		name = "emptykprobe";
	} else if (argc != 2) {
		fprintf(stderr, "usage: %s OBJ [kprobe ADDR]\n", argv[0]);
		return 2;
	}
	obj = bpf_object__open_file(argv[1], NULL);
	if (!obj) {
		fprintf(stderr, "emptyprog: open %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	err = bpf_object__load(obj);
	if (err) {
		fprintf(stderr, "emptyprog: load %s: %s\n", argv[1], strerror(-err));
		bpf_object__close(obj);
		return 1;
	}
	prog = bpf_object__find_program_by_name(obj, name);
	if (prog)
		link = addr ? attach_at(prog, addr) : bpf_program__attach(prog);
	if (!link) {
		fprintf(stderr, "emptyprog: attach %s: %s\n", name, strerror(errno));
		bpf_object__close(obj);
		return 1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	printf("attached\n");
	fflush(stdout);
	while (!stop)
		pause();
	bpf_link__destroy(link);
	bpf_object__close(obj);
	return 0;
}
