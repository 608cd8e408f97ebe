// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * btfoff_lib.c - struct member offsets from the kernel's BTF, for tools
 * that read the kernel's structures without BPF CO-RE (klp-trace's fetch
 * args, its walk of the builtin's func_stacks through /proc/kcore)
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/btf.h>
#include "btfoff.h"

/* Byte offset of member @name in struct/union @id, anonymous ones searched. */
static int member_offset(const struct btf *btf, __u32 id, const char *name,
			 unsigned int *off)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	const struct btf_member *m;
	unsigned int sub, bits;
	const char *mn;
	int i;

	if (!t || !(btf_is_struct(t) || btf_is_union(t)))
		return -ENOENT;
	m = btf_members(t);
	for (i = 0; i < btf_vlen(t); i++, m++) {
		mn = btf__name_by_offset(btf, m->name_off);
		bits = btf_member_bit_offset(t, i);
		if (mn && *mn && strcmp(mn, name))
			continue;
		if (mn && *mn) {
			if (bits % 8)
				return -EINVAL;
			*off = bits / 8;
			return 0;
		}
		if (!member_offset(btf, m->type, name, &sub)) {
			*off = bits / 8 + sub;
			return 0;
		}
	}
	return -ENOENT;
}

/**
 * btf_struct_member() - the byte offset of a member of a named struct
 * @btf:    the kernel's BTF
 * @sname:  the struct's name
 * @member: the member's (in an anonymous struct or union of it too)
 * @off:    the offset
 *
 * Return: 0, or -1 after saying on stderr which is missing.
 */
int btf_struct_member(const struct btf *btf, const char *sname,
		      const char *member, unsigned int *off)
{
	__s32 id = btf__find_by_name_kind(btf, sname, BTF_KIND_STRUCT);

	if (id < 0 || member_offset(btf, id, member, off)) {
		fprintf(stderr, "%s: builtin livepatch: struct %s has no member %s in the kernel's BTF\n",
			program_invocation_short_name, sname, member);
		return -1;
	}
	return 0;
}
