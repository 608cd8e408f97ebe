/* SPDX-License-Identifier: GPL-2.0 */
/*
 * klp_test_many.h - 256 functions and a patch of any number of them, for
 * tests of what switching costs as the patch grows.
 *
 * KLP_MANY(F) expands F(i) for i = 0x00 ... 0xff: klp_test_many_tgt.c
 * defines klp_many_f<i> returning i, klp_test_many.c replaces them.
 */
#ifndef _KLP_TEST_MANY_H
#define _KLP_TEST_MANY_H

#define KLP_MANY_NR	256

#define KLP_MANY16(F, p)						\
	F(p##0) F(p##1) F(p##2) F(p##3) F(p##4) F(p##5) F(p##6) F(p##7) \
	F(p##8) F(p##9) F(p##a) F(p##b) F(p##c) F(p##d) F(p##e) F(p##f)

#define KLP_MANY(F)							\
	KLP_MANY16(F, 0x0) KLP_MANY16(F, 0x1) KLP_MANY16(F, 0x2)	\
	KLP_MANY16(F, 0x3) KLP_MANY16(F, 0x4) KLP_MANY16(F, 0x5)	\
	KLP_MANY16(F, 0x6) KLP_MANY16(F, 0x7) KLP_MANY16(F, 0x8)	\
	KLP_MANY16(F, 0x9) KLP_MANY16(F, 0xa) KLP_MANY16(F, 0xb)	\
	KLP_MANY16(F, 0xc) KLP_MANY16(F, 0xd) KLP_MANY16(F, 0xe)	\
	KLP_MANY16(F, 0xf)

/* What the patch's replacement of klp_many_f<i> returns. */
#define KLP_MANY_NEW(i)	(1000 + (i))

#endif /* _KLP_TEST_MANY_H */
