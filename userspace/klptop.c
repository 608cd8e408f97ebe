// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * klptop - live dashboard of the klp live patching core
 *
 * For every patched function: the patch that wins it, the func_stack below
 * the winner, and how many calls were redirected, in the last interval and
 * since start.  The stacks come from the core's state file at start and then
 * from the core's transition events (BPF ring buffer); the counts from
 * per-CPU BPF counters on klp:klp_redirect, which are monotonic: this side
 * keeps the last value of every counter and takes deltas.
 *
 * Layout after bcc's libbpf-tools *top tools.
 */
#include <argp.h>
#include <errno.h>
#include <fnmatch.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <klp/uapi.h>
#include "json.h"
#include "klptop.h"
#include "klptop.skel.h"
#include "snapshot.h"

#define BTF_VMLINUX	"/sys/kernel/btf/vmlinux"
#define NSEC_PER_SEC	1000000000ULL
#define MAX_PENDING	256
#define ARRAY_SIZE(x)	(sizeof(x) / sizeof((x)[0]))
#ifndef ENOTSUPP
#define ENOTSUPP	524		/* kernel-internal, seen by userspace */
#endif

static struct env {
	bool noclear;
	bool nosummary;
	int rows;
	enum kt_sort sort;
	const char *patch;
	const char *func;
	bool json;
	bool verbose;
	int interval;
	int count;			/* 0: until q or a signal */
} env = {
	.rows = 20,
	.sort = KT_SORT_RATE,
	.interval = 1,
};

static const char *const sort_names[KT_NR_SORTS] = {
	[KT_SORT_RATE] = "rate",
	[KT_SORT_TOTAL] = "total",
	[KT_SORT_NAME] = "name",
	[KT_SORT_DEPTH] = "depth",
};

const char *argp_program_version = "klptop 0.1";
const char argp_program_doc[] =
"Live view of klp live patches: for each patched function the winning\n"
"patch, the func_stack below it and the redirected calls.\n"
"\n"
"USAGE: klptop [-h] [-C] [-S] [-r ROWS] [-s SORT] [-p PATCH] [-f FUNC]\n"
"              [--json] [--once] [-v] [interval] [count]\n"
"\n"
"SORT is rate (default), total, name or depth.  PATCH and FUNC are shell\n"
"patterns.  On a terminal: q quits, s cycles the sort, p pauses.\n"
"\n"
"EXAMPLES:\n"
"    klptop                 # refresh every second until q or Ctrl-C\n"
"    klptop 5 10            # every 5 s, 10 times\n"
"    klptop -s total -r 5   # the 5 most redirected functions since start\n"
"    klptop -p klp_test_p2  # only functions that klp_test_p2 patches\n"
"    klptop --json 1 3      # one JSON object per second, three times\n";

enum {
	OPT_JSON = 0x100,
	OPT_ONCE,
};

static const struct argp_option opts[] = {
	{ "noclear", 'C', NULL, 0, "Don't clear the screen", 0 },
	{ "nosummary", 'S', NULL, 0, "Skip the summary of the time line", 0 },
	{ "rows", 'r', "ROWS", 0, "Maximum rows to print, default 20", 0 },
	{ "sort", 's', "SORT", 0, "Sort by rate, total, name or depth (default rate)", 0 },
	{ "patch", 'p', "PATCH", 0, "Only functions that PATCH patches", 0 },
	{ "func", 'f', "FUNC", 0, "Only functions named FUNC", 0 },
	{ "interval", 'i', "INTERVAL", 0, "Refresh interval in seconds, default 1", 0 },
	{ "json", OPT_JSON, NULL, 0, "One JSON object per interval instead of the screen", 0 },
	{ "once", OPT_ONCE, NULL, 0, "One interval, then exit (count 1)", 0 },
	{ "verbose", 'v', NULL, 0, "Verbose debug output (libbpf)", 0 },
	{ NULL, 'h', NULL, OPTION_HIDDEN, "Show the full help", 0 },
	{},
};

