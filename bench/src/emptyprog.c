// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * emptyprog - attach emptyprog.bpf.o's program to klp:klp_redirect and
 * hold it until SIGINT or SIGTERM
 *
 * Usage: emptyprog OBJ
 *
 * Prints "attached" once the program is attached, so a caller can wait
 * for that line before it measures.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	struct bpf_object *obj;
	struct bpf_program *prog;
	struct bpf_link *link;
	int err;

	if (argc != 2) {
		fprintf(stderr, "usage: %s OBJ\n", argv[0]);
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
	prog = bpf_object__find_program_by_name(obj, "emptyprog");
	link = prog ? bpf_program__attach(prog) : NULL;
	if (!link) {
		fprintf(stderr, "emptyprog: attach to klp_redirect: %s\n",
			strerror(errno));
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
