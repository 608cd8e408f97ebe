// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * klptop - live dashboard of the klp live patching core
 *
 * For every patched function: the patch that wins it, the func_stack below
 * the winner, and how many calls were redirected, in the last interval and
 * since start.  The stacks come from the core's state file at start and then
 * from the core's transition events (BPF ring buffer); the counts from
 * per-CPU BPF counters on klp:klp_redirect (klp's source, source_klp.h);
 * the kernel's builtin livepatch is a source too (source_livepatch.h).
 * This file holds the options, the sources opened, the refresh loop and
 * the keys; klptop.h names the other rooms.
 *
 * Layout after bcc's libbpf-tools *top tools.
 */
#include <argp.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "klptop.h"
#include "source_klp.h"
#include "source_livepatch.h"
#include "strbuf.h"

/* The whole of klptop's state, passed around. */
struct klptop {
	struct kt_view view;
	bool json;
	bool verbose;
	int interval;			/* seconds */
	int count;			/* intervals; 0: until q or a signal */
	struct model model;
	struct model_log log;
	bool klp;			/* the klp core is loaded: its source on */
	struct klp_source src;		/* the klp core */
	struct lp_source lp;		/* the kernel's builtin livepatch */
	unsigned long long last_tick_ns;
	struct kt_tty tty;
	struct strbuf json_out;		/* --json: a line, reused */
};

/* Process-wide by nature: what a signal handler sets. */
static volatile sig_atomic_t exiting;

const char *argp_program_version = "klptop 0.1";
const char argp_program_doc[] =
"Live view of klp live patches: for each patched function the winning\n"
"patch, the func_stack below it and the redirected calls.\n"
"\n"
"USAGE: klptop [-h] [-C] [-S] [-r ROWS] [-s SORT] [-p PATCH] [-f FUNC]\n"
"              [--json] [--once] [-v] [interval] [count]\n"
"\n"
"SORT is rate (default), total, name or depth.  PATCH and FUNC are shell\n"
"patterns.  On a terminal klptop fits the terminal and follows its size;\n"
"keys: q quits, s cycles the sort, p pauses, / filters, arrows and\n"
"PgUp/PgDn (or j, k) scroll, h or ? lists every key.\n"
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

/* A number in [min, max] for what, or the usage message and exit. */
static long number_arg(struct argp_state *state, const char *what,
		       const char *arg, long min, long max)
{
	long v = min;

	if (parse_long(arg, min, max, &v)) {
		fprintf(stderr, "invalid %s: %s\n", what, arg);
		argp_usage(state);
	}
	return v;
}

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	struct klptop *k = state->input;
	int i;

	switch (key) {
	case 'h':
		argp_state_help(state, stdout, ARGP_HELP_STD_HELP);	/* as --help */
		break;
	case 'C':
		k->view.noclear = true;
		break;
	case 'S':
		k->view.nosummary = true;
		break;
	case 'r':
		k->view.rows = number_arg(state, "rows", arg, 1, 100000);
		k->view.rows_given = true;
		break;
	case 's':
		for (i = 0; i < KT_NR_SORTS; i++)
			if (!strcmp(arg, kt_sort_names[i]))
				break;
		if (i == KT_NR_SORTS) {
			fprintf(stderr, "invalid sort: %s (rate, total, name, depth)\n", arg);
			argp_usage(state);
		}
		k->view.sort = i;
		break;
	case 'p':
		k->view.patch = arg;
		break;
	case 'f':
		k->view.func = arg;
		break;
	case 'i':
		k->interval = number_arg(state, "interval", arg, 1, 86400);
		break;
	case OPT_JSON:
		k->json = true;
		break;
	case OPT_ONCE:
		k->count = 1;
		break;
	case 'v':
		k->verbose = true;
		break;
	case ARGP_KEY_ARG:
		if (state->arg_num == 0) {
			k->interval = number_arg(state, "interval", arg, 1, 86400);
		} else if (state->arg_num == 1) {
			k->count = number_arg(state, "count", arg, 1, 1000000000);
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

static void sig_handler(int sig)
{
	exiting = 1;
}

static unsigned long long now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec * MODEL_NSEC_PER_SEC + ts.tv_nsec;
}

/* --- the sources ---------------------------------------------------------- */

/* A transition event of the klp core, to the event applier. */
static int handle_event(void *ctx, void *data, size_t size)
{
	struct klptop *k = ctx;

	if (size >= sizeof(struct klp_transition_event))
		klp_event_apply(&k->model, &k->log, data);
	return 0;
}

/* --- the refresh loop ------------------------------------------------------ */

static void print(struct klptop *k, const struct kt_totals *tot)
{
	if (k->json)
		kt_print_json(&k->view, &k->model, &k->log, tot, &k->json_out);
	else
		kt_print_screen(&k->view, &k->model, &k->log, tot);
}

/*
 * End of an interval at tick (CLOCK_MONOTONIC): take in the events
 * submitted up to now, then the counters.  A JSON "timestamp" is this
 * tick, so a transition done before it is always in that object.
 */
static int refresh(struct klptop *k, unsigned long long tick, bool show)
{
	struct kt_totals tot = { .tick_ns = tick };
	int err;

	model_interval_start(&k->model);	/* with or without klp's source */
	err = k->klp ? klp_source_update(&k->src, &k->model) : 0;
	if (err)
		return err;	/* it said why */
	tot.elapsed = (double)(tick - k->last_tick_ns) / MODEL_NSEC_PER_SEC;
	k->last_tick_ns = tick;
	err = lp_source_update(&k->lp, &k->model, &k->log);
	if (err)
		return err;
	tot.lost_events = k->klp ? klp_source_lost_events(&k->src) : 0;
	tot.lost_hits = k->klp ? klp_source_lost_hits(&k->src) : 0;
	tot.lost_hits += lp_source_lost_hits(&k->lp);
	tot.lost_events += lp_source_lost_events(&k->lp);
	kt_interval_totals(&k->model,
			   k->klp ? k->src.counters.interval_unknown : 0, &tot);
	if (show)
		print(k, &tot);
	return 0;
}

/* Redraw after a key or a resize, with the last interval's numbers. */
static void redraw(struct klptop *k)
{
	struct kt_totals tot = { .tick_ns = k->last_tick_ns };
	size_t i;

	if (k->json)
		return;
	for (i = 0; i < k->model.nr_fns; i++) {
		tot.hits += k->model.fns[i]->hits_interval;
		tot.rate += k->model.fns[i]->rate;
	}
	print(k, &tot);
}

/* A SIGWINCH: the terminal's new size, the screen drawn for it. */
static void resized(struct klptop *k)
{
	if (!kt_tty_resized() || !k->view.term_rows)
		return;
	kt_tty_size(&k->tty, &k->view.term_rows, &k->view.term_cols);
	redraw(k);
}

static int run(struct klptop *k)
{
	unsigned long long step = k->interval * MODEL_NSEC_PER_SEC, next, now;
	struct pollfd pfd[2] = {
		{ .fd = k->klp ? klp_source_events_fd(&k->src) : -1, .events = POLLIN },
		{ .fd = STDIN_FILENO, .events = POLLIN },
	};
	int err = 0, printed = 0, nfds = k->tty.keys ? 2 : 1;
	enum kt_action act;

	k->last_tick_ns = now_ns(CLOCK_MONOTONIC);
	next = k->last_tick_ns + step;
	while (!exiting) {
		struct timespec timeout;
		int ret;

		resized(k);
		now = now_ns(CLOCK_MONOTONIC);
		if (now >= next) {
			err = refresh(k, now, !k->view.paused);
			if (err)
				break;
			next += step;
			if (next <= now)	/* we were stopped: don't catch up */
				next = now + step;
			if (!k->view.paused && k->count && ++printed >= k->count)
				break;
			continue;
		}
		timeout.tv_sec = (next - now) / MODEL_NSEC_PER_SEC;
		timeout.tv_nsec = (next - now) % MODEL_NSEC_PER_SEC;
		ret = ppoll(pfd, nfds, &timeout, &k->tty.waitmask);
		if (ret < 0) {
			if (errno == EINTR)
				continue;	/* a signal: exiting or resized */
			err = -errno;
			fprintf(stderr, "klptop: poll: %s\n", strerror(errno));
			break;
		}
		if (pfd[0].revents) {
			err = klp_source_consume(&k->src);
			if (err)
				break;
		}
		if (nfds > 1 && (pfd[1].revents & POLLIN)) {
			act = kt_view_input(&k->view, &k->tty, !k->json);
			if (act == KT_ACT_QUIT)
				break;
			if (act == KT_ACT_REDRAW)
				redraw(k);
		}
		if (nfds > 1 && (pfd[1].revents & (POLLHUP | POLLERR)))
			nfds = 1;	/* terminal gone: no more keys */
	}
	return err;
}

int main(int argc, char **argv)
{
	static const struct argp argp = {
		.options = opts,
		.parser = parse_arg,
		.doc = argp_program_doc,
	};
	struct sigaction sa = { .sa_handler = sig_handler };
	struct klptop *k;
	int err;

	k = xrealloc(NULL, 1, sizeof(*k));
	memset(k, 0, sizeof(*k));
	k->view.rows = 20;
	k->view.sort = KT_SORT_RATE;
	k->interval = 1;
	err = argp_parse(&argp, argc, argv, 0, NULL, k);
	if (err)
		return err;
	if (!isatty(STDOUT_FILENO))
		k->view.noclear = true;
	if (!k->view.noclear && !k->json)	/* a top, fitted to the terminal */
		kt_tty_size(&k->tty, &k->view.term_rows, &k->view.term_cols);
	if (k->verbose)
		libbpf_set_print(klp_bpf_print_all);
	/* without the klp core, the builtin livepatch alone if it has a patch */
	k->klp = !access(KLP_SYSFS_ROOT, F_OK) || !lp_sysfs_has_patches();
	if (k->klp && klp_bpf_check_environment())
		return 1;
	if (!k->klp)
		fprintf(stderr, "klptop: the klp core is not loaded (%s missing): the builtin livepatch's patches only\n",
			KLP_SYSFS_ROOT);
	k->view.realtime_off_ns = now_ns(CLOCK_REALTIME) - now_ns(CLOCK_MONOTONIC);

	/*
	 * Attached first: the state file's seq then says which of the
	 * events to come it already contains.
	 */
	err = k->klp ? klp_source_open(&k->src, handle_event, k, KLP_SOURCE_CALLS) : 0;
	if (!err && k->klp)
		err = klp_model_resync(&k->model);
	if (!err) {
		err = lp_source_open(&k->lp, true);
		/* it said why; klp's patches are still there to show */
		if (err && k->klp) {
			fprintf(stderr, "klptop: the builtin livepatch's patches are not shown, klp's are\n");
			err = 0;
		}
	}
	if (!err)
		err = lp_source_update(&k->lp, &k->model, &k->log);
	if (!err) {
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
		kt_tty_setup(&k->tty, k->view.term_rows);
		err = run(k);
	}

	kt_tty_restore();
	lp_source_close(&k->lp);
	klp_source_close(&k->src);
	model_free(&k->model);
	sb_free(&k->json_out);
	free(k);
	return err ? 1 : 0;
}
