// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * json_lib.c - the one JSON string writer of klptop and klp-trace
 */
#include "json.h"

/**
 * json_put_str() - write @len bytes of @s as a quoted JSON string
 * @out: where to
 * @s:   the bytes (names from the kernel: no NUL inside)
 * @len: how many
 *
 * Escapes '"', '\\', the control characters (\n and \t by name, the others
 * as \u00XX) and DEL; other bytes pass as they are.
 */
void json_put_str(FILE *out, const char *s, size_t len)
{
	unsigned char c;
	size_t i;

	fputc('"', out);
	for (i = 0; i < len; i++) {
		c = s[i];
		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", out);
		else if (c == '\t')
			fputs("\\t", out);
		else if (c < 0x20 || c == 0x7f)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}
