// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * snapshot_lib.c - parse debugfs klp/state, the core's whole state
 *
 * The core writes the file under one hold of klp_mutex: there is nothing
 * to retry.  A line that does not parse, a func outside its patch and
 * object, a name longer than the core accepts (so longer than the tools
 * hold, include/klp/uapi.h), a patch, func or func id listed twice, or
 * stacks that do not add up are a broken core or file, and say so
 * (-EPROTO, naming the line) rather than being papered over: a name cut
 * short or a func counted twice would merge what the core keeps apart.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <klp/uapi.h>
#include "snapshot.h"

#define MAX_FIELDS	16

struct parser {
	struct klp_snapshot *snap;
	size_t patch_cap, func_cap;
	char *object;			/* the current object, NULL before one */
	int loaded;			/* and its loaded state */
	bool info;			/* the current patch had its info */
	size_t lineno;			/* the line being read */
	size_t bad_line;		/* and what is wrong, on -EPROTO */
	char bad_why[sizeof(((struct klp_snapshot *)0)->bad_why)];
};

/* -EPROTO at line, saying why. */
__attribute__((format(printf, 3, 4)))
static int refuse(struct parser *p, size_t line, const char *fmt, ...)
{
	va_list ap;

	p->bad_line = line;
	va_start(ap, fmt);
	vsnprintf(p->bad_why, sizeof(p->bad_why), fmt, ap);
	va_end(ap);
	return -EPROTO;
}

/* 0 if name (what) fits in max characters, else -EPROTO saying so */
static int check_len(struct parser *p, const char *name, size_t max,
		     const char *what)
{
	if (strlen(name) <= max)
		return 0;
	return refuse(p, p->lineno, "%s longer than %zu characters", what, max);
}

/* Split line at spaces into at most MAX_FIELDS fields; returns their count. */
static int split(char *line, char **field)
{
	char *save, *tok;
	int n = 0;

	for (tok = strtok_r(line, " \n", &save); tok;
	     tok = strtok_r(NULL, " \n", &save)) {
		if (n == MAX_FIELDS)
			return -1;
		field[n++] = tok;
	}
	return n;
}

static int parse_ull(const char *s, unsigned long long *val)
{
	char *end;

	errno = 0;
	*val = strtoull(s, &end, 0);
	return errno || end == s || *end || *s == '-' ? -EPROTO : 0;
}

static int parse_int(const char *s, int *val)
{
	unsigned long long v;

	if (parse_ull(s, &v) || v > 1U << 30)
		return -EPROTO;
	*val = (int)v;
	return 0;
}

static const char *current_patch(const struct parser *p)
{
	const struct klp_snapshot *snap = p->snap;

	return snap->nr_patches ? snap->patches[snap->nr_patches - 1].name : NULL;
}