static int parse_long(const char *s, long min, long max, long *val)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		return -1;
	*val = v;
	return 0;
}

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	long v;
	int i;

	switch (key) {
	case 'h':
		argp_state_help(state, stderr, ARGP_HELP_STD_HELP);
		break;
	case 'C':
		env.noclear = true;
		break;
	case 'S':
		env.nosummary = true;
		break;
	case 'r':
		if (parse_long(arg, 1, 100000, &v)) {
			fprintf(stderr, "invalid rows: %s\n", arg);
			argp_usage(state);
		}
		env.rows = v;
		break;
	case 's':
		for (i = 0; i < KT_NR_SORTS; i++)
			if (!strcmp(arg, sort_names[i]))
				break;
		if (i == KT_NR_SORTS) {
			fprintf(stderr, "invalid sort: %s (rate, total, name, depth)\n", arg);
			argp_usage(state);
		}
		env.sort = i;
		break;
	case 'p':
		env.patch = arg;
		break;
	case 'f':
		env.func = arg;
		break;
	case 'i':
		if (parse_long(arg, 1, 86400, &v)) {
			fprintf(stderr, "invalid interval: %s\n", arg);
			argp_usage(state);
		}
		env.interval = v;
		break;
	case OPT_JSON:
		env.json = true;
		break;
	case OPT_ONCE:
		env.count = 1;
		break;
	case 'v':
		env.verbose = true;
		break;
	case ARGP_KEY_ARG:
		if (state->arg_num == 0) {
			if (parse_long(arg, 1, 86400, &v)) {
				fprintf(stderr, "invalid interval: %s\n", arg);
				argp_usage(state);
			}
			env.interval = v;
		} else if (state->arg_num == 1) {
			if (parse_long(arg, 1, 1000000000, &v)) {
				fprintf(stderr, "invalid count: %s\n", arg);
				argp_usage(state);
			}
			env.count = v;
		} else {
			fprintf(stderr, "unrecognized positional argument: %s\n", arg);
			argp_usage(state);
		}
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static int libbpf_print_fn(enum libbpf_print_level level, const char *format,
			   va_list args)
{
	if (level == LIBBPF_DEBUG && !env.verbose)
		return 0;
	return vfprintf(stderr, format, args);
}

static volatile sig_atomic_t exiting;

static void sig_handler(int sig)
{
	(void)sig;
	exiting = 1;
}

/* --- the model: patches, functions and their func_stacks --------------- */

static struct kt_patch **patches;
static size_t nr_patches;
static struct kt_fn **fns;
static size_t nr_fns;
static struct kt_func *by_id[KLP_MAX_HIT_KEYS];

/* Events numbered up to the last snapshot's seq are already in it. */
static unsigned long long snap_seq;
static bool need_resync;

static void copy_name(char *dst, size_t size, const char *src)
{
	snprintf(dst, size, "%.*s", (int)size - 1, src);
}

static unsigned long long now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

static struct kt_patch *find_patch(const char *name, bool create)
{
	struct kt_patch *p, **n;
	size_t i;

	for (i = 0; i < nr_patches; i++)
		if (!strncmp(patches[i]->name, name, KLP_NAME_LEN - 1))
			return patches[i];
	if (!create)
		return NULL;
	p = calloc(1, sizeof(*p));
	n = realloc(patches, (nr_patches + 1) * sizeof(*n));
	if (!p || !n) {
		free(p);
		fprintf(stderr, "klptop: out of memory\n");
		exit(1);
	}
	copy_name(p->name, sizeof(p->name), name);
	patches = n;
	patches[nr_patches++] = p;
	return p;
}

static struct kt_fn *find_fn(const char *object, const char *name)
{
	struct kt_fn *fn, **n;
	size_t i;

	for (i = 0; i < nr_fns; i++)
		if (!strncmp(fns[i]->object, object, KLP_NAME_LEN - 1) &&
		    !strncmp(fns[i]->name, name, KLP_FUNC_LEN - 1))
			return fns[i];
	fn = calloc(1, sizeof(*fn));
	n = realloc(fns, (nr_fns + 1) * sizeof(*n));
	if (!fn || !n) {
		free(fn);
		fprintf(stderr, "klptop: out of memory\n");
		exit(1);
	}
	copy_name(fn->object, sizeof(fn->object), object);
	copy_name(fn->name, sizeof(fn->name), name);
	fns = n;
	fns[nr_fns++] = fn;
	return fn;
}

static int stack_index(const struct kt_fn *fn, const struct kt_func *f)
{
	unsigned int i;

	for (i = 0; i < fn->depth; i++)
		if (fn->stack[i] == f)
			return i;
	return -1;
}

static void stack_remove(struct kt_fn *fn, struct kt_func *f)
{
	int i = stack_index(fn, f);

	if (i < 0)
		return;
	memmove(&fn->stack[i], &fn->stack[i + 1],
		(fn->depth - i - 1) * sizeof(*fn->stack));
	fn->depth--;
}

/* A push puts func on top: it wins from now on. */
static void stack_push(struct kt_fn *fn, struct kt_func *f)
{
	if (stack_index(fn, f) >= 0)
		return;
	memmove(&fn->stack[1], &fn->stack[0], fn->depth * sizeof(*fn->stack));
	fn->stack[0] = f;
	fn->depth++;
}

static void free_fn(struct kt_fn *fn)
{
	size_t i;

	for (i = 0; i < nr_fns; i++) {
		if (fns[i] != fn)
			continue;
		memmove(&fns[i], &fns[i + 1], (nr_fns - i - 1) * sizeof(*fns));
		nr_fns--;
		break;
	}
	free(fn->stack);
	free(fn->funcs);
	free(fn);
}

static void free_func(struct kt_func *f)
{
	struct kt_fn *fn = f->fn;
	unsigned int i;

	stack_remove(fn, f);
	for (i = 0; i < fn->nr_funcs; i++) {
		if (fn->funcs[i] != f)
			continue;
		memmove(&fn->funcs[i], &fn->funcs[i + 1],
			(fn->nr_funcs - i - 1) * sizeof(*fn->funcs));
		fn->nr_funcs--;
		break;
	}
	if (f->id < KLP_MAX_HIT_KEYS && by_id[f->id] == f)
		by_id[f->id] = NULL;
	free(f);
	if (!fn->nr_funcs)
		free_fn(fn);
}

/*
 * The func of patch p for fn, bound to id.  Ids are unique among
 * registered funcs, so a different func holding id belongs to a patch
 * that was unregistered: it goes.
 */
static struct kt_func *get_func(struct kt_patch *p, struct kt_fn *fn,
				unsigned int id)
{
	struct kt_func *f = NULL, *old;
	unsigned int i;

	for (i = 0; i < fn->nr_funcs; i++)
		if (fn->funcs[i]->patch == p)
			f = fn->funcs[i];
	if (!f) {
		if (fn->nr_funcs == fn->cap) {
			unsigned int cap = fn->cap ? fn->cap * 2 : 4;
			struct kt_func **s = realloc(fn->stack, cap * sizeof(*s));
			struct kt_func **a;

			if (s)
				fn->stack = s;
			a = realloc(fn->funcs, cap * sizeof(*a));
			if (!s || !a) {
				fprintf(stderr, "klptop: out of memory\n");
				exit(1);
			}
			fn->funcs = a;
			fn->cap = cap;
		}
		f = calloc(1, sizeof(*f));
		if (!f) {
			fprintf(stderr, "klptop: out of memory\n");
			exit(1);
		}
		f->patch = p;
		f->fn = fn;
		fn->funcs[fn->nr_funcs++] = f;
	}
	if (f->id != id) {
		if (f->id < KLP_MAX_HIT_KEYS && by_id[f->id] == f)
			by_id[f->id] = NULL;
		f->id = id;
	}
	old = by_id[id];
	if (old && old != f)
		free_func(old);	/* never frees fn: f is one of its funcs */
	by_id[id] = f;
	return f;
}

static void free_patch(struct kt_patch *p)
{
	size_t i, j;

	for (i = 0; i < nr_fns; ) {
		struct kt_fn *fn = fns[i];
		struct kt_func *victim = NULL;

		for (j = 0; j < fn->nr_funcs; j++)
			if (fn->funcs[j]->patch == p)
				victim = fn->funcs[j];
		if (victim && fn->nr_funcs == 1) {
			free_func(victim);	/* frees fn, fns[i] is the next one */
			continue;
		}
		if (victim)
			free_func(victim);
		i++;
	}
	for (i = 0; i < nr_patches; i++) {
		if (patches[i] != p)
			continue;
		memmove(&patches[i], &patches[i + 1],
			(nr_patches - i - 1) * sizeof(*patches));
		nr_patches--;
		break;
	}
	free(p);
}

static void explain_snapshot_error(int err, const struct klp_snapshot *snap)
{
	if (err == -ENOENT && access(KLP_SYSFS_ROOT, F_OK))
		fprintf(stderr, "klptop: the klp core went away (%s missing)\n",
			KLP_SYSFS_ROOT);
	else if (err == -ENOENT)
		fprintf(stderr, "klptop: %s missing: is debugfs mounted? (mount -t debugfs none /sys/kernel/debug)\n",
			KLP_STATE_PATH);
	else if (err == -EPROTO && snap->bad_line)
		fprintf(stderr, "klptop: %s: line %zu does not parse\n",
			KLP_STATE_PATH, snap->bad_line);
	else if (err == -EPROTO)
		fprintf(stderr, "klptop: %s: the func_stacks do not add up (a klp core bug)\n",
			KLP_STATE_PATH);
	else
		fprintf(stderr, "klptop: cannot read %s: %s (%d)\n",
			KLP_STATE_PATH, strerror(-err), err);
}

/*
 * Rebuild the stacks from the core's state file.  Funcs keep their counts;
 * funcs and patches that are gone are dropped.  Returns 0 or -errno.
 */
static int resync(void)
{
	struct klp_snapshot snap;
	size_t i, j;
	int err;

	err = klp_snapshot_read(&snap, NULL);
	if (err) {
		explain_snapshot_error(err, &snap);
		return err;
	}

	for (i = 0; i < nr_patches; i++)
		patches[i]->seen = false;
	for (i = 0; i < nr_fns; i++) {
		fns[i]->depth = 0;
		for (j = 0; j < fns[i]->nr_funcs; j++)
			fns[i]->funcs[j]->seen = false;
	}
	for (i = 0; i < snap.nr_patches; i++) {
		struct kt_patch *p = find_patch(snap.patches[i].name, true);

		p->enabled = snap.patches[i].enabled;
		p->seen = true;
	}
	/* sorted winner first: appending in order builds each stack */
	for (i = 0; i < snap.nr_funcs; i++) {
		const struct klp_snap_func *sf = &snap.funcs[i];
		struct kt_patch *p = find_patch(sf->patch, true);
		struct kt_fn *fn;
		struct kt_func *f;

		if (sf->id >= KLP_MAX_HIT_KEYS)
			continue;
		fn = find_fn(sf->object, sf->func);
		f = get_func(p, fn, sf->id);
		f->seen = true;
		if (sf->patched) {
			fn->stack[fn->depth++] = f;
			if (sf->old_addr)
				fn->old_addr = sf->old_addr;
		}
	}
	klp_snapshot_free(&snap);

	for (i = 0; i < nr_patches; ) {
		if (!patches[i]->seen)
			free_patch(patches[i]);
		else
			i++;
	}
	for (i = 0; i < nr_fns; ) {
		struct kt_fn *fn = fns[i];
		struct kt_func *stale = NULL;

		for (j = 0; j < fn->nr_funcs; j++)
			if (!fn->funcs[j]->seen)
				stale = fn->funcs[j];
		if (!stale) {
			i++;
			continue;
		}
		/* may free fn: look at fns[i] again either way */
		free_func(stale);
	}
	snap_seq = snap.seq;
	need_resync = false;
	return 0;
}

static void count_patches(unsigned int *enabled, unsigned int *disabled)
{
	size_t i;

	*enabled = *disabled = 0;
	for (i = 0; i < nr_patches; i++) {
		if (patches[i]->enabled)
			(*enabled)++;
		else
			(*disabled)++;
	}
}

/* --- transitions: the footer and the JSON "transitions" ---------------- */

static struct kt_transition tlog[KT_LOG_LEN];
static unsigned long long tlog_n;	/* transitions logged so far */
static unsigned long long tlog_shown;	/* ... of which printed */
static struct kt_pending pending[MAX_PENDING];
static unsigned int nr_pending;
static long long realtime_off_ns;	/* CLOCK_REALTIME - CLOCK_MONOTONIC */

static void fmt_hms(unsigned long long mono_ns, char *buf, size_t size)
{
	time_t t = (mono_ns + realtime_off_ns) / NSEC_PER_SEC;
	struct tm tm;

	localtime_r(&t, &tm);
	strftime(buf, size, "%H:%M:%S", &tm);
}

__attribute__((format(printf, 6, 7)))
static void log_transition(unsigned long long ts, unsigned int type, int ret,
			   const char *patch, const char *func,
			   const char *fmt, ...)
{
	struct kt_transition *t = &tlog[tlog_n % KT_LOG_LEN];
	va_list ap;

	t->ts_ns = ts;
	t->type = type;
	t->ret = ret;
	copy_name(t->patch, sizeof(t->patch), patch);
	copy_name(t->func, sizeof(t->func), func);
	va_start(ap, fmt);
	vsnprintf(t->text, sizeof(t->text), fmt, ap);
	va_end(ap);
	tlog_n++;
}

static const char *winner_name(const char *winner)
{
	return winner[0] ? winner : "original";
}

static void drop_pending(unsigned int i)
{
	memmove(&pending[i], &pending[i + 1],
		(nr_pending - i - 1) * sizeof(*pending));
	nr_pending--;
}

/*
 * Log every pending push (or pop) of patch as "<what>: <func> now ->
 * <winner> (depth N)"; with none, log what alone.  Returns how many.
 */
static unsigned int log_pending(const struct klp_transition_event *e,
				unsigned int type, const char *what)
{
	unsigned int i, n = 0;

	for (i = 0; i < nr_pending; ) {
		struct kt_pending *pe = &pending[i];

		if (pe->type != type || strcmp(pe->patch, e->patch)) {
			i++;
			continue;
		}
		log_transition(e->ts_ns, e->type, e->ret, e->patch, pe->func,
			       "%s: %s now -> %s (depth %u)", what, pe->func,
			       winner_name(pe->winner), pe->depth);
		drop_pending(i);
		n++;
	}
	if (!n)
		log_transition(e->ts_ns, e->type, e->ret, e->patch, "", "%s",
			       what);
	return n;
}

/* Pushes and pops of a failed enable were rolled back: nothing to show. */
static void forget_pending(const char *patch)
{
	unsigned int i;

	for (i = 0; i < nr_pending; ) {
		if (!strcmp(pending[i].patch, patch))
			drop_pending(i);
		else
			i++;
	}
}

/*
 * Log the pending pushes and pops alone.  Each waits for the event that
 * ends its operation (its cause says which: the patch's enable or disable,
 * the object applied or reverted), so only a full pending list or lost
 * events (a resync) bring them here.
 */
static void log_orphans(void)
{
	while (nr_pending) {
		struct kt_pending *pe = &pending[0];

		log_transition(pe->ts_ns, pe->type, 0, pe->patch, pe->func,
			       "%s now -> %s (depth %u): %s %s", pe->func,
			       winner_name(pe->winner), pe->depth, pe->patch,
			       pe->type == KLP_EV_FUNC_PUSH ? "pushed" : "popped");
		drop_pending(0);
	}
}

/*
 * A pop that rolls back: the push it undoes, still pending (a failed
 * enable or module load), goes with it unlogged; a push logged before
 * (another patch applied to a module whose load then failed) is undone
 * in the log too.
 */
static void rollback_pending(const struct klp_transition_event *e)
{
	unsigned int i;

	for (i = 0; i < nr_pending; i++) {
		if (pending[i].type == KLP_EV_FUNC_PUSH &&
		    !strcmp(pending[i].patch, e->patch) &&
		    !strcmp(pending[i].func, e->func)) {
			drop_pending(i);
			return;
		}
	}
	log_transition(e->ts_ns, e->type, 0, e->patch, e->func,
		       "patch %s rolled back: %s now -> %s (depth %u)",
		       e->patch, e->func, winner_name(e->winner), e->depth);
}

static void add_pending(const struct klp_transition_event *e)
{
	struct kt_pending *pe;

	if (nr_pending == MAX_PENDING)
		log_orphans();
	pe = &pending[nr_pending++];
	pe->ts_ns = e->ts_ns;
	pe->type = e->type;
	pe->depth = e->depth;
	copy_name(pe->patch, sizeof(pe->patch), e->patch);
	copy_name(pe->func, sizeof(pe->func), e->func);
	copy_name(pe->winner, sizeof(pe->winner), e->winner);
}

/* Apply a push or pop and check the stack against what the event says. */
static void apply_func_event(const struct klp_transition_event *e)
{
	struct kt_patch *p;
	struct kt_fn *fn;
	struct kt_func *f;

	if (e->id >= KLP_MAX_HIT_KEYS)
		return;
	p = find_patch(e->patch, false);
	if (!p) {
		/* registered after our snapshot: learn the rest of it */
		p = find_patch(e->patch, true);
		need_resync = true;
	}
	fn = find_fn(e->object, e->func);
	f = get_func(p, fn, e->id);
	if (e->old_addr)
		fn->old_addr = e->old_addr;
	if (e->type == KLP_EV_FUNC_PUSH)
		stack_push(fn, f);
	else
		stack_remove(fn, f);
	if (fn->depth != e->depth ||
	    (fn->depth ? fn->stack[0]->id : 0) != e->winner_id)
		need_resync = true;
}

static int handle_event(void *ctx, void *data, size_t size)
{
	struct klp_transition_event e;
	bool fresh;
	char what[KT_TEXT_LEN];
	struct kt_patch *p;

	(void)ctx;
	if (size < sizeof(e))
		return 0;
	memcpy(&e, data, sizeof(e));
	e.patch[sizeof(e.patch) - 1] = '\0';
	e.object[sizeof(e.object) - 1] = '\0';
	e.winner[sizeof(e.winner) - 1] = '\0';
	e.func[sizeof(e.func) - 1] = '\0';
	fresh = e.seq > snap_seq;

	switch (e.type) {
	case KLP_EV_FUNC_PUSH:
	case KLP_EV_FUNC_POP:
		if (fresh)
			apply_func_event(&e);
		if (e.cause == KLP_CAUSE_ROLLBACK)
			rollback_pending(&e);
		else
			add_pending(&e);
		break;
	case KLP_EV_PATCH_REGISTER:
		if (e.ret) {
			log_transition(e.ts_ns, e.type, e.ret, e.patch, "",
				       "patch %s registration failed: %s (%d)",
				       e.patch, strerror(-e.ret), e.ret);
			break;
		}
		/* the funcs and their ids are in the state file only */
		if (fresh)
			need_resync = true;
		log_transition(e.ts_ns, e.type, 0, e.patch, "",
			       "patch %s registered", e.patch);
		break;
	case KLP_EV_PATCH_UNREGISTER:
		if (e.ret) {
			log_transition(e.ts_ns, e.type, e.ret, e.patch, "",
				       "patch %s unregister failed: %s (%d)",
				       e.patch, strerror(-e.ret), e.ret);
			break;
		}
		p = find_patch(e.patch, false);
		if (fresh && p)
			free_patch(p);
		log_transition(e.ts_ns, e.type, 0, e.patch, "",
			       "patch %s unregistered", e.patch);
		break;
	case KLP_EV_PATCH_ENABLE:
	case KLP_EV_PATCH_DISABLE:
		if (e.ret) {
			forget_pending(e.patch);
			log_transition(e.ts_ns, e.type, e.ret, e.patch, "",
				       "patch %s %s failed: %s (%d)", e.patch,
				       e.type == KLP_EV_PATCH_ENABLE ?
				       "enable" : "disable",
				       strerror(-e.ret), e.ret);
			break;
		}
		p = find_patch(e.patch, false);
		if (fresh) {
			if (!p) {
				p = find_patch(e.patch, true);
				need_resync = true;
			}
			p->enabled = e.type == KLP_EV_PATCH_ENABLE;
		}
		snprintf(what, sizeof(what), "patch %s %s", e.patch,
			 e.type == KLP_EV_PATCH_ENABLE ? "enabled" : "disabled");
		log_pending(&e, e.type == KLP_EV_PATCH_ENABLE ?
			    KLP_EV_FUNC_PUSH : KLP_EV_FUNC_POP, what);
		break;
	case KLP_EV_OBJECT:
		if (e.ret == KLP_OBJ_APPLIED) {
			snprintf(what, sizeof(what),
				 "patch %s applied to module %s", e.patch,
				 e.object);
			log_pending(&e, KLP_EV_FUNC_PUSH, what);
		} else if (e.ret == KLP_OBJ_REVERTED) {
			snprintf(what, sizeof(what),
				 "patch %s reverted, module %s going", e.patch,
				 e.object);
			log_pending(&e, KLP_EV_FUNC_POP, what);
		} else {
			log_transition(e.ts_ns, e.type, e.ret, e.patch, "",
				       "patch %s deferred: module %s not loaded",
				       e.patch, e.object);
		}
		break;
	case KLP_EV_ENABLE_FAILED:
		log_transition(e.ts_ns, e.type, e.ret, e.patch, e.func,
			       "patch %s failed on %s%s%s: %s (%d)", e.patch,
			       e.object, e.func[0] ? ":" : "", e.func,
			       strerror(-e.ret), e.ret);
		break;
	default:
		break;
	}
	return 0;
}

/* --- counters ------------------------------------------------------------ */

struct kt_hit {
	struct klp_hit_key key;
	unsigned long long sum;		/* over all CPUs */
};

/* The last value read of every counter, sorted by key. */
static struct kt_hit *last;
static size_t nr_last;

static struct kt_hit *hits;		/* this read */
static size_t nr_hits, cap_hits;
static int ncpus;
static size_t value_size;		/* one per-CPU value, as the kernel copies it */
static unsigned long long *values;
static unsigned int values_cap;		/* keys' worth of values */
static bool no_batch;

static unsigned long long interval_unknown;	/* hits of ids we cannot name */
static bool unknown_tried[KLP_MAX_HIT_KEYS];

static int cmp_key(const struct klp_hit_key *a, const struct klp_hit_key *b)
{
	if (a->old_addr != b->old_addr)
		return a->old_addr < b->old_addr ? -1 : 1;
	if (a->id != b->id)
		return a->id < b->id ? -1 : 1;
	return 0;
}

static int cmp_hit(const void *a, const void *b)
{
	return cmp_key(&((const struct kt_hit *)a)->key,
		       &((const struct kt_hit *)b)->key);
}

static unsigned long long sum_values(const void *vals)
{
	unsigned long long sum = 0;
	int cpu;

	for (cpu = 0; cpu < ncpus; cpu++)
		sum += *(const __u64 *)((const char *)vals + cpu * value_size);
	return sum;
}

static void add_hit(const struct klp_hit_key *key, unsigned long long sum)
{
	if (nr_hits == cap_hits) {
		size_t cap = cap_hits ? cap_hits * 2 : 64;
		struct kt_hit *n = realloc(hits, cap * sizeof(*n));

		if (!n) {
			fprintf(stderr, "klptop: out of memory\n");
			exit(1);
		}
		hits = n;
		cap_hits = cap;
	}
	hits[nr_hits].key = *key;
	hits[nr_hits].sum = sum;
	nr_hits++;
}

static int grow_values(unsigned int keys)
{
	unsigned long long *n;

	if (keys <= values_cap)
		return 0;
	n = realloc(values, (size_t)keys * value_size * ncpus);
	if (!n)
		return -ENOMEM;
	values = n;
	values_cap = keys;
	return 0;
}

/* The whole map in few syscalls; -EINVAL etc. where batches are missing. */
static int read_hits_batch(int fd)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	static struct klp_hit_key *keys;
	static unsigned int keys_cap;
	unsigned int chunk = 256;
	__u32 in, out, n, i;
	void *inp = NULL;
	int err;

	for (;;) {
		if (grow_values(chunk))
			return -ENOMEM;
		if (keys_cap < chunk) {
			struct klp_hit_key *k = realloc(keys, chunk * sizeof(*k));

			if (!k)
				return -ENOMEM;
			keys = k;
			keys_cap = chunk;
		}
		n = chunk;
		err = bpf_map_lookup_batch(fd, inp, &out, keys, values, &n,
					   &opts);
		if (err == -ENOSPC && !n && chunk < KLP_MAX_HIT_KEYS) {
			chunk *= 2;	/* a bucket bigger than the chunk */
			continue;
		}
		if (err && err != -ENOENT)
			return err;
		for (i = 0; i < n; i++)
			add_hit(&keys[i], sum_values((char *)values +
						     (size_t)i * value_size * ncpus));
		if (err == -ENOENT)
			return 0;	/* that was the last batch */
		in = out;
		inp = &in;
	}
}

