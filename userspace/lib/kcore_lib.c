// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * kcore_lib.c - kernel virtual memory read through /proc/kcore
 *
 * /proc/kcore is an ELF64 core file of the running kernel: its program
 * headers (PT_LOAD) say which file offset holds which range of kernel
 * virtual addresses (the kernel image, the direct map, vmalloc and the
 * modules).  kcore_open() checks the header and keeps the PT_LOADs;
 * kcore_read() reads a range that lies whole in one of them.  The file
 * may be anything (a test's fake image, a header cut short): no size,
 * offset or count of it is trusted before it is checked.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "kcore.h"

/* Exactly len bytes at off, or -EIO. */
static int read_exact(int fd, void *buf, size_t len, unsigned long long off)
{
	size_t done = 0;
	ssize_t n;

	if (off > (unsigned long long)INT64_MAX - len)
		return -EIO;
	while (done < len) {
		n = pread(fd, (char *)buf + done, len - done, off + done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -EIO;
		done += n;
	}
	return 0;
}

/* The ELF header's identity and sizes: one of this machine's cores. */
static int check_ehdr(const Elf64_Ehdr *eh)
{
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 ||
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	    eh->e_ident[EI_DATA] != ELFDATA2LSB ||
#else
	    eh->e_ident[EI_DATA] != ELFDATA2MSB ||
#endif
	    eh->e_type != ET_CORE)
		return -ENOEXEC;
	if (eh->e_phentsize != sizeof(Elf64_Phdr) || !eh->e_phnum ||
	    eh->e_phnum > KCORE_MAX_SEGS)
		return -ENOEXEC;
	return 0;
}

/* A PT_LOAD kept: non-empty, its ends within 64 bits. */
static void add_seg(struct kcore *kc, const Elf64_Phdr *ph)
{
	struct kcore_seg *s;

	if (ph->p_type != PT_LOAD || !ph->p_filesz ||
	    ph->p_vaddr > ~0ULL - ph->p_filesz ||
	    ph->p_offset > (unsigned long long)INT64_MAX - ph->p_filesz)
		return;
	s = &kc->segs[kc->nr_segs++];
	s->vaddr = ph->p_vaddr;
	s->offset = ph->p_offset;
	s->size = ph->p_filesz;
}

/**
 * kcore_open_fd() - read a kcore's program headers
 * @kc: filled in; the fd is its own from now on (kcore_close() closes it)
 * @fd: the file, at any position
 *
 * Return: 0, or -errno (-ENOEXEC: not an ELF64 core of this byte order,
 * or its program headers cannot be read); @kc is closed then.
 */
int kcore_open_fd(struct kcore *kc, int fd)
{
	Elf64_Ehdr eh;
	Elf64_Phdr *ph = NULL;
	size_t i;
	int err;

	memset(kc, 0, sizeof(*kc));
	kc->fd = fd;
	err = read_exact(fd, &eh, sizeof(eh), 0);
	if (!err)
		err = check_ehdr(&eh);
	if (err)
		goto fail;
	ph = calloc(eh.e_phnum, sizeof(*ph));
	kc->segs = calloc(eh.e_phnum, sizeof(*kc->segs));
	if (!ph || !kc->segs) {
		err = -ENOMEM;
		goto fail;
	}
	if (read_exact(fd, ph, (size_t)eh.e_phnum * sizeof(*ph), eh.e_phoff)) {
		err = -ENOEXEC;
		goto fail;
	}
	for (i = 0; i < eh.e_phnum; i++)
		add_seg(kc, &ph[i]);
	free(ph);
	return 0;
fail:
	free(ph);
	kcore_close(kc);
	return err;
}

/**
 * kcore_open() - open a kcore file and read its program headers
 * @kc:   filled in
 * @path: NULL: /proc/kcore
 *
 * Return: 0, or -errno (-EPERM/-EACCES: not root, or lockdown).
 */
int kcore_open(struct kcore *kc, const char *path)
{
	int fd = open(path ?: KCORE_PATH, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);

	if (fd < 0) {
		memset(kc, 0, sizeof(*kc));
		kc->fd = -1;
		return -errno;
	}
	return kcore_open_fd(kc, fd);
}

/**
 * kcore_read() - kernel memory at a virtual address
 * @kc:   opened
 * @addr: the first byte's address
 * @buf:  where to
 * @len:  how many bytes
 *
 * The whole range must lie in one segment (kcore's segments do not
 * touch where it matters: a structure is never split across two).
 *
 * Return: 0, -EFAULT when no segment holds the range, -EIO when the file
 * gives less.
 */
int kcore_read(const struct kcore *kc, unsigned long long addr, void *buf,
	       size_t len)
{
	const struct kcore_seg *s;
	size_t i;

	if (kc->fd < 0 || !len)
		return -EFAULT;
	for (i = 0; i < kc->nr_segs; i++) {
		s = &kc->segs[i];
		if (addr < s->vaddr || len > s->size ||
		    addr - s->vaddr > s->size - len)
			continue;
		return read_exact(kc->fd, buf, len, s->offset + (addr - s->vaddr));
	}
	return -EFAULT;
}

/* The file closed and the segments freed; closing twice is harmless. */
void kcore_close(struct kcore *kc)
{
	if (kc->fd >= 0)
		close(kc->fd);
	free(kc->segs);
	kc->fd = -1;
	kc->segs = NULL;
	kc->nr_segs = 0;
}
