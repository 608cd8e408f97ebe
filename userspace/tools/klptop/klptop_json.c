// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * klptop_json.c - klptop --json: one JSON object per interval
 *
 * The same rows and transitions as the screen (klptop_screen.c chooses
 * them), with every func of each function and the core's seq and cause
 * of each transition.  Each line is built in a buffer and written at
 * once; strings go through json_buf_str(), the writer klp-trace uses too.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "json.h"
#include "klptop.h"

static void json_str(struct strbuf *b, const char *s)
{
	json_buf_str(b, s, strlen(s));
}

/* ,"name": for a literal name */
#define json_key(b, name)	sb_lit(b, ",\"" name "\":")

#define json_ull(b, name, v)	\
	do {			\
		json_key(b, name);	\
		sb_put_ull(b, v);	\
	} while (0)

/* A count, or null where it is unknown (a func whose probe failed). */
#define json_count(b, name, v, unknown)	\
	do {				\
		json_key(b, name);	\
		if (unknown)		\
			sb_lit(b, "null");	\
		else			\
			sb_put_ull(b, v);	\
	} while (0)

/*
 * A string built once, on first use, and copied from then on: what never
 * changes for a row or a func (the names, the address).  1000 rows of
 * names, escaped anew every second, were most of klptop --json's time.
 */
static void put_cached(struct strbuf *b, char **cache,
		       void (*build)(struct strbuf *, const void *),
		       const void *arg)
{
	struct strbuf c = {};

	if (!*cache) {
		build(&c, arg);
		*cache = c.s ? c.s : strdup("");
	}
	if (*cache)
		sb_puts(b, *cache);
	else
		build(b, arg);		/* strdup failed: uncached */
}

static void patch_name(struct strbuf *b, const void *arg)
{
	json_str(b, ((const struct model_patch *)arg)->name);
}

/* A patch's name as a JSON string: in every row's winner and stack. */
static void json_patch(struct strbuf *b, struct model_patch *p)
{
	put_cached(b, &p->json_name, patch_name, p);
}

static void func_head(struct strbuf *b, const void *arg)
{
	const struct model_func *f = arg;

	sb_lit(b, "{\"patch\":");
	json_patch(b, f->patch);
}

static void json_func(struct strbuf *b, const struct model_fn *fn,
		      struct model_func *f, bool *first)
{
	int pos = model_stack_index(fn, f);

	if (!*first)
		sb_lit(b, ",");
	put_cached(b, &f->json_head, func_head, f);
	json_key(b, "core");
	json_str(b, model_core_names[f->patch->core]);
	if (f->patch->core == MODEL_CORE_LIVEPATCH && f->obj_patched >= 0) {
		json_key(b, "patched");	/* its object's, in the builtin's sysfs */
		sb_puts(b, f->obj_patched ? "true" : "false");
	}
	json_ull(b, "id", f->id);
	json_ull(b, "pos", pos + 1);	/* -1 off the stack: 0 */
	json_count(b, "hits_interval", f->hits_interval, f->uncounted);
	json_count(b, "hits_total", f->hits_total, f->uncounted);
	sb_put(b, "}", 1);
	*first = false;
}

static void row_head(struct strbuf *b, const void *arg)
{
	const struct model_fn *fn = arg;

	sb_lit(b, "{\"object\":");
	json_str(b, fn->object);
	json_key(b, "function");
	json_str(b, fn->name);
}