static int read_hits_iter(int fd)
{
	struct klp_hit_key key, next;
	void *prev = NULL;
	int err;

	if (grow_values(1))
		return -ENOMEM;
	while (!(err = bpf_map_get_next_key(fd, prev, &next))) {
		/* deleted meanwhile cannot happen: nothing deletes */
		if (!bpf_map_lookup_elem(fd, &next, values))
			add_hit(&next, sum_values(values));
		key = next;
		prev = &key;
	}
	return err == -ENOENT ? 0 : err;
}

static int read_hits(int fd)
{
	int err;

	nr_hits = 0;
	if (!no_batch) {
		err = read_hits_batch(fd);
		if (err != -EINVAL && err != -ENOTSUPP && err != -EOPNOTSUPP)
			return err;
		no_batch = true;	/* kernel without batch ops for this map */
		nr_hits = 0;
	}
	return read_hits_iter(fd);
}

/*
 * Read every counter, name its id (resyncing once for an id we do not
 * know) and add its growth since the last read to its func and function.
 */
static int update_counts(int fd)
{
	size_t i, j, nr_new = 0;
	int err;

	err = read_hits(fd);
	if (err) {
		fprintf(stderr, "klptop: cannot read the hits map: %s (%d)\n",
			strerror(-err), err);
		return err;
	}

	for (i = 0; i < nr_hits; i++) {
		unsigned int id = hits[i].key.id;

		if (id < KLP_MAX_HIT_KEYS && !by_id[id] && !unknown_tried[id]) {
			unknown_tried[id] = true;
			need_resync = true;
		}
	}
	if (need_resync) {
		err = resync();
		if (err)
			return err;
	}

	for (i = 0; i < nr_fns; i++) {
		fns[i]->hits_interval = 0;
		for (j = 0; j < fns[i]->nr_funcs; j++)
			fns[i]->funcs[j]->hits_interval = 0;
	}
	interval_unknown = 0;

	for (i = 0; i < nr_hits; i++) {
		struct kt_hit *h = &hits[i], *l;
		unsigned long long delta;
		struct kt_func *f;

		l = nr_last ? bsearch(h, last, nr_last, sizeof(*last), cmp_hit) :
			      NULL;
		if (l) {
			delta = h->sum >= l->sum ? h->sum - l->sum : 0;
			l->sum = h->sum;
		} else {
			delta = h->sum;
			nr_new++;
		}
		if (!delta)
			continue;
		f = h->key.id < KLP_MAX_HIT_KEYS ? by_id[h->key.id] : NULL;
		if (!f) {
			interval_unknown += delta;
			continue;
		}
		f->hits_interval += delta;
		f->hits_total += delta;
		f->fn->hits_interval += delta;
		f->fn->hits_total += delta;
	}
	if (nr_new) {
		/* this read holds every key (nothing deletes): it becomes last */
		struct kt_hit *n = realloc(last, nr_hits * sizeof(*n));

		if (!n)
			return -ENOMEM;
		memcpy(n, hits, nr_hits * sizeof(*n));
		qsort(n, nr_hits, sizeof(*n), cmp_hit);
		last = n;
		nr_last = nr_hits;
	}
	return 0;
}

