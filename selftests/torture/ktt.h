/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ktt.h - what the torture test's modules share (selftests/torture/)
 *
 * Every function the torture's patches change lives twice: in ktt_tgt_k,
 * which klp patches, and in ktt_tgt_b, which the kernel's builtin
 * livepatch patches (both cannot patch one function).  Each patch module
 * is built twice from one source, against <klp/livepatch.h> and against
 * <linux/livepatch.h>.  ktt_park, loaded first, holds what both sides
 * share and the test drives: the targets' functions called through their
 * winners, sleepers parked inside the function a call reached, the
 * callbacks' log and the mixed-version counts.
 */
#ifndef _KTT_H
#define _KTT_H

#include <linux/types.h>

struct module;

/* The two sides: klp's and the builtin livepatch's. */
enum ktt_core {
	KTT_K,
	KTT_B,
	KTT_NR_CORES
};

/*
 * The functions a patch may change.  OUTER calls INNER: every patch that
 * changes one changes both, so a call of OUTER that gets another INNER
 * than its own ran a mix of versions.  VM is in vmlinux (klp:
 * cmdline_proc_show, builtin: version_proc_show): /proc shows its version.
 */
enum ktt_fn {
	KTT_F1,
	KTT_F2,
	KTT_F3,
	KTT_OUTER,
	KTT_INNER,
	KTT_VM,
	KTT_NR_FNS
};

/**
 * struct ktt_target - a target module's functions, for ktt_call()
 * @owner:	the target module (pinned while a call is in it)
 * @fn:		its functions, KTT_VM excepted; a call through a pointer
 *		enters the function's ftrace location, so it reaches the
 *		winner
 */
struct ktt_target {
	struct module *owner;
	int (*fn[KTT_NR_FNS])(void);
};

int ktt_register_target(int core, const struct ktt_target *target);
void ktt_unregister_target(int core);
int ktt_call(int core, int fn);
void ktt_enter(int core, int fn, int version, const char *modname);
void ktt_pair_check(int core, int outer, int inner);
__printf(2, 3) void ktt_log(int core, const char *fmt, ...);

/* What the original functions return, and what a call without a target does. */
#define KTT_ORIGINAL	0
#define KTT_NO_TARGET	(-1)

#endif /* _KTT_H */
