// SPDX-License-Identifier: GPL-2.0
/*
 * klp-trace_format.c - one klp:* record as text or JSON
 *
 * Every field prints by name, as the event's format file (parsed by
 * libtraceevent) describes it, so a field added to an event shows up with
 * no change here: strings as they are (quoted when they need it), other
 * arrays as hex, __print_symbolic() values by their symbol, kernel
 * addresses as symbol+offset, numbers as signed or unsigned.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "json.h"
#include "klp-trace.h"

static struct tep_print_flag_sym *find_symbols(struct tep_event *event,
					       const char *name)
{
	struct tep_print_arg *arg, *f;

	for (arg = event->print_fmt.args; arg; arg = arg->next) {
		if (arg->type != TEP_PRINT_SYMBOL)
			continue;
		f = arg->symbol.field;
		if (f && f->type == TEP_PRINT_FIELD && f->field.name &&
		    !strcmp(f->field.name, name))
			return arg->symbol.symbols;
	}
	return NULL;
}

/**
 * ev_info_init() - what it takes to print one event's records
 * @ei:    to fill in
 * @event: the event, from libtraceevent
 *
 * Returns 0 or -ENOMEM.
 */
int ev_info_init(struct ev_info *ei, struct tep_event *event)
{
	struct tep_format_field *f;
	int i;

	memset(ei, 0, sizeof(*ei));
	ei->event = event;
	ei->nr_fields = event->format.nr_fields;
	ei->fields = calloc(ei->nr_fields ?: 1, sizeof(*ei->fields));
	if (!ei->fields)
		return -ENOMEM;
	for (f = event->format.fields, i = 0; f && i < ei->nr_fields;
	     f = f->next, i++) {
		ei->fields[i].field = f;
		ei->fields[i].symbols = find_symbols(event, f->name);
	}
	ei->nr_fields = i;
	ei->seq = tep_find_field(event, "seq");
	return 0;
}

void ev_info_free(struct ev_info *ei)
{
	free(ei->fields);
	ei->fields = NULL;
}

/* Other arrays print as hex bytes, "0a1b..." */
static void put_hex(FILE *out, const char *s, int len)
{
	int i;

	fputc('"', out);
	for (i = 0; i < len; i++)
		fprintf(out, "%02x", (unsigned char)s[i]);
	fputc('"', out);
}

/* An array field (__data_loc or fixed); NULL if it lies outside the record. */
static const char *field_data(struct tep_handle *tep,
			      struct tep_format_field *f,
			      struct tep_record *rec, int *len)
{
	const char *data = rec->data;
	unsigned long long loc;
	unsigned int off, size;

	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		if (f->offset + 4 > rec->size)
			return NULL;
		loc = tep_read_number(tep, data + f->offset, 4);
		off = loc & 0xffff;
		size = loc >> 16;
		if (f->flags & TEP_FIELD_IS_RELATIVE)
			off += f->offset + f->size;
	} else {
		off = f->offset;
		size = f->size;
	}
	if (off + size > (unsigned int)rec->size)
		return NULL;
	*len = size;
	return data + off;
}

static const char *symbolic(struct tep_print_flag_sym *sym,
			    unsigned long long val)
{
	unsigned long long v;
	char *end;

	for (; sym; sym = sym->next) {
		if (!sym->value)
			continue;
		errno = 0;
		v = strtoull(sym->value, &end, 0);
		if (!errno && !*end && v == val)
			return sym->str;
	}
	return NULL;
}

static void print_field(FILE *out, const struct ev_format *fmt,
			const struct ev_field *ef, struct tep_record *rec)
{
	struct tep_format_field *f = ef->field;
	const struct klp_ksym *ksym = NULL;
	unsigned long long val;
	bool is_signed, is_addr;
	const char *s, *sym;
	int len;

	if (fmt->json)
		fprintf(out, ",\"%s\":", f->name);
	else
		fprintf(out, " %s=", f->name);

	if (f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC)) {
		s = field_data(fmt->tep, f, rec, &len);
		if (!s)
			fputs(fmt->json ? "null" : "?", out);
		else if (!(f->flags & TEP_FIELD_IS_STRING))
			put_hex(out, s, len);
		else if (fmt->json)
			json_put_str(out, s, strnlen(s, len));
		else
			json_put_text(out, s, strnlen(s, len));
		return;
	}

	if (f->offset + f->size > rec->size ||
	    tep_read_number_field(f, rec->data, &val)) {
		fputs(fmt->json ? "null" : "?", out);
		return;
	}

	is_signed = f->flags & TEP_FIELD_IS_SIGNED;
	if (is_signed && f->size < 8 && val >> (f->size * 8 - 1))
		val |= ~0ULL << (f->size * 8);
	/* a kernel address: an unsigned long in the upper half */
	is_addr = !is_signed && f->flags & TEP_FIELD_IS_LONG && f->size == 8 &&
		  val >> 63;
	if (is_addr)
		ksym = klp_ksyms_resolve(fmt->ksyms, val);
	sym = symbolic(ef->symbols, val);

	if (fmt->json) {
		if (is_addr)
			fprintf(out, "\"0x%llx\"", val);
		else
			fprintf(out, is_signed ? "%lld" : "%llu", val);
		if (ksym && ksym->addr == val)
			fprintf(out, ",\"%s_sym\":\"%s\"", f->name, ksym->name);
		else if (ksym)
			fprintf(out, ",\"%s_sym\":\"%s+0x%llx\"", f->name, ksym->name,
			       val - ksym->addr);
		else if (sym)
			fprintf(out, ",\"%s_sym\":\"%s\"", f->name, sym);
	} else if (ksym && ksym->addr == val) {
		fputs(ksym->name, out);
	} else if (ksym) {
		fprintf(out, "%s+0x%llx", ksym->name, val - ksym->addr);
	} else if (is_addr) {
		fprintf(out, "0x%llx", val);
	} else if (sym) {
		fputs(sym, out);
	} else {
		fprintf(out, is_signed ? "%lld" : "%llu", val);
	}
}

/**
 * ev_print_fields() - a record's fields, each as " name=value" (text) or
 * ",\"name\":value" (JSON)
 * @out: where to
 * @fmt: how
 * @ei:  the record's event
 * @rec: the record
 */
void ev_print_fields(FILE *out, const struct ev_format *fmt,
		     const struct ev_info *ei, struct tep_record *rec)
{
	int i;

	for (i = 0; i < ei->nr_fields; i++)
		print_field(out, fmt, &ei->fields[i], rec);
}
