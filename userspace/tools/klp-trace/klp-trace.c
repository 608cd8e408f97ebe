// SPDX-License-Identifier: GPL-2.0
/*
 * klp-trace - follow the klp:* tracepoints of the klp live patching core,
 * and the same state changes of the kernel's builtin livepatch
 *
 * The events are enabled in a private tracefs instance,
 * instances/klp-trace.<pid>.<start> (klp-trace_instance.c), and read from
 * its per-CPU raw buffers.  However it ends (-c, -t, SIGINT, SIGTERM,
 * SIGHUP when its terminal goes away, a closed pipe or another output
 * error), the events are disabled and the instance is removed; what a
 * klp-trace killed left behind, the next one removes (klp-trace_owner.c).  libtraceevent
 * parses each event's format file (klp-trace_format.c prints each record
 * from it).  The builtin livepatch has no tracepoints: kprobe events on
 * its own functions stand in for them (klp-trace_builtin.c), their
 * records named as klp's and marked core=livepatch.
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

#define POLL_NS			100000000ULL	/* 100 ms between buffer reads */
#define NSEC_PER_SEC		1000000000ULL

const char *argp_program_version = "klp-trace 0.1";
static const char argp_program_doc[] =
"Follow the klp:* tracepoints of the klp live patching core, and the\n"
"enables, disables and transitions of the kernel's builtin livepatch.\n"
"\n"
"One line per event: timestamp (CLOCK_MONOTONIC seconds), [CPU], task-pid,\n"
"event name and its fields as name=value; addresses print as symbols.\n"
"State changes print in the core's order (their seq), even when read from\n"
"several CPUs' buffers.\n"
"Reads a private tracefs instance, so other tracefs users are not disturbed.\n"
"The builtin livepatch's records (klp_patch_enable, klp_patch_disable,\n"
"klp_transition) come from kprobe events on its own functions, its calls\n"
"(klp_redirect) from one on each func's new function, the tasks that hold\n"
"its transitions back (klp_task_blocked) from /proc every interval; they\n"
"carry core=livepatch; without the klp core, only they are traced.\n"
"\n"
"USAGE: klp-trace [-e EVENT]... [--no-redirect] [--core CORE] [--json]\n"
"                 [-c COUNT] [-t SECONDS] [-i SECONDS]\n"
"\n"
"EXAMPLES:\n"
"    klp-trace                      # every klp event until Ctrl-C\n"
"    klp-trace --no-redirect        # state changes only, not every patched call\n"
"    klp-trace -e klp_func_push -e klp_func_pop   # func_stack changes only\n"
"    klp-trace -e klp_redirect -c 100   # the next 100 redirected calls\n"
"    klp-trace --json -t 10         # one JSON object per event, for 10 seconds\n"
"    klp-trace --core livepatch     # the builtin livepatch's records only\n";

enum {
	OPT_NO_REDIRECT = 256,
	OPT_CORE,
};

static const struct argp_option opts[] = {
	{ "event", 'e', "EVENT", 0,
	  "Trace only EVENT (klp_func_push or klp:klp_func_push); repeatable", 0 },
	{ "no-redirect", OPT_NO_REDIRECT, NULL, 0,
	  "Leave out klp_redirect, which fires on every patched call", 0 },
	{ "core", OPT_CORE, "CORE", 0,
	  "Trace only CORE: klp (the klp core's events) or livepatch (the builtin's)", 0 },
	{ "json", 'j', NULL, 0, "Print one JSON object per line", 0 },
	{ "count", 'c', "COUNT", 0, "Exit after COUNT events", 0 },
	{ "duration", 't', "SECONDS", 0, "Exit after SECONDS seconds", 0 },
	{ "interval", 'i', "SECONDS", 0,
	  "Read the builtin's transitions and func_stacks every SECONDS (default 1)", 0 },
	{ NULL, 'h', NULL, OPTION_HIDDEN, "Show the full help", 0 },
	{ 0 },
};


/* What the signal handler sets: the signal, and when it came. */
static volatile sig_atomic_t exiting;
static volatile unsigned long long signal_ns;

unsigned long long now_ns(void)
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

/* Seconds, kept small enough that nanoseconds of them do not overflow. */
static long parse_seconds(const char *arg, const char *what,
			  struct argp_state *state)
{
	long val = parse_positive(arg, what, state);

