/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * kcore.h - the kernel's memory read from userspace through /proc/kcore,
 * an ELF core file: each PT_LOAD program header maps a range of kernel
 * virtual addresses to a range of the file.  No BPF, no module: root
 * (CAP_SYS_RAWIO) and a kernel not in lockdown's confidentiality mode.
 *
 * The header and everything read are outside input: every size and
 * offset is checked before use, a read outside every segment fails.
 */
#ifndef _KLP_KCORE_H
#define _KLP_KCORE_H

#include <stddef.h>

#define KCORE_PATH		"/proc/kcore"
#define KCORE_MAX_SEGS		1024	/* PT_LOADs kept (x86-64: a dozen) */

/* One PT_LOAD: [vaddr, vaddr + size) is at [offset, offset + size). */
struct kcore_seg {
	unsigned long long vaddr;
	unsigned long long offset;
	unsigned long long size;
};

struct kcore {
	int fd;				/* -1: closed */
	struct kcore_seg *segs;
	size_t nr_segs;
};

int kcore_open(struct kcore *kc, const char *path);
int kcore_open_fd(struct kcore *kc, int fd);
int kcore_read(const struct kcore *kc, unsigned long long addr, void *buf,
	       size_t len);
void kcore_close(struct kcore *kc);

#endif /* _KLP_KCORE_H */
