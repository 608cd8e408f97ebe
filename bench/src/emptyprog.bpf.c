// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * emptyprog.bpf.c - a raw tracepoint program on klp:klp_redirect that does
 * nothing: what any BPF consumer of the event pays before its first
 * instruction (the tracepoint's dispatch and the handler's listened path).
 * bench/guest.sh sets it against klptop's counting program.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

SEC("raw_tp/klp_redirect")
int emptyprog(void *ctx)
{
	return 0;
}