static int add_patch(struct parser *p, char **field)
{
	struct klp_snapshot *snap = p->snap;
	struct klp_snap_patch *n;
	int enabled;
	size_t i;

	if (parse_int(field[2], &enabled))
		return -EPROTO;
	if (check_len(p, field[1], KLP_NAME_LEN - 1, "a patch name"))
		return -EPROTO;
	for (i = 0; i < snap->nr_patches; i++)
		if (!strcmp(snap->patches[i].name, field[1]))
			return refuse(p, p->lineno, "patch %s again (first at line %zu)",
				      field[1], snap->patches[i].line);
	if (snap->nr_patches == p->patch_cap) {
		p->patch_cap = p->patch_cap ? p->patch_cap * 2 : 8;
		n = realloc(snap->patches, p->patch_cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		snap->patches = n;
	}
	n = &snap->patches[snap->nr_patches];
	memset(n, 0, sizeof(*n));
	n->name = strdup(field[1]);
	if (!n->name)
		return -ENOMEM;
	n->enabled = enabled;
	n->line = p->lineno;
	snap->nr_patches++;
	p->info = false;
	free(p->object);
	p->object = NULL;
	return 0;
}

/* "-" is none; anything else a copy */
static int dup_field(const char *field, char **dst)
{
	if (!strcmp(field, "-"))
		return 0;
	*dst = strdup(field);
	return *dst ? 0 : -ENOMEM;
}

static int add_info(struct parser *p, char **field)
{
	const char *patch = current_patch(p);
	struct klp_snap_patch *n;

	if (!patch || strcmp(field[1], patch) || p->info)
		return -EPROTO;
	n = &p->snap->patches[p->snap->nr_patches - 1];
	if (parse_ull(field[4], &n->enabled_ns) ||
	    check_len(p, field[2], KLP_NAME_LEN - 1, "a srcversion") ||
	    check_len(p, field[3], KLP_CVE_MAX_LEN, "a cve list"))
		return -EPROTO;
	p->info = true;
	return dup_field(field[2], &n->srcversion) ?:
	       dup_field(field[3], &n->cve);
}

static int add_replace(struct parser *p, char **field)
{
	const char *patch = current_patch(p);
	struct klp_snap_patch *n;

	if (!patch || strcmp(field[1], patch))
		return -EPROTO;
	n = &p->snap->patches[p->snap->nr_patches - 1];
	if (parse_int(field[2], &n->replace) || n->replaced_by ||
	    check_len(p, field[3], KLP_NAME_LEN - 1, "a patch name"))
		return -EPROTO;
	return dup_field(field[3], &n->replaced_by);
}

static int add_object(struct parser *p, char **field)
{
	const char *patch = current_patch(p);

	if (!patch || strcmp(field[1], patch) || parse_int(field[3], &p->loaded) ||
	    check_len(p, field[2], KLP_NAME_LEN - 1, "an object name"))
		return -EPROTO;
	free(p->object);
	p->object = strdup(field[2]);
	return p->object ? 0 : -ENOMEM;
}

static int add_func(struct parser *p, char **field)
{
	struct klp_snapshot *snap = p->snap;
	const char *patch = current_patch(p);
	unsigned long long id, depth;
	struct klp_snap_func f = {}, *n;

	if (!patch || !p->object || strcmp(field[1], patch) ||
	    strcmp(field[2], p->object) || parse_ull(field[4], &id) ||
	    id > ~0U || parse_int(field[5], &f.stack_pos) ||
	    parse_ull(field[6], &depth) || depth > ~0U ||
	    parse_ull(field[7], &f.old_addr) || parse_ull(field[8], &f.new_func) ||
	    check_len(p, field[3], KLP_FUNC_MAX_LEN, "a function name"))
		return -EPROTO;
	if (!id)	/* the core's ids start at 1 (include/klp/uapi.h) */
		return refuse(p, p->lineno, "func id 0: ids start at 1");
	f.patch = patch;
	f.line = p->lineno;
	f.id = id;
	f.stack_depth = depth;
	f.patched = f.stack_pos > 0;
	f.loaded = p->loaded;
	if (snap->nr_funcs == p->func_cap) {
		p->func_cap = p->func_cap ? p->func_cap * 2 : 16;
		n = realloc(snap->funcs, p->func_cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		snap->funcs = n;
	}
	f.object = strdup(p->object);
	f.func = strdup(field[3]);
	if (!f.object || !f.func) {
		free(f.object);
		free(f.func);
		return -ENOMEM;
	}
	snap->funcs[snap->nr_funcs++] = f;
	return 0;
}

static int parse_uint(const char *s, unsigned int *val)
{
	unsigned long long v;

	if (parse_ull(s, &v) || v > ~0U)
		return -EPROTO;
	*val = v;
	return 0;
}

/* transition <patch> <target 0|1> <sweep> <pending> <total> <started_ns> */
static int add_transition(struct parser *p, char **field)
{
	struct klp_snap_transition *t;

	if (p->snap->transition)
		return refuse(p, p->lineno, "a second transition (first at line %zu)",
			      p->snap->transition->line);
	if (check_len(p, field[1], KLP_NAME_LEN - 1, "a patch name"))
		return -EPROTO;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	p->snap->transition = t;
	t->line = p->lineno;
	if (parse_int(field[2], &t->target) || t->target > 1 ||
	    parse_uint(field[3], &t->sweep) || parse_uint(field[4], &t->pending) ||
	    parse_uint(field[5], &t->total) || parse_ull(field[6], &t->started_ns))
		return -EPROTO;
	if (t->pending > t->total)
		return refuse(p, p->lineno, "%u tasks pending of %u", t->pending,
			      t->total);
	t->patch = strdup(field[1]);
	return t->patch ? 0 : -ENOMEM;
}

/* The next word of *s up to a space, which is cut; NULL if none. */
static char *next_word(char **s)
{
	char *w = *s, *sp = strchr(w, ' ');

	if (!sp || sp == w)
		return NULL;
	*sp = '\0';
	*s = sp + 1;
	return w;
}

/* blocked <pid> <reason> <func or -> <comm, the rest of the line> */
static int add_blocked(struct parser *p, char *rest)
{
	struct klp_snap_transition *t = p->snap->transition;
	struct klp_snap_task k = { .line = p->lineno }, *n;
	char *pid, *reason, *func;
	size_t i, len = strlen(rest);

	if (!t)
		return refuse(p, p->lineno, "a blocked task outside a transition");
	if (len && rest[len - 1] == '\n')
		rest[--len] = '\0';
	pid = next_word(&rest);
	reason = pid ? next_word(&rest) : NULL;
	func = reason ? next_word(&rest) : NULL;
	if (!func || parse_int(pid, &k.pid) || parse_int(reason, &k.reason) ||
	    k.reason < KLP_BLOCK_RUNNING || k.reason > KLP_BLOCK_ON_STACK)
		return -EPROTO;
	if (k.reason == KLP_BLOCK_ON_STACK && !strcmp(func, "-"))
		return refuse(p, p->lineno, "a function on the stack, but none named");
	if (check_len(p, func, KLP_FUNC_MAX_LEN, "a function name") ||
	    check_len(p, rest, KLP_COMM_LEN - 1, "a comm"))
		return -EPROTO;
	/* the idle tasks share pid 0: told apart by comm (swapper/N) */
	for (i = 0; i < t->nr_blocked; i++)
		if (t->blocked[i].pid == k.pid &&
		    (k.pid || !strcmp(t->blocked[i].comm, rest)))
			return refuse(p, p->lineno, "task %d %s again (first at line %zu)",
				      k.pid, rest, t->blocked[i].line);
	n = realloc(t->blocked, (t->nr_blocked + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	t->blocked = n;
	if (dup_field(func, &k.func))
		return -ENOMEM;
	k.comm = strdup(rest);
	if (!k.comm) {
		free(k.func);
		return -ENOMEM;
	}
	t->blocked[t->nr_blocked++] = k;
	return 0;
}

/* One line; the first must be "seq". */
static int parse_line(struct parser *p, char *line, size_t lineno)
{
	char *field[MAX_FIELDS];
	unsigned long long seq;
	int n;

	/* its comm may hold spaces: not split */
	if (lineno > 1 && !strncmp(line, "blocked ", 8))
		return add_blocked(p, line + 8);
	n = split(line, field);
	if (n < 0)
		return -EPROTO;
	if (lineno == 1) {
		if (n != 2 || strcmp(field[0], "seq") ||
		    parse_ull(field[1], &seq))
			return -EPROTO;
		p->snap->seq = seq;
		return 0;
	}
	if (!n)
		return -EPROTO;
	if (!strcmp(field[0], "patch"))
		return n == 3 ? add_patch(p, field) : -EPROTO;
	if (!strcmp(field[0], "info"))
		return n == 5 ? add_info(p, field) : -EPROTO;
	if (!strcmp(field[0], "replace"))
		return n == 4 ? add_replace(p, field) : -EPROTO;
	if (!strcmp(field[0], "object"))
		return n == 4 ? add_object(p, field) : -EPROTO;
	if (!strcmp(field[0], "func"))
		return n == 9 ? add_func(p, field) : -EPROTO;
	if (!strcmp(field[0], "transition"))
		return n == 7 ? add_transition(p, field) : -EPROTO;
	if (!strcmp(field[0], "blocked"))
		return -EPROTO;		/* "blocked" alone, no fields */
	return 0;	/* "stack", or a kind newer than us */
}

static int cmp_func(const void *a, const void *b)
{
	const struct klp_snap_func *x = a, *y = b;
	int c;

	c = strcmp(x->object, y->object);
	if (c)
		return c;
	c = strcmp(x->func, y->func);
	if (c)
		return c;
	/* winner first, funcs off the stack (pos 0) last */
	if (x->stack_pos != y->stack_pos) {
		if (!x->stack_pos)
			return 1;
		if (!y->stack_pos)
			return -1;
		return x->stack_pos < y->stack_pos ? -1 : 1;
	}
	return strcmp(x->patch, y->patch);
}

/* by function, then patch, then line: a func listed twice is adjacent */
static int cmp_func_line(const void *a, const void *b)
{
	const struct klp_snap_func *x = a, *y = b;
	int c;

	c = strcmp(x->object, y->object);
	if (!c)
		c = strcmp(x->func, y->func);
	if (!c)
		c = strcmp(x->patch, y->patch);
	if (!c)
		c = x->line < y->line ? -1 : x->line > y->line;
	return c;
}

static int cmp_id_line(const void *a, const void *b)
{
	const struct klp_snap_func *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

static bool same_func(const struct klp_snap_func *x,
		      const struct klp_snap_func *y)
{
	return !strcmp(x->object, y->object) && !strcmp(x->func, y->func) &&
	       !strcmp(x->patch, y->patch);
}

/*
 * 0 when no func is listed twice, by name or by id, else -EPROTO naming
 * the first line that repeats an earlier one.  Sorts the funcs.
 */
static int check_twice(struct parser *p)
{
	struct klp_snapshot *snap = p->snap;
	struct klp_snap_func *f = snap->funcs;
	size_t i, n = snap->nr_funcs, dup = 0;

	if (n < 2)
		return 0;
	/* each group sorted by line: its second is the first repeat */
	qsort(f, n, sizeof(*f), cmp_func_line);
	for (i = 1; i < n; i++)
		if (same_func(&f[i - 1], &f[i]) &&
		    (i < 2 || !same_func(&f[i - 2], &f[i])) &&
		    (!dup || f[i].line < f[dup].line))
			dup = i;
	if (dup)
		return refuse(p, f[dup].line, "func %s %s %s again (first at line %zu)",
			      f[dup].patch, f[dup].object, f[dup].func,
			      f[dup - 1].line);
	qsort(f, n, sizeof(*f), cmp_id_line);
	for (i = 1; i < n; i++)
		if (f[i - 1].id == f[i].id && (i < 2 || f[i - 2].id != f[i].id) &&
		    (!dup || f[i].line < f[dup].line))
			dup = i;
	if (dup)
		return refuse(p, f[dup].line, "func id %u again (first at line %zu)",
			      f[dup].id, f[dup - 1].line);
	return 0;
}

/* 0 when every func_stack adds up (positions 1..depth, once each), else -EPROTO */
static int check_stacks(const struct klp_snapshot *snap)
{
	size_t i = 0, j, n;

	/* funcs are sorted: each function's funcs are adjacent, stack first */
	while (i < snap->nr_funcs) {
		const struct klp_snap_func *f = &snap->funcs[i];
		unsigned int depth = 0;

		for (j = i; j < snap->nr_funcs &&
		     !strcmp(snap->funcs[j].object, f->object) &&
		     !strcmp(snap->funcs[j].func, f->func); j++)
			;
		n = 0;
		for (; i < j; i++) {
			const struct klp_snap_func *g = &snap->funcs[i];

			if (!g->patched) {
				if (g->stack_depth)
					return -EPROTO;
				continue;
			}
			n++;
			if (!depth)
				depth = g->stack_depth;
			/* sorted by position: the n-th patched func is at n */
			if (g->stack_depth != depth || g->stack_pos != (int)n)
				return -EPROTO;
		}
		if (n != depth)
			return -EPROTO;
	}
	return 0;
}

/* 0 when the transition, if any, is of a patch listed, else -EPROTO */
static int check_transition(struct parser *p)
{
	const struct klp_snap_transition *t = p->snap->transition;
	size_t i;

	if (!t)
		return 0;
	for (i = 0; i < p->snap->nr_patches; i++)
		if (!strcmp(p->snap->patches[i].name, t->patch))
			return 0;
	return refuse(p, t->line, "a transition of patch %s, not listed",
		      t->patch);
}

int klp_snapshot_parse(struct klp_snapshot *snap, FILE *in)
{
	struct parser p = { .snap = snap };
	char *line = NULL;
	size_t size = 0;
	int err = 0;

	memset(snap, 0, sizeof(*snap));
	while (getline(&line, &size, in) >= 0) {
		err = parse_line(&p, line, ++p.lineno);
		if (err) {
			if (!p.bad_line)
				p.bad_line = p.lineno;
			break;
		}
	}
	if (!err && ferror(in))
		err = -EIO;
	else if (!err && !p.lineno)
		err = -EPROTO;		/* empty: not even "seq" */
	free(line);
	free(p.object);
	if (!err)
		err = check_twice(&p);
	if (!err)
		err = check_transition(&p);
	if (!err) {
		if (snap->nr_funcs)
			qsort(snap->funcs, snap->nr_funcs,
			      sizeof(*snap->funcs), cmp_func);
		err = check_stacks(snap);	/* no line: bad_line 0 */
	}
	if (err) {
		klp_snapshot_free(snap);
		if (err == -EPROTO) {
			snap->bad_line = p.bad_line;
			memcpy(snap->bad_why, p.bad_why, sizeof(snap->bad_why));
		}
	}
	return err;
}

int klp_snapshot_read(struct klp_snapshot *snap, const char *path)
{
	FILE *in;
	int err;

	in = fopen(path ?: KLP_STATE_PATH, "re");
	if (!in) {
		memset(snap, 0, sizeof(*snap));
		return -errno;
	}
	err = klp_snapshot_parse(snap, in);
	fclose(in);
	return err;
}

static void free_transition(struct klp_snap_transition *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->nr_blocked; i++) {
		free(t->blocked[i].func);
		free(t->blocked[i].comm);
	}
	free(t->blocked);
	free(t->patch);
	free(t);
}

void klp_snapshot_free(struct klp_snapshot *snap)
{
	size_t i;

	free_transition(snap->transition);
	for (i = 0; i < snap->nr_funcs; i++) {
		free(snap->funcs[i].object);
		free(snap->funcs[i].func);
	}
	free(snap->funcs);
	for (i = 0; i < snap->nr_patches; i++) {
		free(snap->patches[i].name);
		free(snap->patches[i].srcversion);
		free(snap->patches[i].cve);
		free(snap->patches[i].replaced_by);
	}
	free(snap->patches);
	memset(snap, 0, sizeof(*snap));
}
