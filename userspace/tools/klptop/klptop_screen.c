// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * klptop_screen.c - where the winners and counts are shown
 *
 * Which rows and transitions to show (the -p/-f patterns, the '/'
 * search, the sort; the JSON writer asks the same) and the screen: a
 * summary line, one row per patched function (winner, stack below it,
 * hits) and the transition log as a footer.  The screen is built as a
 * frame (klptop.h): each section adds its lines to a part; klptop_tty.c
 * prints it, as it is without a terminal (-C, a pipe) or fitted to the
 * terminal.
 */
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "klptop.h"

const char *const kt_sort_names[KT_NR_SORTS] = {
	[KT_SORT_RATE] = "rate",
	[KT_SORT_TOTAL] = "total",
	[KT_SORT_NAME] = "name",
	[KT_SORT_DEPTH] = "depth",
};

/* A CLOCK_MONOTONIC time as the wall clock's HH:MM:SS. */
void kt_fmt_hms(const struct kt_view *v, unsigned long long mono_ns,
		char *buf, size_t size)
{
	time_t t = (mono_ns + v->realtime_off_ns) / MODEL_NSEC_PER_SEC;
	struct tm tm;

	localtime_r(&t, &tm);
	strftime(buf, size, "%H:%M:%S", &tm);
}

static bool fn_matches(const struct kt_view *v, const struct model_fn *fn)
{
	unsigned int i;

	bool patch = !v->patch, search = !v->search[0];

	if (v->func && fnmatch(v->func, fn->name, 0))
		return false;
	if (!search && strstr(fn->name, v->search))
		search = true;
	for (i = 0; i < fn->nr_funcs && !(patch && search); i++) {
		const char *name = fn->funcs[i]->patch->name;

		if (!patch && !fnmatch(v->patch, name, 0))
			patch = true;
		if (!search && strstr(name, v->search))
			search = true;
	}
	return patch && search;
}

bool kt_transition_matches(const struct kt_view *v,
			   const struct model_transition *t)
{
	if (v->patch && fnmatch(v->patch, t->patch, 0))
		return false;
	if (v->func && t->func[0] && fnmatch(v->func, t->func, 0))
		return false;
	return !v->search[0] || strstr(t->patch, v->search) ||
	       strstr(t->func, v->search);
}

static int cmp_u64_desc(unsigned long long a, unsigned long long b)
{
	return a < b ? 1 : a > b ? -1 : 0;
}

static int cmp_fn(const struct model_fn *a, const struct model_fn *b,
		  enum kt_sort sort)
{
	int c = 0;

	switch (sort) {
	case KT_SORT_RATE:
		c = a->rate < b->rate ? 1 : a->rate > b->rate ? -1 : 0;
		if (!c)
			c = cmp_u64_desc(a->hits_total, b->hits_total);
		break;
	case KT_SORT_TOTAL:
		c = cmp_u64_desc(a->hits_total, b->hits_total);
		break;
	case KT_SORT_DEPTH:
		c = cmp_u64_desc(a->depth, b->depth);
		break;
	default:
		break;
	}
	if (!c)
		c = strcmp(a->object, b->object);
	return c ? c : strcmp(a->name, b->name);
}

static int cmp_fn_qsort(const void *pa, const void *pb, void *sort)
{
	return cmp_fn(*(const struct model_fn *const *)pa,
		      *(const struct model_fn *const *)pb,
		      *(const enum kt_sort *)sort);
}

/**
 * kt_select_rows() - the functions to show, sorted
 * @v:    the view (patterns, sort)
 * @m:    the model
 * @rows: set to a new array the caller frees
 *
 * Returns how many.
 */
size_t kt_select_rows(const struct kt_view *v, const struct model *m,
		      struct model_fn ***rows)
{
	struct model_fn **r;
	size_t i, n = 0;

	r = xrealloc(NULL, m->nr_fns, sizeof(*r));
	for (i = 0; i < m->nr_fns; i++)
		if (fn_matches(v, m->fns[i]))
			r[n++] = m->fns[i];
	qsort_r(r, n, sizeof(*r), cmp_fn_qsort, (void *)&v->sort);
	*rows = r;
	return n;
}

static void stack_below(const struct model_fn *fn, char *buf, size_t size)
{
	size_t len = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 1; i < fn->depth && len < size; i++)
		len += snprintf(buf + len, size - len, "%s%s", i > 1 ? "," : "",
				fn->stack[i]->patch->name);
	if (!buf[0])
		snprintf(buf, size, "-");
}

