// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * json_lib.c - the one JSON string writer of klptop and klp-trace
 */
#include <string.h>
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

/**
 * json_put_text() - @len bytes of @s as a text record's value: as they are
 * when they hold no space, quote, backslash, control character or DEL,
 * else (or when empty) quoted as json_put_str() quotes them
 * @out: where to
 * @s:   as for json_buf_str()
 * @len: how many
 */
void json_put_text(FILE *out, const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if ((unsigned char)s[i] <= ' ' || json_special(s[i]))
			break;
	if (len && i == len)
		fwrite(s, 1, len, out);
	else
		json_put_str(out, s, len);
}

/**
 * json_put_field() - one string field of a record, as klp-trace prints
 * every field: ",\"name\":\"s\"" in JSON, " name=s" (escaped as
 * json_put_text() does) in text
 * @out:  where to
 * @json: JSON, else text
 * @name: the field's name (printed as it is)
 * @s:    its value
 */
void json_put_field(FILE *out, int json, const char *name, const char *s)
{
	if (json) {
		fprintf(out, ",\"%s\":", name);
		json_put_str(out, s, strlen(s));
	} else {
		fprintf(out, " %s=", name);
		json_put_text(out, s, strlen(s));
	}
}
