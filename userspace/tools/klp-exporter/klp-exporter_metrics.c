// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * klp-exporter_metrics.c - the totals that only grow, and the metrics text
 *
 * Counters are kept by label set, not by func or id: a func that goes
 * (its patch unregistered, the core reloaded) and comes back under the
 * same names resumes its count, so no counter ever goes backwards.
 * Redirects come from the BPF counters' deltas (source_klp_counters.c), the
 * rest from the core's transition events.  No label carries an address.
 *
 * Both formats are rendered here: OpenMetrics 1.0 (counter families named
 * without _total, info type, "# EOF") for a Prometheus that asks for it,
 * and the 0.0.4 text format for others and for node_exporter's textfiles.
 */
#include <errno.h>
#include <search.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "klp-exporter.h"

#define EX_BLOCKED_TASKS	10	/* tasks named per transition */
#define EX_BLOCKED_TASKS_S	"10"

struct ex_count {
	char *labels;
	unsigned long long value;
};

/* A sample's value and the line's end: " <v>\n". */
static void put_value_line(struct strbuf *b, unsigned long long v)
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

static int cmp_count(const void *a, const void *b)
{
	return strcmp(((const struct ex_count *)a)->labels,
		      ((const struct ex_count *)b)->labels);
}

/*
 * Add delta to the family's counter for the labels in key (taken over);
 * returns the counter, which lives as long as the totals.
 */
static struct ex_count *family_add(struct ex_family *f, struct strbuf *key,
				   unsigned long long delta)
{
	struct ex_count probe = { .labels = key->s }, *c, **slot;

	slot = tfind(&probe, &f->root, cmp_count);
	if (!slot) {
		c = kt_realloc(NULL, 1, sizeof(*c));
		c->labels = key->s;
		c->value = 0;
		key->s = NULL;
		slot = tsearch(c, &f->root, cmp_count);
		if (!slot) {
			fprintf(stderr, "%s: out of memory\n",
				program_invocation_short_name);
			exit(1);
		}
	}
	(*slot)->value += delta;
	free(key->s);
	memset(key, 0, sizeof(*key));
	return *slot;
}

static unsigned int top_id(const struct kt_fn *fn)
{
	return fn && fn->depth ? fn->stack[0]->id : 0;
}

/* The name of a function's winning patch; "" for none. */
static const char *top_patch(const struct kt_fn *fn)
{
	return fn && fn->depth ? fn->stack[0]->patch->name : "";
}

/* The label set of a function's winner changes, counted once more. */
static void winner_changed(struct ex_totals *t, const char *object,
			   const char *name, enum kt_core core)
{
	struct strbuf key = {};

	ex_put_labels(&key, "object", object, "function", name, "core",
		      kt_core_names[core], NULL);
	family_add(&t->winner_changes, &key, 1);
}

/**
 * ex_count_event() - count one transition event of the core
 * @t: the totals
 * @m: the model before the event is applied to it
 * @e: the event, its strings terminated
 *
 * Every event counts once in klp_transitions_total; a failed enable in
 * klp_enable_failures_total; a push or pop that changes its function's
 * top func in klp_func_winner_changes_total, unless the model's state
 * file already had it (what the model shows is then after the event).
 */
void ex_count_event(struct ex_totals *t, const struct kt_model *m,
		    const struct klp_transition_event *e)
{
	struct strbuf key = {};
	const struct kt_fn *fn;
	unsigned int after;

	if (!strcmp(kt_event_name(e->type), "unknown"))
		return;
	ex_put_labels(&key, "patch", e->patch, "event", kt_event_name(e->type),
		   NULL);
	family_add(&t->transitions, &key, 1);
	if (e->type == KLP_EV_PATCH_ENABLE && e->ret) {
		ex_put_labels(&key, "patch", e->patch, NULL);
		family_add(&t->enable_failures, &key, 1);
	}
	if ((e->type != KLP_EV_FUNC_PUSH && e->type != KLP_EV_FUNC_POP) ||
	    e->seq <= m->snap_seq)
		return;
	fn = kt_fn_find((struct kt_model *)m, e->object, e->func, false);
	after = e->depth ? e->winner_id : 0;
	if (top_id(fn) != after)
		winner_changed(t, e->object, e->func, KT_CORE_KLP);
}

