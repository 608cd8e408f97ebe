// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * klp-exporter_metrics.c - the metrics text of one scrape: klp_up, the
 * patches and functions of the model as gauges, then the transitions
 * (klp-exporter_transitions.c), the counter families
 * (klp-exporter_counters.c) and the exporter's own counters
 */
#include <stddef.h>
#include "klp-exporter.h"

/* One sample of a func on fn's stack: NAME{object,function,patch,core} V */
static void func_sample(struct strbuf *b, const char *name,
			const struct model_fn *fn, const struct model_func *f,
			unsigned long long v)
{
	sb_puts(b, name);
	sb_puts(b, "{");
	ex_put_labels(b, "object", fn->object, "function", fn->name, "patch",
		      f->patch->name, "core", model_core_names[f->patch->core],
		      NULL);
	sb_puts(b, "}");
	ex_put_value(b, v);
}

static void render_model(struct strbuf *b, enum ex_format fmt,
			 const struct model *m, bool calls)
{
	size_t i, j;

	ex_header(b, fmt, "klp_patch_info", "info",
	       "A registered patch: its module's srcversion and the CVEs it fixes");
	for (i = 0; i < m->nr_patches; i++) {
		const struct model_patch *p = m->patches[i];

		sb_puts(b, "klp_patch_info{");
		ex_put_labels(b, "patch", p->name, "srcversion", p->srcversion,
			   "cve", p->cve, "core", model_core_names[p->core], NULL);
		sb_puts(b, "}");
		ex_put_value(b, 1);
	}
	ex_header(b, fmt, "klp_patch_enabled", "gauge",
	       "1 if the patch is enabled, 0 if not");
	for (i = 0; i < m->nr_patches; i++) {
		sb_puts(b, "klp_patch_enabled{");
		ex_put_labels(b, "patch", m->patches[i]->name, "core",
			   model_core_names[m->patches[i]->core], NULL);
		sb_puts(b, "}");
		ex_put_value(b, m->patches[i]->enabled);
	}
	ex_header(b, fmt, "klp_patch_enabled_timestamp_seconds", "gauge",
	       "When the enable in force happened, Unix time (enabled patches)");
	for (i = 0; i < m->nr_patches; i++) {
		const struct model_patch *p = m->patches[i];

		if (!p->enabled || !p->enabled_ns)
			continue;
		sb_puts(b, "klp_patch_enabled_timestamp_seconds{");
		ex_put_labels(b, "patch", p->name, "core",
			      model_core_names[p->core], NULL);
		sb_printf(b, "} %llu.%09llu\n", p->enabled_ns / MODEL_NSEC_PER_SEC,
			      p->enabled_ns % MODEL_NSEC_PER_SEC);
	}
	ex_header(b, fmt, "klp_func_winner", "gauge",
	       "For each func on its function's func_stack: 1 if it wins (top), 0 if below");
	for (i = 0; i < m->nr_fns; i++) {
		const struct model_fn *fn = m->fns[i];

		for (j = 0; j < fn->depth; j++)
			func_sample(b, "klp_func_winner", fn, fn->stack[j],
				    j == 0);
	}
	if (calls)
		ex_header(b, fmt, "klp_func_uncounted", "gauge",
			  "1 for a func whose calls cannot be counted (its probe failed to attach): its klp_func_redirects_total is unknown, not 0");
	for (i = 0; calls && i < m->nr_fns; i++) {
		const struct model_fn *fn = m->fns[i];

		for (j = 0; j < fn->depth; j++)
			if (fn->stack[j]->uncounted)
				func_sample(b, "klp_func_uncounted", fn,
					    fn->stack[j], 1);
	}
	ex_header(b, fmt, "klp_func_stack_depth", "gauge",
	       "Funcs on the function's func_stack (0: the original runs)");
	for (i = 0; i < m->nr_fns; i++) {
		sb_puts(b, "klp_func_stack_depth{");
		ex_put_labels(b, "object", m->fns[i]->object, "function",
			   m->fns[i]->name, "core",
			   model_core_names[model_fn_core(m->fns[i])], NULL);
		sb_puts(b, "}");
		ex_put_value(b, m->fns[i]->depth);
	}
}

