// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * klp-exporter_text.c - the pieces of the metrics text, in both formats:
 * a family's HELP and TYPE lines, a sample's label set and its value
 *
 * OpenMetrics 1.0 (counter families named without _total, info type,
 * "# EOF") for a Prometheus that asks for it, and the 0.0.4 text format
 * for others and for node_exporter's textfiles.  No label carries an
 * address.
 */
#include <stdarg.h>
#include <string.h>
#include "klp-exporter.h"

/* A sample's value and the line's end: " <v>\n". */
void ex_put_value(struct strbuf *b, unsigned long long v)
{
	sb_put(b, " ", 1);
	sb_put_ull(b, v);
	sb_put(b, "\n", 1);
}

/*
 * The length of the valid UTF-8 sequence of a character that s starts
 * with (a byte of 0x80 or more), or 0: a stray continuation byte, an
 * overlong form, a surrogate, a code point past U+10FFFF or a sequence
 * cut short (by the string's end too) is not one.
 */
static size_t utf8_len(const unsigned char *s)
{
	static const struct {
		unsigned char lo, hi;	/* the first byte's range */
		unsigned char n;	/* the sequence's length */
		unsigned int min;	/* its smallest code point */
	} forms[] = {
		{ 0xc2, 0xdf, 2, 0x80 },
		{ 0xe0, 0xef, 3, 0x800 },
		{ 0xf0, 0xf4, 4, 0x10000 },
	};
	unsigned int cp;
	size_t f, i;

	for (f = 0; f < ARRAY_SIZE(forms); f++)
		if (s[0] >= forms[f].lo && s[0] <= forms[f].hi)
			break;
	if (f == ARRAY_SIZE(forms))
		return 0;
	cp = s[0] & (0x7f >> forms[f].n);
	for (i = 1; i < forms[f].n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < forms[f].min || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return forms[f].n;
}

/*
 * A label value as both formats want it: UTF-8, with \\, \" and \n
 * escaped.  A byte that is no part of a valid UTF-8 character (a task's
 * comm is any bytes but NUL, set by any user with prctl(PR_SET_NAME);
 * a scraper refuses the whole text for one) is written as U+FFFD, the
 * replacement character, then the byte in two hex digits (0xff: U+FFFD
 * and "FF").  A U+FFFD of the value is written twice, so two values
 * never give one label (the idle tasks are told apart by comm alone).
 * Runs of plain characters are copied whole: a scrape of 1000 functions
 * has some 100,000 of them.
 */
static void put_value(struct strbuf *b, const char *v)
{
	static const char fffd[] = "\xef\xbf\xbd";
	const unsigned char *s = (const unsigned char *)v;
	size_t run = 0, n;
	unsigned char c;

	for (;;) {
		c = s[run];
		if (c && c < 0x80 && c != '\\' && c != '"' && c != '\n') {
			run++;
			continue;
		}
		n = c >= 0x80 ? utf8_len(s + run) : 0;
		if (n && (n != 3 || memcmp(s + run, fffd, 3))) {
			run += n;
			continue;
		}
		sb_put(b, (const char *)s, run);
		if (!c)
			return;
		if (n) {			/* the value's own U+FFFD */
			sb_put(b, fffd, 3);
			sb_put(b, fffd, 3);
		} else if (c >= 0x80)
			sb_printf(b, "%s%02X", fffd, c);
		else
			sb_put(b, c == '\n' ? "\\n" : c == '"' ? "\\\"" : "\\\\", 2);
		s += run + (n ? n : 1);
		run = 0;
	}
}

/*
 * ex_put_labels(b, "object", o, "function", f, NULL): the label set,
 * rendered, appended to b (no braces)
 */
void ex_put_labels(struct strbuf *b, ...)
{
	const char *name;
	bool first = true;
	va_list ap;

	va_start(ap, b);
	while ((name = va_arg(ap, const char *))) {
		if (!first)
			sb_put(b, ",", 1);
		sb_put(b, name, strlen(name));
		sb_put(b, "=\"", 2);
		put_value(b, va_arg(ap, const char *));
		sb_put(b, "\"", 1);
		first = false;
	}
	va_end(ap);
}

/**
 * ex_header() - a metric family's HELP and TYPE lines
 * @b:    appended to
 * @fmt:  the format: in OpenMetrics a counter's family has no _total,
 *        an info's no _info; the text format has no info type (gauge)
 * @name: the samples' name
 * @type: counter, gauge or info
 * @help: the HELP text
 */
void ex_header(struct strbuf *b, enum ex_format fmt, const char *name,
	       const char *type, const char *help)
{
	bool counter = !strcmp(type, "counter");
	bool info = !strcmp(type, "info");
	int len = (int)strlen(name);

	if (fmt == EX_OPENMETRICS && counter)
		len -= (int)strlen("_total");
	else if (fmt == EX_OPENMETRICS && info)
		len -= (int)strlen("_info");
	else if (info)
		type = "gauge";
	sb_printf(b, "# HELP %.*s %s\n# TYPE %.*s %s\n", len, name, help,
		      len, name, type);
}

/* A family of one sample without labels: its HELP, TYPE and value. */
void ex_scalar(struct strbuf *b, enum ex_format fmt, const char *name,
	       const char *type, const char *help, unsigned long long value)
{
	ex_header(b, fmt, name, type, help);
	sb_printf(b, "%s %llu\n", name, value);
}