/**
 * ex_winners_save() - each function's winner, before a state reload
 * @m: the model
 * @w: set to a new array of m->nr_fns, for ex_count_winner_changes()
 *
 * Returns the number of functions saved.
 */
size_t ex_winners_save(const struct kt_model *m, struct ex_winner **w)
{
	size_t i;

	*w = kt_realloc(NULL, m->nr_fns, sizeof(**w));
	for (i = 0; i < m->nr_fns; i++) {
		kt_copy_name((*w)[i].object, sizeof((*w)[i].object),
			     m->fns[i]->object);
		kt_copy_name((*w)[i].name, sizeof((*w)[i].name),
			     m->fns[i]->name);
		kt_copy_name((*w)[i].patch, sizeof((*w)[i].patch),
			     top_patch(m->fns[i]));
		(*w)[i].id = top_id(m->fns[i]);
		(*w)[i].core = kt_fn_core(m->fns[i]);
	}
	return m->nr_fns;
}

/**
 * ex_count_winner_changes() - count the winners a state reload changed
 * @t:      the totals
 * @m:      the model after the reload
 * @before: ex_winners_save()'s, taken before it; freed here
 * @nr:     its length
 *
 * After lost events this is all there is to know: one change for every
 * function whose winner differs (a function that came or went counts
 * when it has a winner).  A winner is its func's id and its patch's
 * name: the builtin's funcs have no id.
 */
static int ptr_cmp(const void *a, const void *b)
{
	const void *x = *(const void *const *)a, *y = *(const void *const *)b;

	return x < y ? -1 : x > y;
}

void ex_count_winner_changes(struct ex_totals *t, const struct kt_model *m,
			     struct ex_winner *before, size_t nr)
{
	/* the functions there before, as found now: sorted, to look up */
	const struct kt_fn **had = kt_realloc(NULL, nr, sizeof(*had));
	size_t i, n = 0;

	for (i = 0; i < nr; i++) {
		const struct kt_fn *fn = kt_fn_find((struct kt_model *)m,
						    before[i].object,
						    before[i].name, false);

		if (fn)
			had[n++] = fn;
		if (top_id(fn) != before[i].id ||
		    strcmp(top_patch(fn), before[i].patch))
			winner_changed(t, before[i].object, before[i].name,
				       before[i].core);
	}
	/*
	 * A function none of them is came since: by a search, where a scan
	 * of all of them for each was a million string comparisons a
	 * scrape with 1000 functions (the builtin's are read every scrape).
	 */
	qsort(had, n, sizeof(*had), ptr_cmp);
	for (i = 0; i < m->nr_fns; i++) {
		const struct kt_fn *fn = m->fns[i];

		if (fn->depth && !bsearch(&fn, had, n, sizeof(*had), ptr_cmp))
			winner_changed(t, fn->object, fn->name,
				       kt_fn_core(fn));
	}
	free(had);
	free(before);
}

/**
 * ex_count_redirects() - add the last counter read to the totals
 * @t:            the totals
 * @m:            the model, its funcs' hits_interval just read
 * @unattributed: hits of ids the model could not name in that read
 *
 * A func's labels never change, so its counter is looked up once and
 * kept in the func (priv): a read of 1000 busy functions builds no label
 * set and searches no tree.
 */
void ex_count_redirects(struct ex_totals *t, struct kt_model *m,
			unsigned long long unattributed)
{
	struct strbuf key = {};
	struct ex_count *c;
	size_t i, j;

	for (i = 0; i < m->nr_fns; i++) {
		const struct kt_fn *fn = m->fns[i];

		for (j = 0; j < fn->nr_funcs; j++) {
			struct kt_func *f = fn->funcs[j];

			if (!f->hits_interval)
				continue;
			c = f->priv;
			if (c) {
				c->value += f->hits_interval;
				continue;
			}
			ex_put_labels(&key, "object", fn->object, "function",
				   fn->name, "patch", f->patch->name, "core",
				   kt_core_names[f->patch->core], NULL);
			f->priv = family_add(&t->redirects, &key,
					     f->hits_interval);
		}
	}
	t->unattributed += unattributed;
}