/* --- output --------------------------------------------------------------- */

static bool fn_matches(const struct kt_fn *fn)
{
	unsigned int i;

	if (env.func && fnmatch(env.func, fn->name, 0))
		return false;
	if (!env.patch)
		return true;
	for (i = 0; i < fn->nr_funcs; i++)
		if (!fnmatch(env.patch, fn->funcs[i]->patch->name, 0))
			return true;
	return false;
}

static bool transition_matches(const struct kt_transition *t)
{
	if (env.patch && fnmatch(env.patch, t->patch, 0))
		return false;
	if (env.func && t->func[0] && fnmatch(env.func, t->func, 0))
		return false;
	return true;
}

static int cmp_name(const struct kt_fn *a, const struct kt_fn *b)
{
	int c = strcmp(a->object, b->object);

	return c ? c : strcmp(a->name, b->name);
}

static int cmp_u64_desc(unsigned long long a, unsigned long long b)
{
	return a < b ? 1 : a > b ? -1 : 0;
}

static int cmp_fn(const void *pa, const void *pb)
{
	const struct kt_fn *a = *(const struct kt_fn *const *)pa;
	const struct kt_fn *b = *(const struct kt_fn *const *)pb;
	int c = 0;

	switch (env.sort) {
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
	return c ? c : cmp_name(a, b);
}

/* The rows to show, sorted; returns how many. */
static size_t select_rows(struct kt_fn ***rows)
{
	struct kt_fn **r;
	size_t i, n = 0;

	r = calloc(nr_fns ? nr_fns : 1, sizeof(*r));
	if (!r) {
		fprintf(stderr, "klptop: out of memory\n");
		exit(1);
	}
	for (i = 0; i < nr_fns; i++)
		if (fn_matches(fns[i]))
			r[n++] = fns[i];
	qsort(r, n, sizeof(*r), cmp_fn);
	*rows = r;
	return n;
}

static unsigned int nr_patched_fns(void)
{
	unsigned int n = 0;
	size_t i;

	for (i = 0; i < nr_fns; i++)
		if (fns[i]->depth)
			n++;
	return n;
}

struct kt_totals {
	unsigned long long tick_ns;	/* CLOCK_MONOTONIC at the interval's end */
	unsigned long long hits;
	double rate;
	unsigned long long lost_hits;
	unsigned long long lost_events;
};

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

/* Fit s into width columns, marking a cut with '+'. */
static const char *fit(const char *s, int width, char *buf, size_t size)
{
	if ((int)strlen(s) <= width)
		return s;
	snprintf(buf, size, "%.*s+", width - 1, s);
	return buf;
}

static int col_width(struct kt_fn **rows, size_t n, int which, int min, int max)
{
	char below[512];
	int w = min, l = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		switch (which) {
		case 0:
			l = strlen(rows[i]->object);
			break;
		case 1:
			l = strlen(rows[i]->name);
			break;
		case 2:
			l = rows[i]->depth ? strlen(rows[i]->stack[0]->patch->name) :
					     (int)strlen("(original)");
			break;
		default:
			stack_below(rows[i], below, sizeof(below));
			l = strlen(below);
			break;
		}
		if (l > w)
			w = l;
	}
	return w > max ? max : w;
}

