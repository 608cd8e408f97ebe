// SPDX-License-Identifier: GPL-2.0
/*
 * kcore_walk.c - the driver of selftests/host/38-kcore-walk.sh: a fake
 * /proc/kcore (an ELF64 core file with two PT_LOADs) holding a fake
 * builtin livepatch (a klp_ops list, func_stacks, kobjects), read by
 * userspace/lib/kcore_lib.c and walked by livepatch_walk_lib.c.
 *
 *   kcore_walk walk CASE     the walk's records and status for CASE
 *   kcore_walk hdr CASE      kcore_open_fd()'s result on a damaged header
 *   kcore_walk read          kcore_read() at segment edges
 *   kcore_walk fuzz N SEED   N random damages of the image: every walk
 *                            ends, within its bounds, names terminated
 */
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include "kcore.h"
#include "livepatch_walk.h"

#define V0	0xffffffff81000000ULL	/* seg 0: the kernel image */
#define V1	0xffff888000100000ULL	/* seg 1: the direct map */
#define S0	0x1000ULL
#define S1	0x2000ULL
#define OFF0	0x1000ULL		/* file offsets */
#define OFF1	0x2000ULL
#define IMG	(OFF1 + S1)

#define HEAD	(V0 + 0x100)
#define OPS1	(V1 + 0x000)
#define OPS2	(V1 + 0x100)
#define FA	(V1 + 0x200)
#define FB	(V1 + 0x400)
#define FC	(V1 + 0x600)
#define P1K	(V1 + 0x1000)		/* patch kobjects, object kobjects */
#define O1K	(V1 + 0x1040)
#define P2K	(V1 + 0x1080)
#define O2K	(V1 + 0x10c0)

static const struct lpw_offsets off = {
	.ops_node = 0, .ops_func_stack = 16, .func_stack_node = 0x80,
	.func_old_func = 0x8, .func_new_func = 0x10, .func_kobj = 0x20,
	.func_transition = 0x90, .func_patched = 0x91, .func_nop = 0x92,
	.kobj_name = 0, .kobj_parent = 0x18,
};

static unsigned char img[IMG];
static unsigned long long str_at = V0 + 0x400;

static unsigned char *at(unsigned long long addr)
{
	if (addr >= V0 && addr < V0 + S0)
		return img + OFF0 + (addr - V0);
	if (addr >= V1 && addr < V1 + S1)
		return img + OFF1 + (addr - V1);
	abort();
}

static void put64(unsigned long long addr, unsigned long long v)
{
	memcpy(at(addr), &v, sizeof(v));
}

static unsigned long long str(const char *s)
{
	unsigned long long a = str_at;

	memcpy(at(a), s, strlen(s) + 1);
	str_at += strlen(s) + 1;
	return a;
}

static void kobj(unsigned long long k, const char *name,
		 unsigned long long parent)
{
	put64(k + off.kobj_name, str(name));
	put64(k + off.kobj_parent, parent);
}

static void func(unsigned long long f, const char *name,
		 unsigned long long obj, unsigned long long old,
		 unsigned long long new, unsigned long long next)
{
	kobj(f + off.func_kobj, name, obj);
	put64(f + off.func_old_func, old);
	put64(f + off.func_new_func, new);
	put64(f + off.func_stack_node, next);
	*at(f + off.func_patched) = 1;
}

/* The ELF header, its two PT_LOADs, and the fake builtin. */
static void build(void)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)img;
	Elf64_Phdr *ph = (Elf64_Phdr *)(img + sizeof(*eh));

	memset(img, 0, sizeof(img));
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_type = ET_CORE;
	eh->e_phoff = sizeof(*eh);
	eh->e_phentsize = sizeof(*ph);
	eh->e_phnum = 3;
	ph[0] = (Elf64_Phdr){ .p_type = PT_NOTE, .p_offset = 0x200, .p_filesz = 8 };
	ph[1] = (Elf64_Phdr){ .p_type = PT_LOAD, .p_vaddr = V0, .p_offset = OFF0,
			      .p_filesz = S0, .p_memsz = S0 };
	ph[2] = (Elf64_Phdr){ .p_type = PT_LOAD, .p_vaddr = V1, .p_offset = OFF1,
			      .p_filesz = S1, .p_memsz = S1 };
	str_at = V0 + 0x400;
	kobj(P1K, "p1", 0);
	kobj(O1K, "vmlinux", P1K);
	kobj(P2K, "p2", 0);
	kobj(O2K, "vmlinux", P2K);
	/* head -> ops1 -> ops2 -> head */
	put64(HEAD, OPS1);
	put64(OPS1, OPS2);
	put64(OPS2, HEAD);
	/* ops1: fA (p2, the winner), fB (p1); ops2: fC (p1) */
	put64(OPS1 + 16, FA + 0x80);
	func(FA, "target_a,1", O2K, V0 + 0x10, V0 + 0x20, FB + 0x80);
	func(FB, "target_a,1", O1K, V0 + 0x10, V0 + 0x30, OPS1 + 16);
	*at(FA + off.func_transition) = 1;
	put64(OPS2 + 16, FC + 0x80);
	func(FC, "target_b,2", O1K, V0 + 0x40, V0 + 0x50, OPS2 + 16);
	*at(FC + off.func_nop) = 1;
}