/* --- the text ------------------------------------------------------------ */

struct family_walk {
	struct strbuf *b;
	const char *name;
};

/* In label order: each node once, between its subtrees. */
static void walk_count(const void *node, VISIT which, void *closure)
{
	const struct ex_count *c = *(struct ex_count *const *)node;
	struct family_walk *w = closure;

	if (which != postorder && which != leaf)
		return;
	sb_puts(w->b, w->name);
	sb_put(w->b, "{", 1);
	sb_puts(w->b, c->labels);
	sb_put(w->b, "}", 1);
	put_value_line(w->b, c->value);
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

static void family(struct strbuf *b, enum ex_format fmt, const char *name,
		   const char *help, const struct ex_family *f)
{
	struct family_walk w = { .b = b, .name = name };

	ex_header(b, fmt, name, "counter", help);
	twalk_r(f->root, walk_count, &w);
}

static void scalar(struct strbuf *b, enum ex_format fmt, const char *name,
		   const char *type, const char *help,
		   unsigned long long value)
{
	ex_header(b, fmt, name, type, help);
	sb_printf(b, "%s %llu\n", name, value);
}

static void render_model(struct strbuf *b, enum ex_format fmt,
			 const struct kt_model *m)
{
	size_t i, j;

	ex_header(b, fmt, "klp_patch_info", "info",
	       "A registered patch: its module's srcversion and the CVEs it fixes");
	for (i = 0; i < m->nr_patches; i++) {
		const struct kt_patch *p = m->patches[i];

		sb_puts(b, "klp_patch_info{");
		ex_put_labels(b, "patch", p->name, "srcversion", p->srcversion,
			   "cve", p->cve, "core", kt_core_names[p->core], NULL);
		sb_puts(b, "}");
		put_value_line(b, 1);
	}
	ex_header(b, fmt, "klp_patch_enabled", "gauge",
	       "1 if the patch is enabled, 0 if not");
	for (i = 0; i < m->nr_patches; i++) {
		sb_puts(b, "klp_patch_enabled{");
		ex_put_labels(b, "patch", m->patches[i]->name, "core",
			   kt_core_names[m->patches[i]->core], NULL);
		sb_puts(b, "}");
		put_value_line(b, m->patches[i]->enabled);
	}
	ex_header(b, fmt, "klp_patch_enabled_timestamp_seconds", "gauge",
	       "When the enable in force happened, Unix time (enabled patches)");
	for (i = 0; i < m->nr_patches; i++) {
		const struct kt_patch *p = m->patches[i];

		if (!p->enabled || !p->enabled_ns)
			continue;
		sb_puts(b, "klp_patch_enabled_timestamp_seconds{");
		ex_put_labels(b, "patch", p->name, "core",
			      kt_core_names[p->core], NULL);
		sb_printf(b, "} %llu.%09llu\n", p->enabled_ns / KT_NSEC_PER_SEC,
			      p->enabled_ns % KT_NSEC_PER_SEC);
	}
	ex_header(b, fmt, "klp_func_winner", "gauge",
	       "For each func on its function's func_stack: 1 if it wins (top), 0 if below");
	for (i = 0; i < m->nr_fns; i++) {
		const struct kt_fn *fn = m->fns[i];

		for (j = 0; j < fn->depth; j++) {
			sb_puts(b, "klp_func_winner{");
			ex_put_labels(b, "object", fn->object, "function", fn->name,
				   "patch", fn->stack[j]->patch->name, "core",
				   kt_core_names[fn->stack[j]->patch->core], NULL);
			sb_puts(b, "}");
			put_value_line(b, j == 0);
		}
	}
	ex_header(b, fmt, "klp_func_stack_depth", "gauge",
	       "Funcs on the function's func_stack (0: the original runs)");
	for (i = 0; i < m->nr_fns; i++) {
		sb_puts(b, "klp_func_stack_depth{");
		ex_put_labels(b, "object", m->fns[i]->object, "function",
			   m->fns[i]->name, "core",
			   kt_core_names[kt_fn_core(m->fns[i])], NULL);
		sb_puts(b, "}");
		put_value_line(b, m->fns[i]->depth);
	}
}

static bool in_transition(const struct kt_trset *s, const struct kt_patch *p)
{
	size_t i;

	for (i = 0; i < s->nr; i++)
		if (!strcmp(s->trs[i]->core, kt_core_names[p->core]) &&
		    !strcmp(s->trs[i]->patch, p->name))
			return true;
	return false;
}

/* A gauge sample with labels core and patch (and reason, unless NULL). */
static void tr_sample(struct strbuf *b, const char *name,
		      const struct kt_tr *tr, const char *reason)
{
	sb_puts(b, name);
	sb_puts(b, "{");
	if (reason)
		ex_put_labels(b, "core", tr->core, "patch", tr->patch, "reason",
			   reason, NULL);
	else
		ex_put_labels(b, "core", tr->core, "patch", tr->patch, NULL);
	sb_puts(b, "}");
}

/*
 * The first EX_BLOCKED_TASKS tasks that hold each transition back, named:
 * a few series while a transition runs, none once it ends.
 */
static void render_blocked_tasks(struct strbuf *b, enum ex_format fmt,
				 const struct kt_trset *s)
{
	char pid[16];
	size_t i, j;

	ex_header(b, fmt, "klp_transition_blocked_task_info", "info",
	       "A task the transition's last sweep could not switch (the first " EX_BLOCKED_TASKS_S " of each)");
	for (i = 0; i < s->nr; i++) {
		const struct kt_tr *tr = s->trs[i];

		for (j = 0; j < tr->nr_tasks && j < EX_BLOCKED_TASKS; j++) {
			const struct kt_task *t = &tr->tasks[j];

			/* the idle tasks share pid 0: told apart by comm */
			snprintf(pid, sizeof(pid), "%d", t->pid);
			sb_puts(b, "klp_transition_blocked_task_info{");
			ex_put_labels(b, "core", tr->core, "patch", tr->patch,
				   "pid", pid, "comm", t->comm, "function",
				   t->func, "reason",
				   kt_block_reason_name(t->reason), NULL);
			sb_puts(b, "}");
			put_value_line(b, 1);
		}
	}
}

/*
 * The transitions in progress, of both cores (transition.h): every klp
 * patch has klp_transition_in_progress, 0 or 1; a builtin patch has it
 * while its transition runs.
 */
static void render_transitions(struct strbuf *b, enum ex_format fmt,
			       const struct kt_model *m)
{
	const struct kt_trset *s = &m->trs;
	unsigned long long now = kt_tr_realtime_ns();
	static const int reasons[] = { KLP_BLOCK_RUNNING, KLP_BLOCK_UNRELIABLE,
				       KLP_BLOCK_ON_STACK, KT_BLOCK_UNKNOWN };
	size_t i, j, r, n;

	ex_header(b, fmt, "klp_transition_in_progress", "gauge",
	       "1 while a transition of the patch runs (tasks left to switch), else 0");
	for (i = 0; i < m->nr_patches; i++) {
		sb_puts(b, "klp_transition_in_progress{");
		ex_put_labels(b, "core", kt_core_names[m->patches[i]->core],
			      "patch", m->patches[i]->name, NULL);
		sb_puts(b, "}");
		put_value_line(b, in_transition(s, m->patches[i]));
	}
	for (i = 0; i < s->nr; i++) {
		const struct kt_patch *p =
			kt_patch_find((struct kt_model *)m, s->trs[i]->patch, false);

		if (p && !strcmp(kt_core_names[p->core], s->trs[i]->core))
			continue;	/* above */
		tr_sample(b, "klp_transition_in_progress", s->trs[i], NULL);
		put_value_line(b, 1);
	}
	ex_header(b, fmt, "klp_transition_seconds", "gauge",
	       "How long the transition in progress has run (a builtin one: since first seen)");
	for (i = 0; i < s->nr; i++) {
		const struct kt_tr *tr = s->trs[i];
		unsigned long long d = now > tr->started_ns && tr->started_ns ?
				       now - tr->started_ns : 0;

		tr_sample(b, "klp_transition_seconds", tr, NULL);
		sb_printf(b, " %llu.%09llu\n", d / KT_NSEC_PER_SEC,
			  d % KT_NSEC_PER_SEC);
	}
	ex_header(b, fmt, "klp_transition_blocked_tasks", "gauge",
	       "Tasks the transition's last sweep could not switch, by reason");
	for (i = 0; i < s->nr; i++) {
		const struct kt_tr *tr = s->trs[i];

		for (r = 0; r < ARRAY_SIZE(reasons); r++) {
			for (j = n = 0; j < tr->nr_tasks; j++)
				n += tr->tasks[j].reason == reasons[r];
			tr_sample(b, "klp_transition_blocked_tasks", tr,
				  kt_block_reason_name(reasons[r]));
			put_value_line(b, n);
		}
	}
	render_blocked_tasks(b, fmt, s);
}

/**
 * ex_render() - the metrics text of one scrape
 * @b:   appended to
 * @fmt: the exposition format
 * @v:   the model as the last update saw it, and the totals
 *
 * While the klp core is absent its gauges go (klp_up 0), its counters
 * stay (a counter never disappears), and the builtin livepatch's series
 * are there as ever: the model then holds only the builtin's patches.
 */
void ex_render(struct strbuf *b, enum ex_format fmt, const struct ex_view *v)
{
	const struct ex_totals *t = v->totals;

	scalar(b, fmt, "klp_up", "gauge",
	       "1 while the klp core is loaded and read, 0 when not", v->up);
	render_model(b, fmt, v->model);
	render_transitions(b, fmt, v->model);
	family(b, fmt, "klp_func_redirects_total",
	       "Calls of the function redirected to the patch's func",
	       &t->redirects);
	family(b, fmt, "klp_func_winner_changes_total",
	       "Times the function's winning func changed (the first enable and the last disable included)",
	       &t->winner_changes);
	family(b, fmt, "klp_transitions_total",
	       "Transition events of the core, by patch and event",
	       &t->transitions);
	family(b, fmt, "klp_enable_failures_total",
	       "Enables of the patch that failed and were rolled back",
	       &t->enable_failures);
	scalar(b, fmt, "klp_exporter_unattributed_redirects_total", "counter",
	       "Redirected calls to a func id the exporter could not name",
	       t->unattributed);
	scalar(b, fmt, "klp_exporter_lost_events_total", "counter",
	       "Transition events lost (ring buffer full); the state was read again",
	       t->lost_events);
	scalar(b, fmt, "klp_exporter_lost_redirects_total", "counter",
	       "Redirected calls not counted (a func id or CPU beyond the BPF counters)",
	       t->lost_hits);
	scalar(b, fmt, "klp_exporter_errors_total", "counter",
	       "Updates that could not read the core's state or counters",
	       t->errors);
	scalar(b, fmt, "klp_exporter_core_attaches_total", "counter",
	       "Times the exporter found the klp core and read its state (at start, after each reload)",
	       t->attaches);
	scalar(b, fmt, "klp_exporter_livepatch_reads_total", "counter",
	       "Times the exporter read the builtin livepatch's patches and func_stacks whole (after a change, during a transition)",
	       t->lp_reads);
	if (fmt == EX_OPENMETRICS)
		sb_printf(b, "# EOF\n");
}

static void free_count(void *node)
{
	struct ex_count *c = node;

	free(c->labels);
	free(c);
}

void ex_totals_free(struct ex_totals *t)
{
	tdestroy(t->redirects.root, free_count);
	tdestroy(t->winner_changes.root, free_count);
	tdestroy(t->transitions.root, free_count);
	tdestroy(t->enable_failures.root, free_count);
	memset(t, 0, sizeof(*t));
}
