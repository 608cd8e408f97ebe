// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ktt_tgt.c - the functions the torture's patches change, in a module
 *
 * Built twice: ktt_tgt_k (KTT_SIDE_k, patched by klp) and ktt_tgt_b
 * (KTT_SIDE_b, patched by the builtin livepatch).  Each original returns
 * KTT_ORIGINAL; OUTER calls INNER through ktt_park, as a patch's OUTER
 * does, and counts a mix.
 */
#include <linux/module.h>
#include "ktt.h"

#if defined(KTT_SIDE_k)
#define KTT_SIDE	KTT_K
#elif defined(KTT_SIDE_b)
#define KTT_SIDE	KTT_B
#else
#error "KTT_SIDE_k or KTT_SIDE_b"
#endif

#define KTT_ORIG_FN(name, fn)						\
static noinline int name(void)						\
{									\
	ktt_enter(KTT_SIDE, fn, KTT_ORIGINAL, KBUILD_MODNAME);		\
	return KTT_ORIGINAL;						\
}

KTT_ORIG_FN(ktt_f1, KTT_F1)
KTT_ORIG_FN(ktt_f2, KTT_F2)
KTT_ORIG_FN(ktt_f3, KTT_F3)
KTT_ORIG_FN(ktt_inner, KTT_INNER)

static noinline int ktt_outer(void)
{
	ktt_enter(KTT_SIDE, KTT_OUTER, KTT_ORIGINAL, KBUILD_MODNAME);
	ktt_pair_check(KTT_SIDE, KTT_ORIGINAL, ktt_call(KTT_SIDE, KTT_INNER));
	return KTT_ORIGINAL;
}

static const struct ktt_target ktt_target = {
	.owner = THIS_MODULE,
	.fn = {
		[KTT_F1] = ktt_f1,
		[KTT_F2] = ktt_f2,
		[KTT_F3] = ktt_f3,
		[KTT_OUTER] = ktt_outer,
		[KTT_INNER] = ktt_inner,
	},
};

static int __init ktt_tgt_init(void)
{
	return ktt_register_target(KTT_SIDE, &ktt_target);
}

static void __exit ktt_tgt_exit(void)
{
	ktt_unregister_target(KTT_SIDE);
}

module_init(ktt_tgt_init);
module_exit(ktt_tgt_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("klp torture: the target module");
