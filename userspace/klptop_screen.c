// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * klptop_screen.c - where the winners and counts are shown
 *
 * Which rows and transitions to show (the -p/-f patterns, the sort; the
 * JSON writer asks the same) and the screen: a summary line, one row per
 * patched function (winner, stack below it, hits) and the transition log
 * as a footer.
 */
#include <fnmatch.h>
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
	time_t t = (mono_ns + v->realtime_off_ns) / KT_NSEC_PER_SEC;
	struct tm tm;

	localtime_r(&t, &tm);
	strftime(buf, size, "%H:%M:%S", &tm);
}

static bool fn_matches(const struct kt_view *v, const struct kt_fn *fn)
{
	unsigned int i;

	if (v->func && fnmatch(v->func, fn->name, 0))
		return false;
	if (!v->patch)
		return true;
	for (i = 0; i < fn->nr_funcs; i++)
		if (!fnmatch(v->patch, fn->funcs[i]->patch->name, 0))
			return true;
	return false;
}

bool kt_transition_matches(const struct kt_view *v,
			   const struct kt_transition *t)
{
	if (v->patch && fnmatch(v->patch, t->patch, 0))
		return false;
	if (v->func && t->func[0] && fnmatch(v->func, t->func, 0))
		return false;
	return true;
}

static int cmp_u64_desc(unsigned long long a, unsigned long long b)
{
	return a < b ? 1 : a > b ? -1 : 0;
}

static int cmp_fn(const struct kt_fn *a, const struct kt_fn *b,
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
	return cmp_fn(*(const struct kt_fn *const *)pa,
		      *(const struct kt_fn *const *)pb,
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
size_t kt_select_rows(const struct kt_view *v, const struct kt_model *m,
		      struct kt_fn ***rows)
{
	struct kt_fn **r;
	size_t i, n = 0;

	r = kt_realloc(NULL, m->nr_fns, sizeof(*r));
	for (i = 0; i < m->nr_fns; i++)
		if (fn_matches(v, m->fns[i]))
			r[n++] = m->fns[i];
	qsort_r(r, n, sizeof(*r), cmp_fn_qsort, (void *)&v->sort);
	*rows = r;
	return n;
}

static void stack_below(const struct kt_fn *fn, char *buf, size_t size)
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

static const char *winner_name(const struct kt_fn *fn)
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
static void col_widths(struct kt_fn **rows, size_t n, int w[NR_COLS])
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

static void print_summary(const struct kt_view *v, const struct kt_model *m,
			  const struct kt_totals *tot)
{
	unsigned int en, dis, fns;
	char ts[16];

	kt_fmt_hms(v, tot->tick_ns, ts, sizeof(ts));
	if (v->nosummary) {
		printf("%s\n", ts);
		return;
	}
	kt_model_count(m, &en, &dis, &fns);
	printf("%s patches: %zu  enabled: %u  disabled: %u", ts,
	       m->nr_patches, en, dis);
	if (kt_model_replaced(m))
		printf(" (replaced: %u)", kt_model_replaced(m));
	printf("  functions: %u  hits/s: %.1f  sort: %s%s", fns, tot->rate,
	       kt_sort_names[v->sort], v->paused ? "  [paused]" : "");
	if (tot->lost_hits || tot->lost_events)
		printf("  LOST hits: %llu events: %llu", tot->lost_hits,
		       tot->lost_events);
	printf("\n");
}

static void print_rows(const struct kt_view *v, const struct kt_model *m)
{
	char cut[NR_COLS][KLP_FUNC_LEN + 2], below[512];
	struct kt_fn **rows;
	int w[NR_COLS];
	size_t n, r;

	n = kt_select_rows(v, m, &rows);
	col_widths(rows, n, w);
	printf("%-9s %-*s %-*s %-*s %5s %-*s %10s %10s %12s\n", "CORE",
	       w[COL_OBJECT], "OBJECT", w[COL_FUNCTION], "FUNCTION",
	       w[COL_WINNER], "WINNER", "DEPTH", w[COL_BELOW], "STACK BELOW",
	       "HITS", "HITS/s", "TOTAL");
	for (r = 0; r < n && (int)r < v->rows; r++) {
		struct kt_fn *fn = rows[r];

		stack_below(fn, below, sizeof(below));
		printf("%-9s %-*s %-*s %-*s %5u %-*s %10llu %10.1f %12llu\n",
		       kt_core_names[kt_fn_core(fn)],
		       w[COL_OBJECT], fit(fn->object, w[COL_OBJECT],
					  cut[COL_OBJECT], sizeof(cut[0])),
		       w[COL_FUNCTION], fit(fn->name, w[COL_FUNCTION],
					    cut[COL_FUNCTION], sizeof(cut[0])),
		       w[COL_WINNER], fit(winner_name(fn), w[COL_WINNER],
					  cut[COL_WINNER], sizeof(cut[0])),
		       fn->depth,
		       w[COL_BELOW], fit(below, w[COL_BELOW], cut[COL_BELOW],
					 sizeof(cut[0])),
		       fn->hits_interval, fn->rate, fn->hits_total);
	}
	free(rows);
	printf("\n");
}

/*
 * A cleared screen shows the latest transitions; a scrolling one (-C, or
 * not a tty) only the new ones, so nothing repeats.
 */
static void print_footer(const struct kt_view *v, struct kt_log *log)
{
	unsigned long long i, first, lo, shown;
	char ts[16];

	lo = log->n > KT_LOG_LEN ? log->n - KT_LOG_LEN : 0;
	if (v->noclear) {
		first = log->shown > lo ? log->shown : lo;
	} else {
		for (first = log->n, shown = 0;
		     first > lo && shown < KT_FOOTER_LINES; first--)
			if (kt_transition_matches(v, &log->ring[(first - 1) % KT_LOG_LEN]))
				shown++;
	}
	for (i = first; i < log->n; i++) {
		const struct kt_transition *t = &log->ring[i % KT_LOG_LEN];

		if (!kt_transition_matches(v, t))
			continue;
		kt_fmt_hms(v, t->ts_ns, ts, sizeof(ts));
		printf("%s %s\n", ts, t->text);
	}
	if (first < log->n && v->noclear)
		printf("\n");
	log->shown = log->n;
}

/**
 * kt_print_screen() - one screen: summary, rows, transitions
 * @v:   the view
 * @m:   the model, counted for this interval
 * @log: the transitions; the ones printed are marked shown
 * @tot: the interval's totals
 */
void kt_print_screen(const struct kt_view *v, const struct kt_model *m,
		     struct kt_log *log, const struct kt_totals *tot)
{
	if (!v->noclear)
		printf("\033[H\033[2J");
	print_summary(v, m, tot);
	print_rows(v, m);
	print_footer(v, log);
	fflush(stdout);
}