static bool paused;

static void print_screen(const struct kt_totals *tot)
{
	char ts[16], cut[4][KLP_FUNC_LEN + 2], below[512];
	int wo, wf, ww, ws;
	unsigned int en, dis;
	unsigned long long i, first, lo, shown;
	struct kt_fn **rows;
	size_t n, r;

	if (!env.noclear)
		printf("\033[H\033[2J");

	fmt_hms(tot->tick_ns, ts, sizeof(ts));
	if (env.nosummary) {
		printf("%s\n", ts);
	} else {
		count_patches(&en, &dis);
		printf("%s patches: %zu  enabled: %u  disabled: %u  functions: %u  hits/s: %.1f  sort: %s%s",
		       ts, nr_patches, en, dis, nr_patched_fns(), tot->rate,
		       sort_names[env.sort], paused ? "  [paused]" : "");
		if (tot->lost_hits || tot->lost_events)
			printf("  LOST hits: %llu events: %llu", tot->lost_hits,
			       tot->lost_events);
		printf("\n");
	}

	n = select_rows(&rows);
	wo = col_width(rows, n, 0, 6, 24);
	wf = col_width(rows, n, 1, 8, 32);
	ww = col_width(rows, n, 2, 6, 24);
	ws = col_width(rows, n, 3, 11, 40);
	printf("%-*s %-*s %-*s %5s %-*s %10s %10s %12s\n", wo, "OBJECT", wf,
	       "FUNCTION", ww, "WINNER", "DEPTH", ws, "STACK BELOW", "HITS",
	       "HITS/s", "TOTAL");
	for (r = 0; r < n && (int)r < env.rows; r++) {
		struct kt_fn *fn = rows[r];

		stack_below(fn, below, sizeof(below));
		printf("%-*s %-*s %-*s %5u %-*s %10llu %10.1f %12llu\n",
		       wo, fit(fn->object, wo, cut[0], sizeof(cut[0])),
		       wf, fit(fn->name, wf, cut[1], sizeof(cut[1])),
		       ww, fit(fn->depth ? fn->stack[0]->patch->name : "(original)",
			       ww, cut[2], sizeof(cut[2])),
		       fn->depth,
		       ws, fit(below, ws, cut[3], sizeof(cut[3])),
		       fn->hits_interval, fn->rate, fn->hits_total);
	}
	free(rows);
	printf("\n");

	/*
	 * A cleared screen shows the latest transitions; a scrolling one
	 * (-C, or not a tty) only the new ones, so nothing repeats.
	 */
	lo = tlog_n > KT_LOG_LEN ? tlog_n - KT_LOG_LEN : 0;
	if (env.noclear) {
		first = tlog_shown > lo ? tlog_shown : lo;
	} else {
		for (first = tlog_n, shown = 0;
		     first > lo && shown < KT_FOOTER_LINES; first--)
			if (transition_matches(&tlog[(first - 1) % KT_LOG_LEN]))
				shown++;
	}
	for (i = first; i < tlog_n; i++) {
		const struct kt_transition *t = &tlog[i % KT_LOG_LEN];

		if (!transition_matches(t))
			continue;
		fmt_hms(t->ts_ns, ts, sizeof(ts));
		printf("%s %s\n", ts, t->text);
	}
	if (first < tlog_n && env.noclear)
		printf("\n");
	tlog_shown = tlog_n;
	fflush(stdout);
}