/* A counter of each core: HELP, TYPE and a sample a core, 0 included. */
static void render_by_core(struct strbuf *b, enum ex_format fmt,
			   const char *name, const char *help,
			   const unsigned long long *v)
{
	size_t c;

	ex_header(b, fmt, name, "counter", help);
	for (c = 0; c < MODEL_NR_CORES; c++) {
		sb_puts(b, name);
		sb_puts(b, "{");
		ex_put_labels(b, "core", model_core_names[c], NULL);
		sb_puts(b, "}");
		ex_put_value(b, v[c]);
	}
}

/**
 * ex_render() - the metrics text of one scrape
 * @b:   appended to
 * @fmt: the exposition format
 * @v:   the model as the last update saw it, and the totals
 *
 * While the klp core is absent its gauges go (klp_up 0), its counters
 * stay (until ex_totals_prune() finds them gone EX_GONE_NS), and the
 * builtin livepatch's series
 * are there as ever: the model then holds only the builtin's patches.
 */
void ex_render(struct strbuf *b, enum ex_format fmt, const struct ex_view *v)
{
	static const struct {
		const char *name, *help;
		size_t off;		/* of the value in struct ex_totals */
		bool calls;		/* the calls collector's */
	} own[] = {
		{ "klp_exporter_unattributed_redirects_total",
		  "Redirected calls to a func id the exporter could not name",
		  offsetof(struct ex_totals, unattributed), true },
		{ "klp_exporter_errors_total",
		  "Updates that could not read the core's state or counters",
		  offsetof(struct ex_totals, errors), false },
		{ "klp_exporter_core_attaches_total",
		  "Times the exporter found the klp core and read its state (at start, after each reload)",
		  offsetof(struct ex_totals, attaches), false },
		{ "klp_exporter_livepatch_reads_total",
		  "Times the exporter read the builtin livepatch's patches and func_stacks whole (after a change, during a transition)",
		  offsetof(struct ex_totals, lp_reads), false },
		{ "klp_exporter_probe_failures_total",
		  "Probes on a builtin func's new function that could not attach, or found no free counter slot (its calls uncounted: klp_func_uncounted)",
		  offsetof(struct ex_totals, probe_failures), true },
	};
	const struct ex_totals *t = v->totals;
	size_t i;

	ex_scalar(b, fmt, "klp_up", "gauge",
		  "1 while the klp core is loaded and read, 0 when not", v->up);
	render_model(b, fmt, v->model, !v->no_calls);
	ex_render_transitions(b, fmt, v->model);
	if (!v->no_calls)
		ex_family_render(b, fmt, "klp_func_redirects_total",
				 "Calls of the function redirected to the patch's func",
				 &t->redirects);
	ex_family_render(b, fmt, "klp_func_winner_changes_total",
			 "Times the function's winning func changed (the first enable and the last disable included)",
			 &t->winner_changes);
	ex_family_render(b, fmt, "klp_transitions_total",
			 "Transition events of the core, by patch and event",
			 &t->transitions);
	ex_family_render(b, fmt, "klp_enable_failures_total",
			 "Enables of the patch that failed and were rolled back",
			 &t->enable_failures);
	render_by_core(b, fmt, "klp_exporter_lost_events_total",
		       "Events of the core lost (its ring buffer full); klp's state was read again",
		       t->lost_events);
	if (!v->no_calls)
		render_by_core(b, fmt, "klp_exporter_lost_redirects_total",
			       "Redirected calls not counted (a func id, counter slot or CPU beyond the BPF counters)",
			       t->lost_hits);
	for (i = 0; i < ARRAY_SIZE(own); i++)
		if (!own[i].calls || !v->no_calls)
			ex_scalar(b, fmt, own[i].name, "counter", own[i].help,
				  *(const unsigned long long *)((const char *)t +
								own[i].off));
	ex_header(b, fmt, "klp_exporter_collector_enabled", "gauge",
		  "1 if the collector runs, 0 if a --no-collector option turned it off (its series are absent)");
	sb_puts(b, "klp_exporter_collector_enabled{");
	ex_put_labels(b, "collector", "calls", NULL);
	sb_puts(b, "}");
	ex_put_value(b, !v->no_calls);
	if (fmt == EX_OPENMETRICS)
		sb_printf(b, "# EOF\n");
}
