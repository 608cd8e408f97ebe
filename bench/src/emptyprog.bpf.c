// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * emptyprog.bpf.c - programs that do nothing: what any BPF consumer pays
 * before its first instruction.  emptyprog, on klp:klp_redirect (the
 * tracepoint's dispatch and the handler's listened path), is set against
 * klptop's counting program there (bench/guest.sh); emptykprobe, on a
 * kprobe at a builtin patch's new function (ftrace's regs trampoline, the
 * kprobe and its perf event), against klptop's lp_count, a kprobe at the
 * same place (bench/guest-builtin.sh).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

SEC("raw_tp/klp_redirect")
int emptyprog(void *ctx)
{
	return 0;
}

SEC("kprobe")
int emptykprobe(void *ctx)
{
	return 0;
}