static const char *winner_name(const struct model_fn *fn)
{
	return fn->depth ? fn->stack[0]->patch->name : "(original)";
}

/* Fit s into width columns, marking a cut with '+'. */
static const char *fit(const char *s, int width, char *buf, size_t size)
{
	if ((int)strlen(s) <= width)
		return s;
	snprintf(buf, size, "%.*s+", width - 1, s);
	return buf;
}

enum kt_col { COL_OBJECT, COL_FUNCTION, COL_WINNER, COL_BELOW, NR_COLS };

/* Each column as wide as its widest cell, within [min, max]. */
static void col_widths(struct model_fn **rows, size_t n, int w[NR_COLS])
{
	static const int min[NR_COLS] = { 6, 8, 6, 11 };
	static const int max[NR_COLS] = { 24, 32, 24, 40 };
	char below[512];
	int c, l[NR_COLS];
	size_t i;

	memcpy(w, min, sizeof(min));
	for (i = 0; i < n; i++) {
		stack_below(rows[i], below, sizeof(below));
		l[COL_OBJECT] = strlen(rows[i]->object);
		l[COL_FUNCTION] = strlen(rows[i]->name);
		l[COL_WINNER] = strlen(winner_name(rows[i]));
		l[COL_BELOW] = strlen(below);
		for (c = 0; c < NR_COLS; c++)
			if (l[c] > w[c])
				w[c] = l[c] > max[c] ? max[c] : l[c];
	}
}

/**
 * kt_frame_add() - a line at the end of a part of the frame
 * @f:    the frame
 * @part: KT_HEAD, KT_TITLE, KT_BODY or KT_FOOT
 * @fmt:  printf's, without the newline
 */
void kt_frame_add(struct kt_frame *f, enum kt_part part, const char *fmt, ...)
{
	struct kt_lines *l = &f->part[part];
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	if (!s)
		xrealloc(NULL, (size_t)-1, 2);	/* says out of memory */
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 16;
		l->line = xrealloc(l->line, l->cap, sizeof(*l->line));
	}
	l->line[l->n++] = s;
}

void kt_frame_free(struct kt_frame *f)
{
	size_t i;
	int p;

	for (p = 0; p < KT_NR_PARTS; p++) {
		for (i = 0; i < f->part[p].n; i++)
			free(f->part[p].line[i]);
		free(f->part[p].line);
	}
	memset(f, 0, sizeof(*f));
}

/**
 * kt_interval_totals() - an interval's calls: each function's rate, the sum
 * @m:       the model, counted by every source since
 *           model_interval_start()
 * @unknown: calls of ids the model could not name (klp's)
 * @tot:     its elapsed set; hits and rate filled
 */
void kt_interval_totals(struct model *m, unsigned long long unknown,
			struct kt_totals *tot)
{
	size_t i;

	tot->hits = unknown;
	for (i = 0; i < m->nr_fns; i++) {
		struct model_fn *fn = m->fns[i];

		fn->rate = tot->elapsed > 0 ? fn->hits_interval / tot->elapsed : 0;
		tot->hits += fn->hits_interval;
	}
	tot->rate = tot->elapsed > 0 ? tot->hits / tot->elapsed : 0;
}

static void add_summary(const struct kt_view *v, const struct model *m,
			const struct kt_totals *tot, struct kt_frame *f)
{
	unsigned int en, dis, fns, rep;
	char ts[16], replaced[32] = "", lost[64] = "";

	kt_fmt_hms(v, tot->tick_ns, ts, sizeof(ts));
	if (v->nosummary) {
		kt_frame_add(f, KT_HEAD, "%s", ts);
		return;
	}
	model_count(m, &en, &dis, &fns);
	rep = model_replaced(m);
	if (rep)
		snprintf(replaced, sizeof(replaced), " (replaced: %u)", rep);
	if (tot->lost_hits || tot->lost_events)
		snprintf(lost, sizeof(lost), "  LOST hits: %llu events: %llu",
			 tot->lost_hits, tot->lost_events);
	kt_frame_add(f, KT_HEAD,
		     "%s patches: %zu  enabled: %u  disabled: %u%s  functions: %u  hits/s: %.1f  sort: %s%s%s",
		     ts, m->nr_patches, en, dis, replaced, fns, tot->rate,
		     kt_sort_names[v->sort], v->paused ? "  [paused]" : "",
		     lost);
}

