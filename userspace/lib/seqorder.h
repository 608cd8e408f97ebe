/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * seqorder.h - put klp:* transition records back in the core's order
 *
 * Every klp:* event but klp_redirect carries seq, the core's transition
 * number: 1, 2, 3... without a gap, in the order the core changed state
 * (debugfs klp/seq is the last one given).  A consumer that reads the
 * per-CPU trace buffers sees records out of that order whenever one turns
 * up a read later than records that followed it on another CPU.  Given
 * every transition event, a seq_order prints a record as soon as all
 * those numbered before it were printed, and holds it until then.
 */
#ifndef _KLP_SEQORDER_H
#define _KLP_SEQORDER_H

#include <stdbool.h>
#include <stddef.h>

struct seq_held;

/* Called for each record, in order; non-zero stops the output. */
typedef int (*seq_emit_fn)(const char *text, size_t len, void *ctx);

struct seq_order {
	bool on;			/* reorder (every transition is traced) */
	unsigned long long next;	/* the seq to print next; 0: unknown */
	struct seq_held *held;		/* waiting for an earlier seq */
	int nr_held, cap_held;
	seq_emit_fn emit;
	void *ctx;
};

void seq_order_init(struct seq_order *o, bool on, unsigned long long last,
		    seq_emit_fn emit, void *ctx);
int seq_order_put(struct seq_order *o, bool has_seq, unsigned long long seq,
		  char *text, size_t len);
int seq_order_flush(struct seq_order *o);
void seq_order_free(struct seq_order *o);
int seq_order_read_last(unsigned long long *last);

#endif /* _KLP_SEQORDER_H */