/* A JSON string on stdout, escaped as klp-trace escapes it */
static void json_str(const char *s)
{
	json_put_str(stdout, s, strlen(s));
}

static const char *event_name(unsigned int type)
{
	static const char *const names[] = {
		[KLP_EV_PATCH_REGISTER] = "register",
		[KLP_EV_PATCH_UNREGISTER] = "unregister",
		[KLP_EV_PATCH_ENABLE] = "enable",
		[KLP_EV_PATCH_DISABLE] = "disable",
		[KLP_EV_FUNC_PUSH] = "push",
		[KLP_EV_FUNC_POP] = "pop",
		[KLP_EV_OBJECT] = "object",
		[KLP_EV_ENABLE_FAILED] = "enable_failed",
	};

	return type < ARRAY_SIZE(names) && names[type] ?
	       names[type] : "unknown";
}

static void json_func(const struct kt_fn *fn, const struct kt_func *f,
		      bool *first)
{
	int pos = stack_index(fn, f);

	printf("%s{\"patch\":", *first ? "" : ",");
	json_str(f->patch->name);
	printf(",\"id\":%u,\"pos\":%d,\"hits_interval\":%llu,\"hits_total\":%llu}",
	       f->id, pos + 1, f->hits_interval, f->hits_total);
	*first = false;
}