/* The image as a file: a memfd. */
static int image_fd(void)
{
	int fd = memfd_create("kcore", MFD_CLOEXEC);

	if (fd < 0 || pwrite(fd, img, sizeof(img), 0) != (ssize_t)sizeof(img)) {
		perror("memfd");
		exit(2);
	}
	return fd;
}

static int walk_case(const char *c)
{
	static struct klp_lp_rec recs[KLP_LP_MAX_RECS];
	struct lpw_result res = { .recs = recs };
	char name[KLP_FUNC_LEN];
	struct kcore kc;
	size_t i;
	int err;

	build();
	if (!strcmp(c, "empty")) {
		put64(HEAD, HEAD);
	} else if (!strcmp(c, "ops-cycle")) {	/* ops2 -> ops2, an empty stack */
		put64(OPS2, OPS2);
		put64(OPS2 + 16, OPS2 + 16);
	} else if (!strcmp(c, "func-cycle")) {	/* fC -> fC */
		put64(FC + 0x80, FC + 0x80);
	} else if (!strcmp(c, "outside")) {
		put64(FB + 0x80, 0xffffc90000000000ULL);
	} else if (!strcmp(c, "null")) {
		put64(OPS1, 0);
	} else if (!strcmp(c, "misaligned")) {
		put64(OPS1, OPS2 + 4);
	} else if (!strcmp(c, "name-at-end")) {	/* no NUL before seg 0 ends */
		memcpy(at(V0 + S0 - 4), "tail", 4);
		put64(P2K + off.kobj_name, V0 + S0 - 4);
	} else if (!strcmp(c, "name-long")) {
		memset(at(V0 + 0x800), 'x', 200);
		put64(P1K + off.kobj_name, V0 + 0x800);
	} else if (strcmp(c, "good")) {
		return 2;
	}
	err = kcore_open_fd(&kc, image_fd());
	if (err)
		return printf("open %d\n", err), 1;
	err = lpw_walk_tries(&kc, &off, HEAD, &res);
	printf("tries %d status %d nr %zu ops %u\n", err, res.status, res.nr,
	       res.nr_ops);
	for (i = 0; i < res.nr && i < 4; i++) {
		lpw_func_name(name, sizeof(name), recs[i].name);
		printf("%u %u %s %s %s(%s) old=%llx new=%llx t=%d p=%d n=%d\n",
		       recs[i].ops, recs[i].pos, recs[i].patch, recs[i].object,
		       recs[i].name, name, recs[i].old_func - V0,
		       recs[i].new_func - V0, recs[i].transition,
		       recs[i].patched, recs[i].nop);
	}
	kcore_close(&kc);
	return 0;
}

static int hdr_case(const char *c)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)img;
	Elf64_Phdr *ph = (Elf64_Phdr *)(img + sizeof(*eh));
	unsigned long long v;
	struct kcore kc;
	int err;

	build();
	if (!strcmp(c, "magic"))
		eh->e_ident[1] = 'X';
	else if (!strcmp(c, "class32"))
		eh->e_ident[EI_CLASS] = ELFCLASS32;
	else if (!strcmp(c, "big-endian"))
		eh->e_ident[EI_DATA] = ELFDATA2MSB;
	else if (!strcmp(c, "not-core"))
		eh->e_type = ET_EXEC;
	else if (!strcmp(c, "phentsize"))
		eh->e_phentsize = 48;
	else if (!strcmp(c, "phnum0"))
		eh->e_phnum = 0;
	else if (!strcmp(c, "phnum-huge"))
		eh->e_phnum = 0xffff;
	else if (!strcmp(c, "phoff-past-end"))
		eh->e_phoff = IMG - 8;
	else if (!strcmp(c, "phoff-wraps"))
		eh->e_phoff = ~0ULL - 16;
	else if (!strcmp(c, "seg-wraps"))	/* seg 1 ends past 2^64: dropped */
		ph[2].p_vaddr = ~0ULL - 8;
	else if (!strcmp(c, "seg-past-file"))	/* seg 1 longer than the file */
		ph[2].p_filesz = S1 * 4;
	else if (strcmp(c, "good"))
		return 2;
	err = kcore_open_fd(&kc, image_fd());
	printf("open %d segs %zu", err, err ? 0 : kc.nr_segs);
	if (!err) {
		err = kcore_read(&kc, OPS1, &v, sizeof(v));
		printf(" read-ops1 %d", err);
		err = kcore_read(&kc, V1 + S1 - 8, &v, sizeof(v));
		printf(" read-seg1-last %d", err);
		kcore_close(&kc);
	}
	printf("\n");
	return 0;
}

