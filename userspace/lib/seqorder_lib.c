// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * seqorder_lib.c - put klp:* transition records back in the core's order
 * (see seqorder.h)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "seqorder.h"

#define KLP_SEQ_FILE "/sys/kernel/debug/klp/seq"

struct seq_held {
	unsigned long long seq;
	char *text;		/* owned */
	size_t len;
};

/**
 * seq_order_read_last() - the seq of the core's last transition event
 * @last: where to put it
 *
 * Return: 0, or -errno if debugfs klp/seq cannot be read
 */
int seq_order_read_last(unsigned long long *last)
{
	FILE *f = fopen(KLP_SEQ_FILE, "re");
	int ret = 0;

	if (!f)
		return -errno;
	if (fscanf(f, "%llu", last) != 1)
		ret = -EINVAL;
	fclose(f);
	return ret;
}

/**
 * seq_order_init() - start ordering
 * @o:    the order
 * @on:   every transition event is traced (else records pass as they come)
 * @last: the core's last seq when tracing began: later ones are awaited
 * @emit: prints one record
 * @ctx:  for @emit
 */
void seq_order_init(struct seq_order *o, bool on, unsigned long long last,
		    seq_emit_fn emit, void *ctx)
{
	memset(o, 0, sizeof(*o));
	o->on = on;
	o->next = last + 1;
	o->emit = emit;
	o->ctx = ctx;
}

static int emit_release(struct seq_order *o, char *text, size_t len)
{
	int ret = o->emit(text, len, o->ctx);

	free(text);
	return ret;
}

/* Print the held records that are next in line. */
static int release(struct seq_order *o)
{
	struct seq_held h;
	int i, ret;

	for (i = 0; i < o->nr_held; i++) {
		if (o->held[i].seq != o->next)
			continue;
		h = o->held[i];
		o->held[i] = o->held[--o->nr_held];
		o->next++;
		ret = emit_release(o, h.text, h.len);
		if (ret)
			return ret;
		i = -1;		/* the one after it may be anywhere */
	}
	return 0;
}

/**
 * seq_order_put() - print a record, or hold it until its turn
 * @o:       the order
 * @has_seq: the record carries a seq (all klp:* events but klp_redirect)
 * @seq:     its seq
 * @text:    the rendered record, malloc()ed; the order frees it
 * @len:     its length
 *
 * A record without seq, or one numbered before the next expected (from
 * before tracing began, or after lost events), is printed at once.
 *
 * Return: 0, or what @emit returned to stop, or -ENOMEM
 */
int seq_order_put(struct seq_order *o, bool has_seq, unsigned long long seq,
		  char *text, size_t len)
{
	struct seq_held *tmp;
	int ret;

	if (!o->on || !has_seq || seq < o->next)
		return emit_release(o, text, len);
	if (!o->next || seq == o->next) {
		o->next = seq + 1;
		ret = emit_release(o, text, len);
		return ret ?: release(o);
	}
	if (o->nr_held == o->cap_held) {
		tmp = realloc(o->held, (o->cap_held * 2 + 16) * sizeof(*tmp));
		if (!tmp) {
			free(text);
			return -ENOMEM;
		}
		o->held = tmp;
		o->cap_held = o->cap_held * 2 + 16;
	}
	o->held[o->nr_held++] = (struct seq_held){ seq, text, len };
	return 0;
}

static int cmp_held(const void *a, const void *b)
{
	const struct seq_held *x = a, *y = b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/**
 * seq_order_flush() - print every held record in seq order
 * @o: the order
 *
 * For the end of the trace, and when events were lost (the numbers they
 * carried will never come): the next expected seq is then unknown, the
 * next record sets it.
 *
 * Return: 0, or what @emit returned to stop
 */
int seq_order_flush(struct seq_order *o)
{
	int i, ret = 0;

	if (o->nr_held)		/* held is NULL before the first: qsort needs an array */
		qsort(o->held, o->nr_held, sizeof(*o->held), cmp_held);
	for (i = 0; i < o->nr_held; i++) {
		if (!ret)
			ret = o->emit(o->held[i].text, o->held[i].len, o->ctx);
		free(o->held[i].text);
	}
	o->nr_held = 0;
	o->next = 0;
	return ret;
}

/**
 * seq_order_free() - drop what is held, unprinted
 * @o: the order
 */
void seq_order_free(struct seq_order *o)
{
	int i;

	for (i = 0; i < o->nr_held; i++)
		free(o->held[i].text);
	free(o->held);
	memset(o, 0, sizeof(*o));
}
