// SPDX-License-Identifier: GPL-2.0
/*
 * klp-trace - follow the klp:* tracepoints of the klp live patching core
 *
 * The events are enabled in a private tracefs instance,
 * instances/klp-trace.<pid> (klp-trace_instance.c), and read from its
 * per-CPU raw buffers.  However it ends (-c, -t, SIGINT, SIGTERM, SIGHUP
 * when its terminal goes away, a closed pipe or another output error),
 * the events are disabled and the instance is removed.  libtraceevent
 * parses each event's format file (klp-trace_format.c prints each record
 * from it).
 */
#include <argp.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <tracefs.h>
#include <event-parse.h>

#include "json.h"
#include "klp-trace.h"
#include "seqorder.h"

#define KLP_REDIRECT		"klp_redirect"
#define MAX_EVENTS		32
#define POLL_NS			100000000ULL	/* 100 ms between buffer reads */
#define NSEC_PER_SEC		1000000000ULL

const char *argp_program_version = "klp-trace 0.1";
static const char argp_program_doc[] =
"Follow the klp:* tracepoints of the klp live patching core.\n"
"\n"
"One line per event: timestamp (CLOCK_MONOTONIC seconds), [CPU], task-pid,\n"
"event name and its fields as name=value; addresses print as symbols.\n"
"State changes print in the core's order (their seq), even when read from\n"
"several CPUs' buffers.\n"
"Reads a private tracefs instance, so other tracefs users are not disturbed.\n"
"\n"
"USAGE: klp-trace [-e EVENT]... [--no-redirect] [--json] [-c COUNT] [-t SECONDS]\n"
"\n"
"EXAMPLES:\n"
"    klp-trace                      # every klp event until Ctrl-C\n"
"    klp-trace --no-redirect        # state changes only, not every patched call\n"
"    klp-trace -e klp_func_push -e klp_func_pop   # func_stack changes only\n"
"    klp-trace -e klp_redirect -c 100   # the next 100 redirected calls\n"
"    klp-trace --json -t 10         # one JSON object per event, for 10 seconds\n";

enum {
	OPT_NO_REDIRECT = 256,
};

static const struct argp_option opts[] = {
	{ "event", 'e', "EVENT", 0,
	  "Trace only EVENT (klp_func_push or klp:klp_func_push); repeatable", 0 },
	{ "no-redirect", OPT_NO_REDIRECT, NULL, 0,
	  "Leave out klp_redirect, which fires on every patched call", 0 },
	{ "json", 'j', NULL, 0, "Print one JSON object per line", 0 },
	{ "count", 'c', "COUNT", 0, "Exit after COUNT events", 0 },
	{ "duration", 't', "SECONDS", 0, "Exit after SECONDS seconds", 0 },
	{ NULL, 'h', NULL, OPTION_HIDDEN, "Show the full help", 0 },
	{ 0 },
};

struct env {
	const char *events[MAX_EVENTS];
	int nr_events;
	bool no_redirect;
	bool json;
	long count;
	long duration;
};

/* The whole of klp-trace's state, passed around. */
struct klp_trace {
	struct env env;
	struct tep_handle *tep;
	struct klp_ksyms ksyms;
	struct ev_format fmt;
	struct trace_instance ti;
	struct ev_info evs[MAX_EVENTS];
	int nr_evs;
	unsigned long long deadline_ns;	/* -t, CLOCK_MONOTONIC; 0: none */
	long printed;
	struct seq_order order;		/* transitions in the core's order */
	bool done;
	bool cmdlines_reloaded;
};

/* What the signal handler sets: the signal, and when it came. */
static volatile sig_atomic_t exiting;
static volatile unsigned long long signal_ns;

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

static void sig_handler(int sig)
{
	/* clock_gettime() is async-signal-safe: events up to now still print. */
	signal_ns = now_ns();
	exiting = sig;
}

static long parse_positive(const char *arg, const char *what,
			   struct argp_state *state)
{
	char *end;
	long val;

