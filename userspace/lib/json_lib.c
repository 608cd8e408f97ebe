// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * json_lib.c - the one JSON string writer of klptop and klp-trace
 */
#include "json.h"

/* '"', '\\', the control characters and DEL */
static int json_special(unsigned char c)
{
	return c < 0x20 || c == '"' || c == '\\' || c == 0x7f;
}

/**
 * json_buf_str() - append @len bytes of @s as a quoted JSON string
 * @b:   the buffer
 * @s:   the bytes (names from the kernel: no NUL inside)
 * @len: how many
 *
 * Escapes '"', '\\', the control characters (\n and \t by name, the others
 * as \u00XX) and DEL; other bytes pass as they are, runs of them copied
 * whole.
 */
void json_buf_str(struct strbuf *b, const char *s, size_t len)
{
	const char *end = s + len, *p;
	unsigned char c;

	sb_put(b, "\"", 1);
	while (s < end) {
		for (p = s; p < end && !json_special(*p); p++)
			;
		sb_put(b, s, p - s);
		s = p;
		if (s == end)
			break;
		c = *s++;
		if (c == '"' || c == '\\') {
			char esc[2] = { '\\', c };

			sb_put(b, esc, 2);
		} else if (c == '\n') {
			sb_put(b, "\\n", 2);
		} else if (c == '\t') {
			sb_put(b, "\\t", 2);
		} else {
			sb_printf(b, "\\u%04x", c);
		}
	}
	sb_put(b, "\"", 1);
}

/**
 * json_put_str() - write @len bytes of @s as a quoted JSON string
 * @out: where to
 * @s:   as for json_buf_str()
 * @len: how many
 */
void json_put_str(FILE *out, const char *s, size_t len)
{
	struct strbuf b = {};

	json_buf_str(&b, s, len);
	fwrite(b.s, 1, b.len, out);
	sb_free(&b);
}
