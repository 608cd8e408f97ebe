// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * klptop_json.c - klptop --json: one JSON object per interval
 *
 * The same rows and transitions as the screen (klptop_screen.c chooses
 * them), with every func of each function and the core's seq and cause
 * of each transition.  Strings go through json_put_str(), the writer
 * klp-trace uses too.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "json.h"
#include "klptop.h"

static void json_str(const char *s)
{
	json_put_str(stdout, s, strlen(s));
}

static void json_func(const struct kt_fn *fn, const struct kt_func *f,
		      bool *first)
{
	int pos = kt_stack_index(fn, f);

	printf("%s{\"patch\":", *first ? "" : ",");
	json_str(f->patch->name);
	printf(",\"id\":%u,\"pos\":%d,\"hits_interval\":%llu,\"hits_total\":%llu}",
	       f->id, pos + 1, f->hits_interval, f->hits_total);
	*first = false;
}

static void json_row(const struct kt_fn *fn)
{
	unsigned int i;
	bool first;

	printf("{\"object\":");
	json_str(fn->object);
	printf(",\"function\":");
	json_str(fn->name);
	printf(",\"old_addr\":\"0x%llx\",\"winner\":", fn->old_addr);
	if (fn->depth)
		json_str(fn->stack[0]->patch->name);
	else
		printf("null");
	printf(",\"winner_id\":%u,\"depth\":%u,\"stack\":[",
	       fn->depth ? fn->stack[0]->id : 0, fn->depth);
	for (i = 0; i < fn->depth; i++) {
		printf("%s", i ? "," : "");
		json_str(fn->stack[i]->patch->name);
	}
	printf("],\"ids\":[");
	for (i = 0; i < fn->depth; i++)
		printf("%s%u", i ? "," : "", fn->stack[i]->id);
	printf("],\"hits_interval\":%llu,\"hits_total\":%llu,\"rate\":%.1f,\"funcs\":[",
	       fn->hits_interval, fn->hits_total, fn->rate);
	/* the stack in order, then the funcs off it */
	first = true;
	for (i = 0; i < fn->depth; i++)
		json_func(fn, fn->stack[i], &first);
	for (i = 0; i < fn->nr_funcs; i++)
		if (kt_stack_index(fn, fn->funcs[i]) < 0)
			json_func(fn, fn->funcs[i], &first);
	printf("]}");
}

static void json_transition(const struct kt_view *v,
			    const struct kt_transition *t)
{
	const char *cause = kt_cause_name(t->cause);
	char ts[16];

	kt_fmt_hms(v, t->ts_ns, ts, sizeof(ts));
	printf("{\"time\":\"%s\",\"seq\":%llu,\"event\":\"%s\",\"cause\":",
	       ts, t->seq, kt_event_name(t->type));
	if (cause)
		json_str(cause);
	else
		printf("null");
	printf(",\"patch\":");
	json_str(t->patch);
	printf(",\"function\":");
	json_str(t->func);
	printf(",\"ret\":%d,\"text\":", t->ret);
	json_str(t->text);
	printf("}");
}

/**
 * kt_print_json() - one interval as one line of JSON on stdout
 * @v:   the view
 * @m:   the model, counted for this interval
 * @log: the transitions; those not printed before are, and marked shown
 * @tot: the interval's totals
 */
void kt_print_json(const struct kt_view *v, const struct kt_model *m,
		   struct kt_log *log, const struct kt_totals *tot)
{
	unsigned int en, dis, fns;
	unsigned long long t, from;
	struct kt_fn **rows;
	bool first = true;
	char ts[16];
	size_t n, r;

	kt_model_count(m, &en, &dis, &fns);
	kt_fmt_hms(v, tot->tick_ns, ts, sizeof(ts));
	printf("{\"time\":\"%s\",\"timestamp\":%.6f,\"interval\":%.3f,"
	       "\"summary\":{\"patches\":%zu,\"enabled\":%u,\"disabled\":%u,"
	       "\"functions\":%u,\"hits\":%llu,\"rate\":%.1f,"
	       "\"lost_hits\":%llu,\"lost_events\":%llu},\"rows\":[",
	       ts, (tot->tick_ns + v->realtime_off_ns) / 1e9, tot->elapsed,
	       m->nr_patches, en, dis, fns, tot->hits, tot->rate,
	       tot->lost_hits, tot->lost_events);

	n = kt_select_rows(v, m, &rows);
	for (r = 0; r < n; r++) {
		printf("%s", r ? "," : "");
		json_row(rows[r]);
	}
	free(rows);

	printf("],\"transitions\":[");
	from = log->shown;
	if (log->n > KT_LOG_LEN && from < log->n - KT_LOG_LEN)
		from = log->n - KT_LOG_LEN;
	for (t = from; t < log->n; t++) {
		const struct kt_transition *tr = &log->ring[t % KT_LOG_LEN];

		if (!kt_transition_matches(v, tr))
			continue;
		printf("%s", first ? "" : ",");
		json_transition(v, tr);
		first = false;
	}
	log->shown = log->n;
	printf("]}\n");
	fflush(stdout);
}