/*
 * Every selected row goes in the body on a terminal, which scrolls
 * through them; without one, the first -r rows.
 */
static void add_rows(const struct kt_view *v, const struct model *m,
		     struct kt_frame *f)
{
	char cut[NR_COLS][KLP_FUNC_LEN + 2], below[512], counts[40];
	struct model_fn **rows;
	int w[NR_COLS];
	size_t n, r;

	n = kt_select_rows(v, m, &rows);
	col_widths(rows, n, w);
	kt_frame_add(f, KT_TITLE, "%-9s %-*s %-*s %-*s %5s %-*s %10s %10s %12s",
		     "CORE", w[COL_OBJECT], "OBJECT", w[COL_FUNCTION], "FUNCTION",
		     w[COL_WINNER], "WINNER", "DEPTH", w[COL_BELOW], "STACK BELOW",
		     "HITS", "HITS/s", "TOTAL");
	for (r = 0; r < n && (v->term_rows || (int)r < v->rows); r++) {
		struct model_fn *fn = rows[r];

		stack_below(fn, below, sizeof(below));
		if (model_fn_uncounted(fn))	/* a func's probe failed */
			snprintf(counts, sizeof(counts), "%10s %10s %12s",
				 "?", "?", "?");
		else
			snprintf(counts, sizeof(counts), "%10llu %10.1f %12llu",
				 fn->hits_interval, fn->rate, fn->hits_total);
		kt_frame_add(f, KT_BODY,
			     "%-9s %-*s %-*s %-*s %5u %-*s %s",
			     model_core_names[model_fn_core(fn)],
			     w[COL_OBJECT], fit(fn->object, w[COL_OBJECT],
						cut[COL_OBJECT], sizeof(cut[0])),
			     w[COL_FUNCTION], fit(fn->name, w[COL_FUNCTION],
						  cut[COL_FUNCTION], sizeof(cut[0])),
			     w[COL_WINNER], fit(winner_name(fn), w[COL_WINNER],
						cut[COL_WINNER], sizeof(cut[0])),
			     fn->depth,
			     w[COL_BELOW], fit(below, w[COL_BELOW], cut[COL_BELOW],
					       sizeof(cut[0])),
			     counts);
	}
	free(rows);
}

/*
 * A cleared screen shows the latest transitions; a scrolling one (-C, or
 * not a tty) only the new ones, so nothing repeats.
 */
static void add_footer(const struct kt_view *v, struct model_log *log,
		       struct kt_frame *f)
{
	unsigned long long i, first, lo, shown;
	char ts[16];

	kt_frame_add(f, KT_FOOT, "%s", "");
	lo = log->n > MODEL_LOG_LEN ? log->n - MODEL_LOG_LEN : 0;
	if (v->noclear) {
		first = log->shown > lo ? log->shown : lo;
	} else {
		for (first = log->n, shown = 0;
		     first > lo && shown < KT_FOOTER_LINES; first--)
			if (kt_transition_matches(v, &log->ring[(first - 1) % MODEL_LOG_LEN]))
				shown++;
	}
	for (i = first; i < log->n; i++) {
		const struct model_transition *t = &log->ring[i % MODEL_LOG_LEN];

		if (!kt_transition_matches(v, t))
			continue;
		kt_fmt_hms(v, t->ts_ns, ts, sizeof(ts));
		kt_frame_add(f, KT_FOOT, "%s %s", ts, t->text);
	}
	if (first < log->n && v->noclear)
		kt_frame_add(f, KT_FOOT, "%s", "");
	log->shown = log->n;
}

/**
 * kt_build_screen() - one screen as a frame: summary, rows, transitions
 * @v:   the view
 * @m:   the model, counted for this interval
 * @log: the transitions; the ones added are marked shown
 * @tot: the interval's totals
 * @f:   an empty frame, filled
 *
 * A new section is one more add_*() here, adding to the part it belongs
 * to: the terminal keeps the head and title, scrolls the body, and
 * shortens the foot when the rows need the room.
 */
void kt_build_screen(const struct kt_view *v, const struct model *m,
		     struct model_log *log, const struct kt_totals *tot,
		     struct kt_frame *f)
{
	add_summary(v, m, tot, f);
	kt_tr_add_lines(&m->trs, v->patch, tot->tick_ns + v->realtime_off_ns,
			10, f);
	add_rows(v, m, f);
	add_footer(v, log, f);
}
