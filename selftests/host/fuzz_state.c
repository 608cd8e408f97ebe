// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_state.c - a libFuzzer target for what the core's state file and
 * transition events go through in userspace: the state parser
 * (snapshot_lib.c), the model's resync and event applier (model.c,
 * source_klp_events.c), klptop --json (klptop_json.c) and klp-exporter's
 * totals and metrics text in both formats (klp-exporter_metrics.c).
 *
 * An input is a state file, then, after a line "events", the core's
 * transition events, one a line as event_script.h reads them (push, pop,
 * register, replaced, ...).  Each input: read the state into a fresh
 * model, apply the events (counted as klp-exporter counts them), render,
 * read the state again over what the events made (as after lost events),
 * render again.
 * Built with -fsanitize=fuzzer,address,undefined (host/31-fuzz-state.sh):
 * an access out of bounds, a leak or undefined behaviour is a crash, and
 * so is a broken invariant, checked after every step:
 *   - each function's stack holds distinct funcs of its own, depth <=
 *     nr_funcs <= cap; no two functions share (object, name), no two
 *     patches a name, no patch two funcs of one function; a func's id
 *     leads to it;
 *   - no transition has more tasks pending than it has, a task twice (by
 *     pid; pid 0, the idle tasks, by comm), or a twin of the same core
 *     and patch;
 *   - the JSON line parses as JSON;
 *   - no series appears twice in the metrics text (Prometheus refuses
 *     the whole scrape).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "event_script.h"
#include "klp-exporter.h"
#include "klptop.h"
#include "strbuf.h"

#define EVENTS_MARK	"\nevents\n"

struct fuzz {
	int fd;				/* the state file, a memfd */
	char path[64];			/* /proc/self/fd/<fd> */
	struct model m;
	struct model_log log;
	struct ex_totals totals;
	struct strbuf json, metrics;
	char **lines;			/* the metrics' samples, for sorting */
	size_t lines_cap;
	char *events;			/* the input's events, NUL-terminated */
};

static struct fuzz fz;

