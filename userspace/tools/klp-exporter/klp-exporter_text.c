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
 * A label value, escaped as both formats want: \\, \" and \n.  Runs of
 * plain characters are copied whole: a scrape of 1000 functions has
 * some 100,000 of them.
 */
static void put_value(struct strbuf *b, const char *v)
{
	size_t run;

	for (;;) {
		run = strcspn(v, "\\\"\n");
		sb_put(b, v, run);
		v += run;
		if (!*v)
			return;
		sb_put(b, *v == '\n' ? "\\n" : *v == '"' ? "\\\"" : "\\\\", 2);
		v++;
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