static void json_row(struct strbuf *b, struct model_fn *fn)
{
	unsigned int i;
	bool first, unknown;

	put_cached(b, &fn->json_head, row_head, fn);
	json_key(b, "core");
	json_str(b, model_core_names[model_fn_core(fn)]);
	json_key(b, "old_addr");
	sb_lit(b, "\"0x");
	sb_put_hex(b, fn->old_addr);
	sb_lit(b, "\"");
	json_key(b, "winner");
	if (fn->depth)
		json_patch(b, fn->stack[0]->patch);
	else
		sb_puts(b, "null");
	json_ull(b, "winner_id", fn->depth ? fn->stack[0]->id : 0);
	json_ull(b, "depth", fn->depth);
	json_key(b, "stack");
	sb_put(b, "[", 1);
	for (i = 0; i < fn->depth; i++) {
		if (i)
			sb_put(b, ",", 1);
		json_patch(b, fn->stack[i]->patch);
	}
	sb_put(b, "]", 1);
	json_key(b, "ids");
	sb_put(b, "[", 1);
	for (i = 0; i < fn->depth; i++) {
		if (i)
			sb_put(b, ",", 1);
		sb_put_ull(b, fn->stack[i]->id);
	}
	sb_put(b, "]", 1);
	unknown = model_fn_uncounted(fn);
	json_count(b, "hits_interval", fn->hits_interval, unknown);
	json_count(b, "hits_total", fn->hits_total, unknown);
	json_key(b, "rate");
	if (unknown)
		sb_lit(b, "null");
	else
		sb_put_fixed1(b, fn->rate);
	json_key(b, "funcs");
	sb_put(b, "[", 1);
	/* the stack in order, then the funcs off it */
	first = true;
	for (i = 0; i < fn->depth; i++)
		json_func(b, fn, fn->stack[i], &first);
	for (i = 0; i < fn->nr_funcs; i++)
		if (model_stack_index(fn, fn->funcs[i]) < 0)
			json_func(b, fn, fn->funcs[i], &first);
	sb_put(b, "]}", 2);
}

static void json_transition(struct strbuf *b, const struct kt_view *v,
			    const struct model_transition *t)
{
	const char *cause = model_cause_name(t->cause);
	char ts[16];

	kt_fmt_hms(v, t->ts_ns, ts, sizeof(ts));
	sb_printf(b, "{\"time\":\"%s\",\"seq\":%llu,\"event\":\"%s\",\"cause\":",
		  ts, t->seq, model_event_name(t->type));
	if (cause)
		json_str(b, cause);
	else
		sb_puts(b, "null");
	json_key(b, "patch");
	json_str(b, t->patch);
	json_key(b, "function");
	json_str(b, t->func);
	json_key(b, "ret");
	sb_printf(b, "%d", t->ret);
	json_key(b, "text");
	json_str(b, t->text);
	sb_put(b, "}", 1);
}

/**
 * kt_print_json() - one interval as one line of JSON on stdout
 * @v:   the view
 * @m:   the model, counted for this interval
 * @log: the transitions; those not printed before are, and marked shown
 * @tot: the interval's totals
 * @out: the buffer the line is built in, kept from line to line (its
 *       room grows to the longest line once)
 */
void kt_print_json(const struct kt_view *v, const struct model *m,
		   struct model_log *log, const struct kt_totals *tot,
		   struct strbuf *out)
{
	unsigned int en, dis, fns;
	unsigned long long t, from;
	struct strbuf *b = out;
	struct model_fn **rows;
	bool first = true;
	char ts[16];
	size_t n, r;

	b->len = 0;
	model_count(m, &en, &dis, &fns);
	kt_fmt_hms(v, tot->tick_ns, ts, sizeof(ts));
	sb_printf(b, "{\"time\":\"%s\",\"timestamp\":%.6f,\"interval\":%.3f,"
		  "\"summary\":{\"patches\":%zu,\"enabled\":%u,\"disabled\":%u,"
		  "\"replaced\":%u,\"functions\":%u,\"hits\":%llu,\"rate\":%.1f,"
		  "\"lost_hits\":%llu,\"lost_events\":%llu},\"rows\":[",
		  ts, (tot->tick_ns + v->realtime_off_ns) / 1e9, tot->elapsed,
		  m->nr_patches, en, dis, model_replaced(m), fns, tot->hits,
		  tot->rate, tot->lost_hits, tot->lost_events);

	n = kt_select_rows(v, m, &rows);
	for (r = 0; r < n; r++) {
		if (r)
			sb_put(b, ",", 1);
		json_row(b, rows[r]);
	}
	free(rows);

	sb_puts(b, "],\"transitions\":[");
	from = log->shown;
	if (log->n > MODEL_LOG_LEN && from < log->n - MODEL_LOG_LEN)
		from = log->n - MODEL_LOG_LEN;
	for (t = from; t < log->n; t++) {
		const struct model_transition *tr = &log->ring[t % MODEL_LOG_LEN];

		if (!kt_transition_matches(v, tr))
			continue;
		if (!first)
			sb_put(b, ",", 1);
		json_transition(b, v, tr);
		first = false;
	}
	log->shown = log->n;
	sb_put(b, "]", 1);
	kt_tr_json(b, &m->trs, v->patch, tot->tick_ns + v->realtime_off_ns);
	sb_put(b, "}\n", 2);
	fwrite(b->s, 1, b->len, stdout);
	fflush(stdout);
}