static void print_json(const struct kt_totals *tot, double elapsed)
{
	unsigned int en, dis, i;
	unsigned long long t, from;
	struct kt_fn **rows;
	bool first;
	char ts[16];
	size_t n, r;

	count_patches(&en, &dis);
	fmt_hms(tot->tick_ns, ts, sizeof(ts));
	printf("{\"time\":\"%s\",\"timestamp\":%.6f,\"interval\":%.3f,"
	       "\"summary\":{\"patches\":%zu,\"enabled\":%u,\"disabled\":%u,"
	       "\"functions\":%u,\"hits\":%llu,\"rate\":%.1f,"
	       "\"lost_hits\":%llu,\"lost_events\":%llu},\"rows\":[",
	       ts, (tot->tick_ns + realtime_off_ns) / 1e9, elapsed, nr_patches, en, dis,
	       nr_patched_fns(), tot->hits, tot->rate, tot->lost_hits,
	       tot->lost_events);

	n = select_rows(&rows);
	for (r = 0; r < n; r++) {
		struct kt_fn *fn = rows[r];

		printf("%s{\"object\":", r ? "," : "");
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
			if (stack_index(fn, fn->funcs[i]) < 0)
				json_func(fn, fn->funcs[i], &first);
		printf("]}");
	}
	free(rows);

	printf("],\"transitions\":[");
	from = tlog_shown;
	if (tlog_n > KT_LOG_LEN && from < tlog_n - KT_LOG_LEN)
		from = tlog_n - KT_LOG_LEN;
	first = true;
	for (t = from; t < tlog_n; t++) {
		const struct kt_transition *tr = &tlog[t % KT_LOG_LEN];

		if (!transition_matches(tr))
			continue;
		fmt_hms(tr->ts_ns, ts, sizeof(ts));
		printf("%s{\"time\":\"%s\",\"event\":\"%s\",\"patch\":",
		       first ? "" : ",", ts, event_name(tr->type));
		json_str(tr->patch);
		printf(",\"function\":");
		json_str(tr->func);
		printf(",\"ret\":%d,\"text\":", tr->ret);
		json_str(tr->text);
		printf("}");
		first = false;
	}
	tlog_shown = tlog_n;
	printf("]}\n");
	fflush(stdout);
}

/* --- terminal keys -------------------------------------------------------- */

static struct termios orig_tio;
static bool keys_on;

static void keys_restore(void)
{
	if (keys_on)
		tcsetattr(STDIN_FILENO, TCSANOW, &orig_tio);
	keys_on = false;
}

/*
 * Keys only for a foreground process on a terminal: changing the
 * terminal from the background would stop us with SIGTTOU.
 */
static void keys_setup(void)
{
	struct termios tio;

	if (!isatty(STDIN_FILENO) || tcgetpgrp(STDIN_FILENO) != getpgrp())
		return;
	if (tcgetattr(STDIN_FILENO, &orig_tio))
		return;
	tio = orig_tio;
	tio.c_lflag &= ~(ICANON | ECHO);
	tio.c_cc[VMIN] = 1;
	tio.c_cc[VTIME] = 0;
	if (tcsetattr(STDIN_FILENO, TCSANOW, &tio))
		return;
	keys_on = true;
	atexit(keys_restore);
}

/* --- main ----------------------------------------------------------------- */

static int check_environment(void)
{
	if (access(KLP_SYSFS_ROOT, F_OK)) {
		fprintf(stderr, "klptop: the klp core is not loaded (%s missing): load it first, e.g. insmod core/klp.ko\n",
			KLP_SYSFS_ROOT);
		return -1;
	}
	if (access(BTF_VMLINUX, R_OK)) {
		fprintf(stderr, "klptop: this kernel has no BTF (%s missing): klptop's CO-RE BPF program needs a kernel built with CONFIG_DEBUG_INFO_BTF=y\n",
			BTF_VMLINUX);
		return -1;
	}
	return 0;
}

static void explain_bpf_error(const char *what, int err)
{
	if (err == -EPERM || err == -EACCES) {
		fprintf(stderr, "klptop: not allowed to %s (%s): klptop needs root, or CAP_BPF and CAP_PERFMON (CAP_SYS_ADMIN before 5.8)\n",
			what, strerror(-err));
		return;
	}
	if (err == -ENOENT) {
		fprintf(stderr, "klptop: cannot %s: the klp:* tracepoints were not found (is klp.ko loaded and tracefs mounted at /sys/kernel/tracing?)\n",
			what);
		return;
	}
	fprintf(stderr, "klptop: cannot %s: %s (%d)\n", what, strerror(-err), err);
}

static unsigned long long last_tick_ns;

/*
 * End of an interval at tick (CLOCK_MONOTONIC): take in the events
 * submitted up to now, then the counters.  A JSON "timestamp" is this
 * tick, so a transition done before it is always in that object.
 */
static int refresh(struct ring_buffer *rb, int hits_fd,
		   struct klptop_bpf *skel, unsigned long long tick, bool print)
{
	static unsigned long long lost_events_seen;
	double elapsed = (double)(tick - last_tick_ns) / NSEC_PER_SEC;
	struct kt_totals tot = { .tick_ns = tick };
	size_t i;
	int err;