__attribute__((noreturn, format(printf, 1, 2)))
static void broken(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "fuzz_state: invariant broken: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

static void check_fn(const struct model *m, const struct model_fn *fn)
{
	unsigned int i, j;

	if (!fn->nr_funcs || fn->nr_funcs > fn->cap || fn->depth > fn->nr_funcs)
		broken("%s %s: depth %u, %u funcs, room for %u", fn->object,
		       fn->name, fn->depth, fn->nr_funcs, fn->cap);
	for (i = 0; i < fn->depth; i++) {
		for (j = 0; j < fn->nr_funcs; j++)
			if (fn->funcs[j] == fn->stack[i])
				break;
		if (j == fn->nr_funcs || fn->stack[i]->fn != fn)
			broken("%s %s: stack[%u] is not one of its funcs",
			       fn->object, fn->name, i);
		for (j = 0; j < i; j++)
			if (fn->stack[j] == fn->stack[i])
				broken("%s %s: a func twice on its stack",
				       fn->object, fn->name);
	}
	for (i = 0; i < fn->nr_funcs; i++)
		for (j = 0; j < i; j++)
			if (fn->funcs[j]->patch == fn->funcs[i]->patch)
				broken("%s %s: two funcs of patch %s", fn->object,
				       fn->name, fn->funcs[i]->patch->name);
	(void)m;
}

/* with by_id: each func's id leads to it (at the renders) */
/* Each transition: no more pending than total, a task (pid > 0) once. */
static void check_transitions(const struct model_trset *s)
{
	size_t i, j, k;

	for (i = 0; i < s->nr; i++) {
		const struct model_tr *tr = s->trs[i];

		if (tr->pending > tr->total || tr->target > 1)
			broken("transition %s: %u of %u pending, target %d",
			       tr->patch, tr->pending, tr->total, tr->target);
		for (j = 0; j < tr->nr_tasks; j++)
			for (k = 0; k < j; k++)
				if (tr->tasks[k].pid == tr->tasks[j].pid &&
				    (tr->tasks[j].pid ||
				     !strcmp(tr->tasks[k].comm, tr->tasks[j].comm)))
					broken("transition %s: task %d twice",
					       tr->patch, tr->tasks[j].pid);
		for (j = 0; j < i; j++)
			if (!strcmp(s->trs[j]->core, tr->core) &&
			    !strcmp(s->trs[j]->patch, tr->patch))
				broken("transition %s %s twice", tr->core,
				       tr->patch);
	}
}

static void check_model(const struct model *m, bool by_id)
{
	size_t i, j;

	check_transitions(&m->trs);
	for (i = 0; i < m->nr_fns; i++) {
		check_fn(m, m->fns[i]);
		for (j = 0; j < i; j++)
			if (!strcmp(m->fns[i]->object, m->fns[j]->object) &&
			    !strcmp(m->fns[i]->name, m->fns[j]->name))
				broken("function %s %s twice", m->fns[i]->object,
				       m->fns[i]->name);
	}
	for (i = 0; i < m->nr_patches; i++)
		for (j = 0; j < i; j++)
			if (!strcmp(m->patches[i]->name, m->patches[j]->name))
				broken("patch %s twice", m->patches[i]->name);
	for (i = 0; by_id && i < m->nr_fns; i++)
		for (j = 0; j < m->fns[i]->nr_funcs; j++) {
			const struct model_func *f = m->fns[i]->funcs[j];

			if (f->id && f->id < KLP_MAX_HIT_KEYS &&
			    m->by_id[f->id] != f)
				broken("%s %s: by_id[%u] is not its func %u",
				       m->fns[i]->object, m->fns[i]->name,
				       f->id, f->id);
		}
}

/* --- JSON: a value, by the grammar of RFC 8259 (bytes >= 0x80 as is) --- */

static const char *json_value(const char *s, const char *end, int depth);

static const char *json_ws(const char *s, const char *end)
{
	while (s < end && strchr(" \t\n\r", *s) && *s)
		s++;
	return s;
}

static const char *json_string(const char *s, const char *end)
{
	if (s == end || *s++ != '"')
		return NULL;
	while (s < end && *s != '"') {
		if ((unsigned char)*s < 0x20)
			return NULL;
		if (*s++ != '\\')
			continue;
		if (s == end)
			return NULL;
		if (*s == 'u') {
			if (end - s < 5 || strspn(s + 1, "0123456789abcdefABCDEF") < 4)
				return NULL;
			s += 5;
		} else if (strchr("\"\\/bfnrt", *s) && *s) {
			s++;
		} else {
			return NULL;
		}
	}
	return s < end ? s + 1 : NULL;
}

static const char *json_number(const char *s, const char *end)
{
	const char *start;

	if (s < end && *s == '-')
		s++;
	start = s;
	while (s < end && *s >= '0' && *s <= '9')
		s++;
	if (s == start || (*start == '0' && s - start > 1))
		return NULL;
	if (s < end && *s == '.') {
		start = ++s;
		while (s < end && *s >= '0' && *s <= '9')
			s++;
		if (s == start)
			return NULL;
	}
	if (s < end && (*s == 'e' || *s == 'E')) {
		if (++s < end && (*s == '+' || *s == '-'))
			s++;
		start = s;
		while (s < end && *s >= '0' && *s <= '9')
			s++;
		if (s == start)
			return NULL;
	}
	return s;
}

/* "{...}" or "[...]": members (key: value) or elements, comma-separated */
static const char *json_list(const char *s, const char *end, int depth,
			     char close, int keyed)
{
	s = json_ws(s + 1, end);
	if (s < end && *s == close)
		return s + 1;
	for (;;) {
		if (keyed) {
			s = json_string(s, end);
			if (!s)
				return NULL;
			s = json_ws(s, end);
			if (s == end || *s++ != ':')
				return NULL;
		}
		s = json_value(s, end, depth + 1);
		if (!s)
			return NULL;
		s = json_ws(s, end);
		if (s < end && *s == ',') {
			s = json_ws(s + 1, end);
			continue;
		}
		return s < end && *s == close ? s + 1 : NULL;
	}
}

static const char *json_value(const char *s, const char *end, int depth)
{
	static const char *const words[] = { "true", "false", "null" };
	size_t i;

	s = json_ws(s, end);
	if (s == end || depth > 32)
		return NULL;
	if (*s == '{')
		return json_list(s, end, depth, '}', 1);
	if (*s == '[')
		return json_list(s, end, depth, ']', 0);
	if (*s == '"')
		return json_string(s, end);
	for (i = 0; i < 3; i++)
		if ((size_t)(end - s) >= strlen(words[i]) &&
		    !memcmp(s, words[i], strlen(words[i])))
			return s + strlen(words[i]);
	return json_number(s, end);
}

static void check_json(const struct strbuf *b)
{
	const char *end = b->s + b->len, *s;

	if (!b->len || end[-1] != '\n')
		broken("the JSON line does not end in a newline");
	s = json_value(b->s, end - 1, 0);
	if (!s || json_ws(s, end - 1) != end - 1)
		broken("the JSON line does not parse at byte %td: %.*s",
		       s ? s - b->s : -1, (int)b->len, b->s);
}

/* --- metrics: no series twice -------------------------------------------- */

static int cmp_line(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Each sample's series (the line up to its value), sorted: none twice. */
static void check_metrics(struct strbuf *b)
{
	size_t n = 0, i;
	char *s, *nl, *sp;

	sb_put(b, "", 1);		/* a NUL after the text */
	for (s = b->s; *s; s = nl + 1) {
		nl = strchr(s, '\n');
		if (!nl)
			broken("metrics text without a final newline");
		*nl = '\0';
		if (*s == '#')
			continue;
		sp = strrchr(s, ' ');
		if (!sp || sp == s)
			broken("a metrics line without a value: %s", s);
		*sp = '\0';
		if (n == fz.lines_cap) {
			fz.lines_cap = fz.lines_cap ? 2 * fz.lines_cap : 64;
			fz.lines = xrealloc(fz.lines, fz.lines_cap,
					    sizeof(*fz.lines));
		}
		fz.lines[n++] = s;
	}
	if (n)
		qsort(fz.lines, n, sizeof(*fz.lines), cmp_line);
	for (i = 1; i < n; i++)
		if (!strcmp(fz.lines[i - 1], fz.lines[i]))
			broken("series twice in the metrics: %s", fz.lines[i]);
}

static void render(void)
{
	struct kt_view v = { .rows = 20 };
	struct kt_totals tot = { .elapsed = 1 };
	struct ex_view ev = { .up = true, .model = &fz.m, .totals = &fz.totals };

	check_model(&fz.m, true);

	kt_print_json(&v, &fz.m, &fz.log, &tot, &fz.json);
	check_json(&fz.json);
	fz.metrics.len = 0;
	ex_render(&fz.metrics, EX_TEXT, &ev);
	check_metrics(&fz.metrics);
	fz.metrics.len = 0;
	ex_render(&fz.metrics, EX_OPENMETRICS, &ev);
	check_metrics(&fz.metrics);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fz.fd = memfd_create("klp-state", 0);
	if (fz.fd < 0) {
		perror("memfd_create");
		exit(1);
	}
	snprintf(fz.path, sizeof(fz.path), "/proc/self/fd/%d", fz.fd);
	/* klptop --json's lines: not wanted, only checked */
	if (!freopen("/dev/null", "w", stdout)) {
		perror("/dev/null");
		exit(1);
	}
	return 0;
}

/* Each line of text as a transition event, applied and counted. */
static void apply_events(char *text)
{
	struct klp_transition_event e;
	char w[10][128], *line, *save;
	int n;

	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		memset(w, 0, sizeof(w));
		n = sscanf(line, "%127s %127s %127s %127s %127s %127s %127s %127s %127s %127s",
			   w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7], w[8],
			   w[9]);
		if (n < 1 || script_event(w, n, &e))
			continue;
		ex_count_event(&fz.totals, &fz.m, &e);
		klp_event_apply(&fz.m, &fz.log, &e);
		check_model(&fz.m, false);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *mark = memmem(data, size, EVENTS_MARK, strlen(EVENTS_MARK));
	size_t state_len = mark ? (size_t)(mark - (const char *)data) + 1 : size;
	size_t ev_len = mark ? size - state_len - strlen(EVENTS_MARK) + 1 : 0;
	struct ex_winner *before;
	size_t nr;

	if (ftruncate(fz.fd, 0) ||
	    pwrite(fz.fd, data, state_len, 0) != (ssize_t)state_len) {
		perror("the state memfd");
		exit(1);
	}
	memset(&fz.m, 0, sizeof(fz.m));
	memset(&fz.log, 0, sizeof(fz.log));
	fz.m.state_path = fz.path;
	fz.m.quiet = true;

	if (!klp_model_resync(&fz.m))
		check_model(&fz.m, false);
	fz.events = xrealloc(fz.events, ev_len + 1, 1);
	if (ev_len)
		memcpy(fz.events, data + size - ev_len, ev_len);
	fz.events[ev_len] = '\0';
	apply_events(fz.events);
	render();

	nr = ex_winners_save(&fz.m, &before);
	if (!klp_model_resync(&fz.m)) {
		ex_count_winner_changes(&fz.totals, &fz.m, before, nr); /* frees */
		check_model(&fz.m, false);
	} else {
		free(before);
	}
	render();

	model_free(&fz.m);
	ex_totals_free(&fz.totals);
	return 0;
}
