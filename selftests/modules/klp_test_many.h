/* SPDX-License-Identifier: GPL-2.0 */
/*
 * klp_test_many.h - 256 (or 1024) functions and a patch of any number of
 * them, for tests of what switching costs as the patch grows.
 *
 * KLP_MANY(F) expands F(i) for i = 0x00 ... 0xff (0x000 ... 0x3ff):
 * klp_test_many_tgt.h defines klp_many_f<i> returning i,
 * klp_test_many_patch.h replaces them.
 */
#ifndef _KLP_TEST_MANY_H
#define _KLP_TEST_MANY_H

#define KLP_MANY16(F, p)						\
	F(p##0) F(p##1) F(p##2) F(p##3) F(p##4) F(p##5) F(p##6) F(p##7) \
	F(p##8) F(p##9) F(p##a) F(p##b) F(p##c) F(p##d) F(p##e) F(p##f)

#define KLP_MANY256(F, p)						\
	KLP_MANY16(F, p##0) KLP_MANY16(F, p##1) KLP_MANY16(F, p##2)	\
	KLP_MANY16(F, p##3) KLP_MANY16(F, p##4) KLP_MANY16(F, p##5)	\
	KLP_MANY16(F, p##6) KLP_MANY16(F, p##7) KLP_MANY16(F, p##8)	\
	KLP_MANY16(F, p##9) KLP_MANY16(F, p##a) KLP_MANY16(F, p##b)	\
	KLP_MANY16(F, p##c) KLP_MANY16(F, p##d) KLP_MANY16(F, p##e)	\
	KLP_MANY16(F, p##f)

/*
 * The set a module is built for: 256 functions (klp_test_many_tgt and its
 * patches), or 1024 with KLP_MANY_1K defined (klp_test_many1k_tgt and
 * klp_test_many1000): klp_many_f0x000 ... klp_many_f0x3ff.
 */
#ifdef KLP_MANY_1K
#define KLP_MANY_NR	1024
#define KLP_MANY(F)							\
	KLP_MANY256(F, 0x0) KLP_MANY256(F, 0x1) KLP_MANY256(F, 0x2)	\
	KLP_MANY256(F, 0x3)
#define KLP_MANY_TGT	"klp_test_many1k_tgt"
#define KLP_MANY_DIR	"klp_test_many1k"
#else
#define KLP_MANY_NR	256
#define KLP_MANY(F)	KLP_MANY256(F, 0x)
#define KLP_MANY_TGT	"klp_test_many_tgt"
#define KLP_MANY_DIR	"klp_test_many"
#endif

/* What the patch's replacement of klp_many_f<i> returns. */
#define KLP_MANY_NEW(i)	(1000 + (i))

#endif /* _KLP_TEST_MANY_H */
