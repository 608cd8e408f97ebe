/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * btfoff.h - byte offsets of struct members from the running kernel's BTF
 * (libbpf's parser; nothing loaded into the kernel)
 */
#ifndef _KLP_BTFOFF_H
#define _KLP_BTFOFF_H

struct btf;

/* One member's offset; -1 after saying which is missing (stderr). */
int btf_struct_member(const struct btf *btf, const char *sname,
		      const char *member, unsigned int *off);

#endif /* _KLP_BTFOFF_H */