	err = ring_buffer__consume(rb);
	if (err < 0 && err != -EINTR) {
		fprintf(stderr, "klptop: reading the ring buffer: %s (%d)\n",
			strerror(-err), err);
		return err;
	}
	last_tick_ns = tick;
	tot.lost_events = __atomic_load_n(&skel->bss->lost_events, __ATOMIC_RELAXED);
	tot.lost_hits = __atomic_load_n(&skel->bss->lost_hits, __ATOMIC_RELAXED);
	if (tot.lost_events != lost_events_seen) {
		/*
		 * The ring buffer overflowed: only the core's state file
		 * knows the stacks now, and what ends the pending pushes and
		 * pops may be lost.
		 */
		lost_events_seen = tot.lost_events;
		log_orphans();
		need_resync = true;
	}
	if (need_resync) {
		err = resync();
		if (err)
			return err;
	}

	err = update_counts(hits_fd);
	if (err)
		return err;	/* it said why */
	tot.hits = interval_unknown;
	for (i = 0; i < nr_fns; i++) {
		fns[i]->rate = elapsed > 0 ? fns[i]->hits_interval / elapsed : 0;
		tot.hits += fns[i]->hits_interval;
	}
	tot.rate = elapsed > 0 ? tot.hits / elapsed : 0;

	if (!print)
		return 0;
	if (env.json)
		print_json(&tot, elapsed);
	else
		print_screen(&tot);
	return 0;
}

/* Redraw after a key, with the last interval's numbers. */
static void redraw(void)
{
	struct kt_totals tot = { .tick_ns = last_tick_ns };
	size_t i;

	if (env.json)
		return;
	for (i = 0; i < nr_fns; i++)
		tot.hits += fns[i]->hits_interval;
	tot.rate = 0;
	for (i = 0; i < nr_fns; i++)
		tot.rate += fns[i]->rate;
	print_screen(&tot);
}

/* Returns true to quit. */
static bool handle_key(void)
{
	char c;

	if (read(STDIN_FILENO, &c, 1) != 1)
		return false;
	switch (c) {
	case 'q':
	case 'Q':
		return true;
	case 's':
		env.sort = (env.sort + 1) % KT_NR_SORTS;
		redraw();
		break;
	case 'p':
		paused = !paused;
		redraw();
		break;
	default:
		break;
	}
	return false;
}

int main(int argc, char **argv)
{
	static const struct argp argp = {
		.options = opts,
		.parser = parse_arg,
		.doc = argp_program_doc,
	};
	struct ring_buffer *rb = NULL;
	struct klptop_bpf *skel;
	struct sigaction sa = {};
	unsigned long long next, now;
	struct pollfd pfd[2];
	int err, hits_fd, printed = 0, nfds;

	err = argp_parse(&argp, argc, argv, 0, NULL, NULL);
	if (err)
		return err;
	if (!isatty(STDOUT_FILENO))
		env.noclear = true;

	libbpf_set_print(libbpf_print_fn);
	if (check_environment())
		return 1;

	ncpus = libbpf_num_possible_cpus();
	if (ncpus < 0) {
		fprintf(stderr, "klptop: cannot count the possible CPUs: %s\n",
			strerror(-ncpus));
		return 1;
	}
	value_size = (sizeof(__u64) + 7) & ~7UL;	/* round_up(value_size, 8) */
	realtime_off_ns = now_ns(CLOCK_REALTIME) - now_ns(CLOCK_MONOTONIC);

	skel = klptop_bpf__open();
	if (!skel) {
		explain_bpf_error("open the BPF object", -errno);
		return 1;
	}
	err = klptop_bpf__load(skel);
	if (err) {
		explain_bpf_error("load the BPF programs", err);
		goto cleanup;
	}
	err = klptop_bpf__attach(skel);
	if (err) {
		explain_bpf_error("attach to the klp tracepoints", err);
		goto cleanup;
	}
	rb = ring_buffer__new(bpf_map__fd(skel->maps.events), handle_event,
			      NULL, NULL);
	if (!rb) {
		err = -errno;
		explain_bpf_error("set up the ring buffer", err);
		goto cleanup;
	}
	hits_fd = bpf_map__fd(skel->maps.hits);

	/*
	 * Attached first: the snapshot's seq then says which of the events
	 * to come it already contains.
	 */
	err = resync();
	if (err)
		goto cleanup;

	sa.sa_handler = sig_handler;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	keys_setup();

	pfd[0].fd = ring_buffer__epoll_fd(rb);
	pfd[0].events = POLLIN;
	pfd[1].fd = STDIN_FILENO;
	pfd[1].events = POLLIN;
	nfds = keys_on ? 2 : 1;

	last_tick_ns = now_ns(CLOCK_MONOTONIC);
	next = last_tick_ns + env.interval * NSEC_PER_SEC;
	while (!exiting) {
		int timeout_ms, ret;

		now = now_ns(CLOCK_MONOTONIC);
		if (now >= next) {
			err = refresh(rb, hits_fd, skel, now, !paused);
			if (err)
				break;
			next += env.interval * NSEC_PER_SEC;
			if (next <= now)	/* we were stopped: don't catch up */
				next = now + env.interval * NSEC_PER_SEC;
			if (!paused && env.count && ++printed >= env.count)
				break;
			continue;
		}
		timeout_ms = (next - now + 999999) / 1000000;
		ret = poll(pfd, nfds, timeout_ms);
		if (ret < 0) {
			if (errno == EINTR)
				continue;	/* a signal: exiting is set */
			err = -errno;
			fprintf(stderr, "klptop: poll: %s\n", strerror(errno));
			break;
		}
		if (pfd[0].revents) {
			err = ring_buffer__consume(rb);
			if (err < 0 && err != -EINTR) {
				fprintf(stderr, "klptop: reading the ring buffer: %s (%d)\n",
					strerror(-err), err);
				break;
			}
			err = 0;
		}
		if (nfds > 1 && (pfd[1].revents & POLLIN) && handle_key())
			break;
		if (nfds > 1 && (pfd[1].revents & (POLLHUP | POLLERR)))
			nfds = 1;	/* terminal gone: no more keys */
	}
	if (err > 0)
		err = 0;

cleanup:
	keys_restore();
	ring_buffer__free(rb);
	klptop_bpf__destroy(skel);
	return err ? 1 : 0;
}