static int read_case(void)
{
	unsigned long long v = 0;
	struct kcore kc;
	char b[16];

	build();
	if (kcore_open_fd(&kc, image_fd()))
		return 1;
	printf("head %d %llx\n", kcore_read(&kc, HEAD, &v, 8), v - V1);
	printf("last byte %d\n", kcore_read(&kc, V0 + S0 - 1, b, 1));
	printf("across the end %d\n", kcore_read(&kc, V0 + S0 - 4, b, 8));
	printf("below %d\n", kcore_read(&kc, V0 - 1, b, 1));
	printf("wraps %d\n", kcore_read(&kc, ~0ULL - 3, b, 8));
	printf("bigger than a segment %d\n", kcore_read(&kc, V0, img, S0 + 1));
	printf("zero bytes %d\n", kcore_read(&kc, V0, b, 0));
	kcore_close(&kc);
	printf("closed %d\n", kcore_read(&kc, HEAD, &v, 8));
	kcore_close(&kc);
	return 0;
}

static unsigned long long rnd64(void)
{
	return (unsigned long long)rand() << 33 ^ (unsigned long long)rand() << 11 ^
	       rand();
}

/* A pointer into a segment, maybe misaligned, maybe to the list's head. */
static unsigned long long rnd_ptr(void)
{
	switch (rand() % 4) {
	case 0:
		return HEAD;
	case 1:
		return V0 + rand() % S0;
	default:
		return V1 + (rand() % S1 & ~7ULL) + (rand() % 8 ? 0 : 4);
	}
}

static int fuzz(long n, unsigned int seed)
{
	static struct klp_lp_rec recs[KLP_LP_MAX_RECS];
	static unsigned char good[IMG];
	struct lpw_result res = { .recs = recs };
	long i, counts[6] = {};
	int fd, k, m, err;
	struct kcore kc;
	size_t j, pos;

	srand(seed);
	build();
	memcpy(good, img, sizeof(img));
	fd = memfd_create("kcore", MFD_CLOEXEC);
	for (i = 0; i < n; i++) {
		memcpy(img, good, sizeof(img));
		m = 1 + rand() % 8;
		for (k = 0; k < m; k++) {
			unsigned long long v = rand() % 3 ? rnd_ptr() : rnd64();

			pos = rand() % 4 ? OFF1 + (rand() % S1 & ~7ULL) :
			      rand() % 2 ? rand() % 0x200 : rand() % (IMG - 8);
			if (rand() % 2)
				memcpy(img + pos, &v, 8);
			else
				img[pos] = rand();
		}
		if (pwrite(fd, img, sizeof(img), 0) != (ssize_t)sizeof(img) ||
		    ftruncate(fd, rand() % 16 ? IMG : rand() % IMG))
			return 2;
		err = kcore_open_fd(&kc, dup(fd));
		if (err) {
			counts[0]++;
			continue;
		}
		if (kc.nr_segs > KCORE_MAX_SEGS) {
			fprintf(stderr, "input %ld: %zu segments\n", i, kc.nr_segs);
			return 1;
		}
		err = lpw_walk_tries(&kc, &off, rand() % 8 ? HEAD : rnd_ptr(), &res);
		kcore_close(&kc);
		if (res.status < KLP_LP_WALK_DONE || res.status > KLP_LP_WALK_STEPS ||
		    res.nr > KLP_LP_MAX_RECS || (err && err != -EAGAIN) ||
		    (!err && res.status != KLP_LP_WALK_DONE &&
		     res.status != KLP_LP_WALK_TRUNCATED)) {
			fprintf(stderr, "input %ld: status %d nr %zu err %d\n", i,
				res.status, res.nr, err);
			return 1;
		}
		counts[res.status]++;
		for (j = 0; j < res.nr; j++)
			if (strnlen(recs[j].patch, KLP_NAME_LEN) == KLP_NAME_LEN ||
			    strnlen(recs[j].object, KLP_NAME_LEN) == KLP_NAME_LEN ||
			    strnlen(recs[j].name, KLP_FUNC_LEN) == KLP_FUNC_LEN ||
			    !recs[j].ops || recs[j].ops > res.nr_ops) {
				fprintf(stderr, "input %ld: record %zu unterminated or out of its walk\n",
					i, j);
				return 1;
			}
	}
	close(fd);
	printf("refused %ld done %ld truncated %ld fault %ld steps %ld\n",
	       counts[0], counts[1], counts[2], counts[3], counts[4]);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 2 && !strcmp(argv[1], "walk"))
		return walk_case(argv[2]);
	if (argc > 2 && !strcmp(argv[1], "hdr"))
		return hdr_case(argv[2]);
	if (argc > 1 && !strcmp(argv[1], "read"))
		return read_case();
	if (argc > 3 && !strcmp(argv[1], "fuzz"))
		return fuzz(atol(argv[2]), atoi(argv[3]));
	return 2;
}
