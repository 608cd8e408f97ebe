// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * strbuf_lib.c - a growing text buffer
 *
 * Put without printf where output is large (a scrape or a JSON line of
 * 1000 functions is some 300 KB): plain copies and a decimal writer.  Out
 * of memory, the tool says so and exits, as its other allocations do.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "strbuf.h"

/**
 * sb_grow() - room for len more bytes and a NUL
 * @b:   the buffer
 * @len: bytes to come
 */
void sb_grow(struct strbuf *b, size_t len)
{
	char *s;

	if (b->len + len < b->cap)
		return;
	b->cap = (b->len + len + 1) * 2;
	s = realloc(b->s, b->cap);
	if (!s) {
		fprintf(stderr, "%s: out of memory\n",
			program_invocation_short_name);
		exit(1);
	}
	b->s = s;
}

/**
 * sb_puts() - append a string
 * @b: the buffer
 * @s: NUL-terminated
 */
void sb_puts(struct strbuf *b, const char *s)
{
	sb_put(b, s, strlen(s));
}

/**
 * sb_put_ull() - append a number in decimal
 * @b: the buffer
 * @v: the number
 */
void sb_put_ull(struct strbuf *b, unsigned long long v)
{
	static const char pairs[] =
		"00010203040506070809101112131415161718192021222324"
		"25262728293031323334353637383940414243444546474849"
		"50515253545556575859606162636465666768697071727374"
		"75767778798081828384858687888990919293949596979899";
	char d[24], *p = d + sizeof(d);

	/* two digits a division: a JSON line of 1000 rows has ~10000 numbers */
	while (v >= 100) {
		p -= 2;
		memcpy(p, &pairs[(v % 100) * 2], 2);
		v /= 100;
	}
	if (v >= 10) {
		p -= 2;
		memcpy(p, &pairs[v * 2], 2);
	} else {
		*--p = '0' + v;
	}
	sb_put(b, p, d + sizeof(d) - p);
}

/**
 * sb_put_hex() - append a number in hexadecimal, without 0x
 * @b: the buffer
 * @v: the number
 */
void sb_put_hex(struct strbuf *b, unsigned long long v)
{
	char d[16], *p = d + sizeof(d);

	do {
		*--p = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	sb_put(b, p, d + sizeof(d) - p);
}

/**
 * sb_put_fixed1() - append a number with one decimal, rounded
 * @b: the buffer
 * @v: the number, at least 0 (else printf does it)
 *
 * As printf's "%.1f" but for how an exact half rounds.
 */
void sb_put_fixed1(struct strbuf *b, double v)
{
	unsigned long long tenths;

	if (!(v >= 0 && v < 1e17)) {
		sb_printf(b, "%.1f", v);
		return;
	}
	tenths = (unsigned long long)(v * 10 + 0.5);
	sb_put_ull(b, tenths / 10);
	sb_put(b, ".", 1);
	sb_put_ull(b, tenths % 10);
}

/**
 * sb_printf() - append formatted text
 * @b:   the buffer
 * @fmt: printf's
 */
void sb_printf(struct strbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(b->s ? b->s + b->len : NULL,
			      b->s ? b->cap - b->len : 0, fmt, ap);
		va_end(ap);
		if (n < 0)
			return;
		if (b->s && b->len + n < b->cap) {
			b->len += n;
			return;
		}
		sb_grow(b, n);
	}
}

/**
 * sb_free() - free the text; the buffer is empty again
 * @b: the buffer
 */
void sb_free(struct strbuf *b)
{
	free(b->s);
	memset(b, 0, sizeof(*b));
}

/**
 * sb_write_all() - write all of a buffer, through short writes and EINTR
 * @fd:  to
 * @s:   the bytes
 * @len: how many
 *
 * Return: 0, or -errno.
 */
int sb_write_all(int fd, const char *s, size_t len)
{
	while (len) {
		ssize_t n = write(fd, s, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		s += n;
		len -= n;
	}
	return 0;
}
