/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * strbuf.h - a growing text buffer, for output built whole and written at
 * once (klp-exporter's metrics, klptop's JSON lines, JSON strings)
 */
#ifndef _KLP_STRBUF_H
#define _KLP_STRBUF_H

#include <stddef.h>
#include <string.h>

/* Zeroed is empty; s is NUL-terminated once anything was put. */
struct strbuf {
	char *s;
	size_t len, cap;
};

void sb_grow(struct strbuf *b, size_t len);

/*
 * sb_put() - append len bytes of s.  Inline: output is put in many small
 * pieces, most of a length known where it is put.
 */
static inline void sb_put(struct strbuf *b, const char *s, size_t len)
{
	if (b->len + len >= b->cap)
		sb_grow(b, len);
	memcpy(b->s + b->len, s, len);
	b->len += len;
	b->s[b->len] = '\0';
}

/* A string literal, its length known at compile time. */
#define sb_lit(b, lit)	sb_put(b, lit, sizeof(lit) - 1)

void sb_puts(struct strbuf *b, const char *s);
void sb_put_ull(struct strbuf *b, unsigned long long v);
void sb_put_hex(struct strbuf *b, unsigned long long v);
void sb_put_fixed1(struct strbuf *b, double v);
void sb_printf(struct strbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void sb_free(struct strbuf *b);
int sb_write_all(int fd, const char *s, size_t len);

#endif /* _KLP_STRBUF_H */