	errno = 0;
	val = strtol(arg, &end, 10);
	if (errno || end == arg || *end || val <= 0) {
		fprintf(stderr, "klp-trace: invalid %s: %s\n", what, arg);
		argp_usage(state);
	}
	return val;
}

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	struct klp_trace *t = state->input;

	switch (key) {
	case 'e':
		if (t->env.nr_events == MAX_EVENTS) {
			fprintf(stderr, "klp-trace: at most %d -e\n", MAX_EVENTS);
			argp_usage(state);
		}
		if (!strncmp(arg, KLP_SYSTEM ":", strlen(KLP_SYSTEM) + 1))
			arg += strlen(KLP_SYSTEM) + 1;
		t->env.events[t->env.nr_events++] = arg;
		break;
	case OPT_NO_REDIRECT:
		t->env.no_redirect = true;
		break;
	case 'j':
		t->env.json = true;
		break;
	case 'c':
		t->env.count = parse_positive(arg, "count", state);
		break;
	case 't':
		t->env.duration = parse_positive(arg, "duration", state);
		/* keeps the deadline in nanoseconds from overflowing */
		if (t->env.duration > INT_MAX) {
			fprintf(stderr, "klp-trace: duration too long: %s\n", arg);
			argp_usage(state);
		}
		break;
	case 'h':		/* as --help: to stdout, exit 0 */
		argp_state_help(state, stdout, ARGP_HELP_STD_HELP);
		break;
	case ARGP_KEY_ARG:
		fprintf(stderr, "klp-trace: unexpected argument: %s\n", arg);
		argp_usage(state);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* --- events ----------------------------------------------------------- */
static int add_event(struct klp_trace *t, struct tep_event *event)
{
	int i;

	for (i = 0; i < t->nr_evs; i++)
		if (t->evs[i].event == event)
			return 0;
	if (t->nr_evs == MAX_EVENTS) {
		fprintf(stderr, "klp-trace: more than %d klp events\n", MAX_EVENTS);
		return -1;
	}
	if (ev_info_init(&t->evs[t->nr_evs], event)) {
		fprintf(stderr, "klp-trace: out of memory\n");
		return -1;
	}
	t->nr_evs++;
	return 0;
}

static int select_events(struct klp_trace *t)
{
	struct tep_event **all, *event;
	int i;

	for (i = 0; i < t->env.nr_events; i++) {
		if (t->env.no_redirect && !strcmp(t->env.events[i], KLP_REDIRECT))
			continue;
		event = tep_find_event_by_name(t->tep, KLP_SYSTEM, t->env.events[i]);
		if (!event) {
			fprintf(stderr, "klp-trace: no event %s:%s (see %s/events/%s)\n",
				KLP_SYSTEM, t->env.events[i], tracefs_tracing_dir(),
				KLP_SYSTEM);
			return -1;
		}
		if (add_event(t, event))
			return -1;
	}

	if (!t->env.nr_events) {
		all = tep_list_events(t->tep, TEP_EVENT_SORT_ID);
		for (i = 0; all && all[i]; i++) {
			event = all[i];
			if (strcmp(event->system, KLP_SYSTEM))
				continue;
			if (t->env.no_redirect && !strcmp(event->name, KLP_REDIRECT))
				continue;
			if (add_event(t, event))
				return -1;
		}
	}

	if (!t->nr_evs) {
		fprintf(stderr, "klp-trace: no events selected\n");
		return -1;
	}
	return 0;
}

static struct ev_info *find_info(struct klp_trace *t, struct tep_event *event)
{
	int i;

	for (i = 0; i < t->nr_evs; i++)
		if (t->evs[i].event == event)
			return &t->evs[i];
	return NULL;
}

/*
 * Tasks started after us are unknown until saved_cmdlines is reread (once
 * per buffer read), and that learns a task's name only when it is
 * switched out; a task still running has it in /proc.
 */
static const char *task_comm(struct klp_trace *t, int pid)
{
	char path[64], comm[64];
	FILE *f;

	if (!pid || tep_is_pid_registered(t->tep, pid))
		return tep_data_comm_from_pid(t->tep, pid);
	if (!t->cmdlines_reloaded) {
		tracefs_load_cmdlines(NULL, t->tep);
		t->cmdlines_reloaded = true;
		if (tep_is_pid_registered(t->tep, pid))
			return tep_data_comm_from_pid(t->tep, pid);
	}
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	f = fopen(path, "re");
	if (f) {
		if (fgets(comm, sizeof(comm), f)) {
			comm[strcspn(comm, "\n")] = '\0';
			tep_register_comm(t->tep, comm, pid);
		}
		fclose(f);
	}
	return tep_data_comm_from_pid(t->tep, pid);
}

/* Past the end of the trace: after -t's deadline or after the signal. */
static bool past_end(const struct klp_trace *t, unsigned long long ts)
{
	unsigned long long end = t->deadline_ns;

	if (!t->ti.mono_clock)
		return exiting || (t->deadline_ns && now_ns() >= t->deadline_ns);
	if (exiting && (!end || signal_ns < end))
		end = signal_ns;
	return end && ts > end;
}

/* One record printed, in the core's order: count it against -c. */
static int emit_record(const char *text, size_t len, void *ctx)
{
	struct klp_trace *t = ctx;

	if (t->done)
		return 1;
	fwrite(text, 1, len, stdout);
	if (t->env.count && ++t->printed >= t->env.count) {
		t->done = true;
		return 1;
	}
	return 0;
}

static int handle_record(struct tep_event *event, struct tep_record *rec,
			 int cpu, void *ctx)
{
	struct klp_trace *t = ctx;
	struct ev_info *ei = find_info(t, event);
	unsigned long long seq = 0;
	bool has_seq;
	const char *comm;
	size_t len;
	char *text;
	FILE *out;
	int pid;

	if (ferror(stdout) || past_end(t, rec->ts)) {
		t->done = true;
		return 1;
	}
	if (!ei)
		return 0;

	if (rec->missed_events) {
		if (rec->missed_events > 0)
			fprintf(stderr, "klp-trace: CPU %d: %lld events lost\n",
				cpu, rec->missed_events);
		else
			fprintf(stderr, "klp-trace: CPU %d: events lost\n", cpu);
		/* the numbers the lost ones carried will never come */
		if (seq_order_flush(&t->order))
			return 1;
	}

	out = open_memstream(&text, &len);
	if (!out) {
		fprintf(stderr, "klp-trace: out of memory\n");
		t->done = true;
		return 1;
	}
	pid = tep_data_pid(t->tep, rec);
	comm = task_comm(t, pid);
	if (t->env.json) {
		fprintf(out, "{\"ts\":%llu.%09llu,\"cpu\":%d,\"pid\":%d,\"comm\":",
			rec->ts / NSEC_PER_SEC, rec->ts % NSEC_PER_SEC, cpu, pid);
		json_put_str(out, comm, strlen(comm));
		fprintf(out, ",\"event\":\"%s\"", event->name);
	} else {
		fprintf(out, "%llu.%06llu [%03d] %s-%d %s:",
			rec->ts / NSEC_PER_SEC, rec->ts % NSEC_PER_SEC / 1000,
			cpu, comm, pid, event->name);
	}
	ev_print_fields(out, &t->fmt, ei, rec);
	fputs(t->env.json ? "}\n" : "\n", out);
	if (fclose(out)) {
		free(text);
		fprintf(stderr, "klp-trace: out of memory\n");
		t->done = true;
		return 1;
	}

	has_seq = ei->seq && !tep_read_number_field(ei->seq, rec->data, &seq);
	if (seq_order_put(&t->order, has_seq, seq, text, len)) {
		t->done = true;
		return 1;
	}
	return 0;
}

/* --- setup and teardown ------------------------------------------------ */

static void cleanup(struct klp_trace *t)
{
	int i;

	ti_destroy(&t->ti, t->evs, t->nr_evs);
	for (i = 0; i < t->nr_evs; i++)
		ev_info_free(&t->evs[i]);
	t->nr_evs = 0;
	if (t->tep)
		tep_free(t->tep);
	t->tep = NULL;
	klp_ksyms_free(&t->ksyms);
	seq_order_free(&t->order);
}

/*
 * With every transition event traced, print them in the core's order:
 * those numbered after the core's last seq now are all still to come.
 */
static int setup_order(struct klp_trace *t)
{
	unsigned long long last = 0;
	bool on = !t->env.nr_events;
	int err;

	if (on) {
		err = seq_order_read_last(&last);
		if (err) {
			fprintf(stderr, "klp-trace: cannot read debugfs klp/seq (%s): events print in timestamp order\n",
				strerror(-err));
			on = false;
		}
	}
	seq_order_init(&t->order, on, last, emit_record, t);
	return 0;
}

static void wait_next(const struct klp_trace *t)
{
	unsigned long long wait = POLL_NS, now;
	struct timespec ts;

	if (t->deadline_ns) {
		now = now_ns();
		if (now >= t->deadline_ns)
			return;
		if (t->deadline_ns - now < wait)
			wait = t->deadline_ns - now;
	}
	ts.tv_sec = wait / NSEC_PER_SEC;
	ts.tv_nsec = wait % NSEC_PER_SEC;
	/* a signal cuts the sleep short: the loop then drains and exits */
	nanosleep(&ts, NULL);
}

/*
 * 0 on success; stdout going away is a normal end too: a closed pipe
 * (EPIPE), or the terminal that hung up (EIO after SIGHUP)
 */
static int flush_output(struct klp_trace *t)
{
	if (fflush(stdout) == 0 && !ferror(stdout))
		return 0;
	t->done = true;
	if (errno == EPIPE || (errno == EIO && exiting == SIGHUP))
		return 0;
	fprintf(stderr, "klp-trace: writing output: %s\n", strerror(errno));
	return -1;
}

/* Read the buffers until -c, -t, a signal or the end of stdout. */
static int trace_loop(struct klp_trace *t)
{
	bool last;

	while (!t->done) {
		/* the read after a signal or the deadline drains the buffers */
		last = exiting || (t->deadline_ns && now_ns() >= t->deadline_ns);
		t->cmdlines_reloaded = false;
		if (tracefs_iterate_raw_events(t->tep, t->ti.tfs, NULL, 0,
					       handle_record, t) < 0) {
			fprintf(stderr, "klp-trace: reading the trace buffers: %s\n",
				strerror(errno));
			return -1;
		}
		/* the end: nothing held can be completed any more */
		if (last && !t->done)
			seq_order_flush(&t->order);
		if (flush_output(t))
			return -1;
		if (last)
			break;
		wait_next(t);
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const char * const systems[] = { KLP_SYSTEM, NULL };
	static const struct argp argp = {
		.options = opts,
		.parser = parse_arg,
		.doc = argp_program_doc,
	};
	struct sigaction sa = { .sa_handler = sig_handler };
	struct klp_trace *t;
	int err;

	t = calloc(1, sizeof(*t));
	if (!t) {
		fprintf(stderr, "klp-trace: out of memory\n");
		return 1;
	}
	err = argp_parse(&argp, argc, argv, 0, NULL, t);
	if (err)
		goto out;
	err = 1;
	if (ti_check_tracefs())
		goto out;

	t->tep = tracefs_local_events_system(NULL, systems);
	if (!t->tep) {
		fprintf(stderr, "klp-trace: cannot read the klp event formats from %s\n",
			tracefs_tracing_dir());
		goto out;
	}
	t->fmt.tep = t->tep;
	t->fmt.ksyms = &t->ksyms;
	t->fmt.json = t->env.json;

	/*
	 * No SA_RESTART: a signal must end the sleep between reads.  SIGHUP
	 * is the terminal going away (a closed ssh session or tmux pane):
	 * it ends the trace as Ctrl-C does, so the instance goes away.
	 */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	/* a closed pipe shows up as EPIPE, so the instance still goes away */
	signal(SIGPIPE, SIG_IGN);

	if (select_events(t) || ti_create(&t->ti, t->evs, t->nr_evs) ||
	    setup_order(t))
		goto out;
	if (t->env.duration)
		t->deadline_ns = now_ns() + t->env.duration * NSEC_PER_SEC;
	fprintf(stderr, "Tracing %d klp event%s... Hit Ctrl-C to end.\n",
		t->nr_evs, t->nr_evs == 1 ? "" : "s");
	err = trace_loop(t) ? 1 : 0;
out:
	cleanup(t);
	free(t);
	return err;
}