	if (val > INT_MAX) {
		fprintf(stderr, "klp-trace: %s too long: %s\n", what, arg);
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
	case OPT_CORE:
		if (strcmp(arg, CORE_KLP) && strcmp(arg, CORE_LIVEPATCH)) {
			fprintf(stderr, "klp-trace: invalid core: %s (klp or livepatch)\n",
				arg);
			argp_usage(state);
		}
		t->env.core = arg;
		break;
	case 'j':
		t->env.json = true;
		break;
	case 'c':
		t->env.count = parse_positive(arg, "count", state);
		break;
	case 't':
		t->env.duration = parse_seconds(arg, "duration", state);
		break;
	case 'i':
		t->env.interval = parse_seconds(arg, "interval", state);
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

/* A line begun: timestamp, CPU, task, event; NULL when out of memory. */
FILE *line_open(struct klp_trace *t, char **text, size_t *len,
		unsigned long long ts, int cpu, int pid, const char *event,
		const char *core)
{
	const char *comm = task_comm(t, pid);
	FILE *out = open_memstream(text, len);

	if (!out) {
		fprintf(stderr, "klp-trace: out of memory\n");
		t->done = true;
		return NULL;
	}
	if (t->env.json) {
		fprintf(out, "{\"ts\":%llu.%09llu,\"cpu\":%d,\"pid\":%d,\"comm\":",
			ts / NSEC_PER_SEC, ts % NSEC_PER_SEC, cpu, pid);
		json_put_str(out, comm, strlen(comm));
		fprintf(out, ",\"event\":\"%s\"", event);
		if (core)
			fprintf(out, ",\"core\":\"%s\"", core);
	} else {
		fprintf(out, "%llu.%06llu [%03d] %s-%d %s:",
			ts / NSEC_PER_SEC, ts % NSEC_PER_SEC / 1000,
			cpu, comm, pid, event);
	}
	return out;
}

/*
 * The line ended and handed to the order; non-zero: stop reading.  The
 * text and its length are the stream's: final once it is closed.
 */
int line_close(struct klp_trace *t, FILE *out, char **text, size_t *len,
	       bool has_seq, unsigned long long seq)
{
	fputs(t->env.json ? "}\n" : "\n", out);
	if (fclose(out)) {
		free(*text);
		fprintf(stderr, "klp-trace: out of memory\n");
		t->done = true;
		return 1;
	}
	if (seq_order_put(&t->order, has_seq, seq, *text, *len)) {
		t->done = true;
		return 1;
	}
	return 0;
}

/* A hit of a probe on the builtin livepatch: its records, in order. */
static int handle_builtin(struct klp_trace *t, struct tep_record *rec,
			  int cpu, const struct lpt_rec *recs, int n)
{
	int pid = tep_data_pid(t->tep, rec), i;
	size_t len;
	char *text;
	FILE *out;

	for (i = 0; i < n; i++) {
		if (!lp_wanted(t, recs[i].event))
			continue;
		out = line_open(t, &text, &len, recs[i].ts, cpu, pid,
				recs[i].event, NULL);	/* the fields have it */
		if (!out)
			return 1;
		lpt_print_fields(out, t->env.json, &recs[i]);
		if (line_close(t, out, &text, &len, false, 0))
			return 1;
	}
	return 0;
}

/* A call of a builtin func: klp_redirect's fields, core=livepatch. */
static int handle_call(struct klp_trace *t, struct tep_record *rec, int cpu,
		       const struct lp_call *k)
{
	size_t len;
	char *text;
	FILE *out;

	out = line_open(t, &text, &len, rec->ts, cpu, tep_data_pid(t->tep, rec),
			KLP_REDIRECT, NULL);
	if (!out)
		return 1;
	lpc_print_fields(out, &t->fmt, k);
	return line_close(t, out, &text, &len, false, 0);
}

static int handle_record(struct tep_event *event, struct tep_record *rec,
			 int cpu, void *ctx)
{
	struct klp_trace *t = ctx;
	struct ev_info *ei = find_info(t, event);
	unsigned long long seq = 0;
	const struct lp_call *k;
	struct lpt_rec recs[2];
	bool has_seq;
	size_t len;
	char *text;
	FILE *out;
	int n;

	if (ferror(stdout) || past_end(t, rec->ts)) {
		t->done = true;
		return 1;
	}
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
	if (t->lp.on) {
		n = lpt_read(&t->lp, event, rec, recs);
		if (n >= 0) {
			t->calls.rewalk = true;	/* its funcs may have changed */
			return handle_builtin(t, rec, cpu, recs, n);
		}
		k = lpc_find(&t->calls, event);
		if (k)
			return handle_call(t, rec, cpu, k);
	}
	if (!ei)
		return 0;

	out = line_open(t, &text, &len, rec->ts, cpu, tep_data_pid(t->tep, rec),
			event->name, CORE_KLP);
	if (!out)
		return 1;
	ev_print_fields(out, &t->fmt, ei, rec);
	has_seq = ei->seq && !tep_read_number_field(ei->seq, rec->data, &seq);
	return line_close(t, out, &text, &len, has_seq, seq);
}

/* --- setup and teardown ------------------------------------------------ */

static void cleanup(struct klp_trace *t)
{
	int i;

	/* disabled in the instance first: an enabled probe cannot go */
	lpc_close(&t->calls, t->lp.group, t->ti.tfs);
	lpt_disable(&t->lp, t->ti.tfs);
	ti_destroy(&t->ti, t->evs, t->nr_evs);
	lpt_destroy(&t->lp);
	for (i = 0; i < t->nr_evs; i++)
		ev_info_free(&t->evs[i]);
	t->nr_evs = 0;
	if (t->tep)
		tep_free(t->tep);
	t->tep = NULL;
	klp_ksyms_free(&t->ksyms);
	seq_order_free(&t->order);
	model_tr_free(&t->trs);
	lp_glance_free(&t->glance);
}

/*
 * With every transition event traced, print them in the core's order:
 * those numbered after the core's last seq now are all still to come.
 */
static int setup_order(struct klp_trace *t)
{
	unsigned long long last = 0;
	bool on = !t->env.nr_events && t->klp_on;
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

/*
 * The builtin's func_stacks walked again after its state changed and
 * every interval; its transitions' blocked tasks every interval.
 */
static int poll_builtin(struct klp_trace *t)
{
	bool tick = now_ns() >= t->next_poll_ns;

	if (!t->lp.on)
		return 0;
	if (t->calls.on && (t->calls.rewalk || tick) &&
	    lpc_sync(&t->calls, t->lp.group, t->tep, t->ti.tfs))
		return -1;
	if (lpb_poll(t))
		t->done = true;
	return 0;
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
		if (!t->done && poll_builtin(t))
			return -1;
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
	t->env.interval = 1;
	err = argp_parse(&argp, argc, argv, 0, NULL, t);
	if (err)
		goto out;
	err = 1;
	if (ti_check_tracefs() || select_cores(t))
		goto out;
	if (kt_owner_of(getpid(), &t->owner)) {
		fprintf(stderr, "klp-trace: cannot read its own start time from /proc/self/stat\n");
		goto out;
	}
	kt_reap_orphans();

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

	if (select_events(t) ||
	    ti_create(&t->ti, &t->owner, t->evs, t->nr_evs) ||
	    (t->lp.on && lpt_create(&t->lp, &t->owner, t->tep, t->ti.tfs)) ||
	    setup_order(t))
		goto out;
	/* each call of a builtin func, where kcore and BTF let us walk */
	if (t->lp.on && lp_wanted(t, KLP_REDIRECT) && !t->env.no_redirect &&
	    !lpc_open(&t->calls) &&
	    lpc_sync(&t->calls, t->lp.group, t->tep, t->ti.tfs))
		goto out;
	if (t->env.duration)
		t->deadline_ns = now_ns() + t->env.duration * NSEC_PER_SEC;
	if (!t->nr_evs)
		fprintf(stderr, "Tracing the builtin livepatch's records... Hit Ctrl-C to end.\n");
	else
		fprintf(stderr, "Tracing %d klp event%s%s... Hit Ctrl-C to end.\n",
			t->nr_evs, t->nr_evs == 1 ? "" : "s",
			t->lp.on ? " and the builtin livepatch's records" : "");
	err = trace_loop(t) ? 1 : 0;
out:
	cleanup(t);
	free(t);
	return err;
}
