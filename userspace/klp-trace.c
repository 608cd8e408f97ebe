// SPDX-License-Identifier: GPL-2.0
/*
 * klp-trace - follow the klp:* tracepoints of the klp live patching core
 *
 * The events are enabled in a private tracefs instance,
 * instances/klp-trace.<pid>, and read from its per-CPU raw buffers: the
 * top-level buffer and its event settings stay as they are, and two
 * readers never steal each other's events.  On exit the events are
 * disabled and the instance is removed.  libtraceevent parses each event's
 * format file, so every field prints by name and a field added to an event
 * shows up without a change here.
 */
#define _GNU_SOURCE
#include <argp.h>
#include <errno.h>
#include <limits.h>
#include <sched.h>
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
#include "ksyms.h"
#include "seqorder.h"

#define KLP_SYSTEM		"klp"
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

static struct env {
	const char *events[MAX_EVENTS];
	int nr_events;
	bool no_redirect;
	bool json;
	long count;
	long duration;
} env;

/* One field of a selected event, with what we know about printing it. */
struct ev_field {
	struct tep_format_field *field;
	struct tep_print_flag_sym *symbols;	/* from __print_symbolic() */
};

struct ev_info {
	struct tep_event *event;
	struct ev_field *fields;
	int nr_fields;
	struct tep_format_field *seq;	/* the core's transition number */
	bool enabled;			/* in our instance */
};

static struct tep_handle *tep;
static struct klp_ksyms ksyms;
static struct tracefs_instance *instance;
static struct ev_info evs[MAX_EVENTS];
static int nr_evs;
static bool mono_clock;			/* record timestamps are CLOCK_MONOTONIC */
static unsigned long long deadline_ns;	/* -t, CLOCK_MONOTONIC; 0: none */
static long printed;
static struct seq_order order;		/* transitions in the core's order */
static bool done;
static bool cmdlines_reloaded;

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
	(void)sig;
	/* clock_gettime() is async-signal-safe: events up to now still print. */
	signal_ns = now_ns();
	exiting = 1;
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
	switch (key) {
	case 'e':
		if (env.nr_events == MAX_EVENTS) {
			fprintf(stderr, "klp-trace: at most %d -e\n", MAX_EVENTS);
			argp_usage(state);
		}
		if (!strncmp(arg, KLP_SYSTEM ":", strlen(KLP_SYSTEM) + 1))
			arg += strlen(KLP_SYSTEM) + 1;
		env.events[env.nr_events++] = arg;
		break;
	case OPT_NO_REDIRECT:
		env.no_redirect = true;
		break;
	case 'j':
		env.json = true;
		break;
	case 'c':
		env.count = parse_positive(arg, "count", state);
		break;
	case 't':
		env.duration = parse_positive(arg, "duration", state);
		/* keeps the deadline in nanoseconds from overflowing */
		if (env.duration > INT_MAX) {
			fprintf(stderr, "klp-trace: duration too long: %s\n", arg);
			argp_usage(state);
		}
		break;
	case 'h':
		argp_state_help(state, stderr, ARGP_HELP_STD_HELP);
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

static struct tep_print_flag_sym *find_symbols(struct tep_event *event,
					       const char *name)
{
	struct tep_print_arg *arg, *f;

	for (arg = event->print_fmt.args; arg; arg = arg->next) {
		if (arg->type != TEP_PRINT_SYMBOL)
			continue;
		f = arg->symbol.field;
		if (f && f->type == TEP_PRINT_FIELD && f->field.name &&
		    !strcmp(f->field.name, name))
			return arg->symbol.symbols;
	}
	return NULL;
}

static int add_event(struct tep_event *event)
{
	struct ev_info *ei = &evs[nr_evs];
	struct tep_format_field *f;
	int i;

	for (i = 0; i < nr_evs; i++)
		if (evs[i].event == event)
			return 0;
	if (nr_evs == MAX_EVENTS) {
		fprintf(stderr, "klp-trace: more than %d klp events\n", MAX_EVENTS);
		return -1;
	}

	ei->event = event;
	ei->nr_fields = event->format.nr_fields;
	ei->fields = calloc(ei->nr_fields ?: 1, sizeof(*ei->fields));
	if (!ei->fields)
		return -1;
	for (f = event->format.fields, i = 0; f && i < ei->nr_fields;
	     f = f->next, i++) {
		ei->fields[i].field = f;
		ei->fields[i].symbols = find_symbols(event, f->name);
	}
	ei->nr_fields = i;
	ei->seq = tep_find_field(event, "seq");
	nr_evs++;
	return 0;
}

static int select_events(void)
{
	struct tep_event **all, *event;
	int i;

	for (i = 0; i < env.nr_events; i++) {
		if (env.no_redirect && !strcmp(env.events[i], KLP_REDIRECT))
			continue;
		event = tep_find_event_by_name(tep, KLP_SYSTEM, env.events[i]);
		if (!event) {
			fprintf(stderr, "klp-trace: no event %s:%s (see %s/events/%s)\n",
				KLP_SYSTEM, env.events[i], tracefs_tracing_dir(),
				KLP_SYSTEM);
			return -1;
		}
		if (add_event(event))
			return -1;
	}

	if (!env.nr_events) {
		all = tep_list_events(tep, TEP_EVENT_SORT_ID);
		for (i = 0; all && all[i]; i++) {
			event = all[i];
			if (strcmp(event->system, KLP_SYSTEM))
				continue;
			if (env.no_redirect && !strcmp(event->name, KLP_REDIRECT))
				continue;
			if (add_event(event))
				return -1;
		}
	}

	if (!nr_evs) {
		fprintf(stderr, "klp-trace: no events selected\n");
		return -1;
	}
	return 0;
}

static struct ev_info *find_info(struct tep_event *event)
{
	int i;

	for (i = 0; i < nr_evs; i++)
		if (evs[i].event == event)
			return &evs[i];
	return NULL;
}

/* --- printing ----------------------------------------------------------- */

static void put_text_str(FILE *out, const char *s, int len)
{
	int i;

	for (i = 0; i < len; i++)
		if ((unsigned char)s[i] <= ' ' || s[i] == '"' || s[i] == '\\' ||
		    (unsigned char)s[i] == 0x7f)
			break;
	if (len && i == len)
		fwrite(s, 1, len, out);
	else
		json_put_str(out, s, len);
}

/* Other arrays print as hex bytes, "0a1b..." */
static void put_hex(FILE *out, const char *s, int len)
{
	int i;

	fputc('"', out);
	for (i = 0; i < len; i++)
		fprintf(out, "%02x", (unsigned char)s[i]);
	fputc('"', out);
}

/* An array field (__data_loc or fixed); NULL if it lies outside the record. */
static const char *field_data(struct tep_format_field *f,
			      struct tep_record *rec, int *len)
{
	const char *data = rec->data;
	unsigned long long loc;
	unsigned int off, size;

	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		if (f->offset + 4 > rec->size)
			return NULL;
		loc = tep_read_number(tep, data + f->offset, 4);
		off = loc & 0xffff;
		size = loc >> 16;
		if (f->flags & TEP_FIELD_IS_RELATIVE)
			off += f->offset + f->size;
	} else {
		off = f->offset;
		size = f->size;
	}
	if (off + size > (unsigned int)rec->size)
		return NULL;
	*len = size;
	return data + off;
}

static const char *symbolic(struct tep_print_flag_sym *sym,
			    unsigned long long val)
{
	unsigned long long v;
	char *end;

	for (; sym; sym = sym->next) {
		if (!sym->value)
			continue;
		errno = 0;
		v = strtoull(sym->value, &end, 0);
		if (!errno && !*end && v == val)
			return sym->str;
	}
	return NULL;
}

static void print_field(FILE *out, struct ev_field *ef,
			struct tep_record *rec)
{
	struct tep_format_field *f = ef->field;
	const struct klp_ksym *ksym = NULL;
	unsigned long long val;
	bool is_signed, is_addr;
	const char *s, *sym;
	int len;

	if (env.json)
		fprintf(out, ",\"%s\":", f->name);
	else
		fprintf(out, " %s=", f->name);

	if (f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC)) {
		s = field_data(f, rec, &len);
		if (!s)
			fputs(env.json ? "null" : "?", out);
		else if (!(f->flags & TEP_FIELD_IS_STRING))
			put_hex(out, s, len);
		else if (env.json)
			json_put_str(out, s, strnlen(s, len));
		else
			put_text_str(out, s, strnlen(s, len));
		return;
	}

	if (f->offset + f->size > rec->size ||
	    tep_read_number_field(f, rec->data, &val)) {
		fputs(env.json ? "null" : "?", out);
		return;
	}

	is_signed = f->flags & TEP_FIELD_IS_SIGNED;
	if (is_signed && f->size < 8 && val >> (f->size * 8 - 1))
		val |= ~0ULL << (f->size * 8);
	/* a kernel address: an unsigned long in the upper half */
	is_addr = !is_signed && f->flags & TEP_FIELD_IS_LONG && f->size == 8 &&
		  val >> 63;
	if (is_addr)
		ksym = klp_ksyms_resolve(&ksyms, val);
	sym = symbolic(ef->symbols, val);

	if (env.json) {
		if (is_addr)
			fprintf(out, "\"0x%llx\"", val);
		else
			fprintf(out, is_signed ? "%lld" : "%llu", val);
		if (ksym && ksym->addr == val)
			fprintf(out, ",\"%s_sym\":\"%s\"", f->name, ksym->name);
		else if (ksym)
			fprintf(out, ",\"%s_sym\":\"%s+0x%llx\"", f->name, ksym->name,
			       val - ksym->addr);
		else if (sym)
			fprintf(out, ",\"%s_sym\":\"%s\"", f->name, sym);
	} else if (ksym && ksym->addr == val) {
		fputs(ksym->name, out);
	} else if (ksym) {
		fprintf(out, "%s+0x%llx", ksym->name, val - ksym->addr);
	} else if (is_addr) {
		fprintf(out, "0x%llx", val);
	} else if (sym) {
		fputs(sym, out);
	} else {
		fprintf(out, is_signed ? "%lld" : "%llu", val);
	}
}

/*
 * Tasks started after us are unknown until saved_cmdlines is reread (once
 * per buffer read), and that learns a task's name only when it is
 * switched out; a task still running has it in /proc.
 */
static const char *task_comm(int pid)
{
	char path[64], comm[64];
	FILE *f;

	if (!pid || tep_is_pid_registered(tep, pid))
		return tep_data_comm_from_pid(tep, pid);
	if (!cmdlines_reloaded) {
		tracefs_load_cmdlines(NULL, tep);
		cmdlines_reloaded = true;
		if (tep_is_pid_registered(tep, pid))
			return tep_data_comm_from_pid(tep, pid);
	}
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	f = fopen(path, "re");
	if (f) {
		if (fgets(comm, sizeof(comm), f)) {
			comm[strcspn(comm, "\n")] = '\0';
			tep_register_comm(tep, comm, pid);
		}
		fclose(f);
	}
	return tep_data_comm_from_pid(tep, pid);
}

/* Past the end of the trace: after -t's deadline or after the signal. */
static bool past_end(unsigned long long ts)
{
	unsigned long long end = deadline_ns;

	if (!mono_clock)
		return exiting || (deadline_ns && now_ns() >= deadline_ns);
	if (exiting && (!end || signal_ns < end))
		end = signal_ns;
	return end && ts > end;
}

/* One record printed, in the core's order: count it against -c. */
static int emit_record(const char *text, size_t len, void *ctx)
{
	(void)ctx;
	if (done)
		return 1;
	fwrite(text, 1, len, stdout);
	if (env.count && ++printed >= env.count) {
		done = true;
		return 1;
	}
	return 0;
}

static int handle_record(struct tep_event *event, struct tep_record *rec,
			 int cpu, void *ctx)
{
	struct ev_info *ei = find_info(event);
	unsigned long long seq = 0;
	bool has_seq;
	const char *comm;
	size_t len;
	char *text;
	FILE *out;
	int i, pid;

	(void)ctx;
	if (ferror(stdout) || past_end(rec->ts)) {
		done = true;
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
		if (seq_order_flush(&order))
			return 1;
	}

	out = open_memstream(&text, &len);
	if (!out) {
		fprintf(stderr, "klp-trace: out of memory\n");
		done = true;
		return 1;
	}
	pid = tep_data_pid(tep, rec);
	comm = task_comm(pid);
	if (env.json) {
		fprintf(out, "{\"ts\":%llu.%09llu,\"cpu\":%d,\"pid\":%d,\"comm\":",
			rec->ts / NSEC_PER_SEC, rec->ts % NSEC_PER_SEC, cpu, pid);
		json_put_str(out, comm, strlen(comm));
		fprintf(out, ",\"event\":\"%s\"", event->name);
	} else {
		fprintf(out, "%llu.%06llu [%03d] %s-%d %s:",
			rec->ts / NSEC_PER_SEC, rec->ts % NSEC_PER_SEC / 1000,
			cpu, comm, pid, event->name);
	}
	for (i = 0; i < ei->nr_fields; i++)
		print_field(out, &ei->fields[i], rec);
	fputs(env.json ? "}\n" : "\n", out);
	if (fclose(out)) {
		free(text);
		fprintf(stderr, "klp-trace: out of memory\n");
		done = true;
		return 1;
	}

	has_seq = ei->seq && !tep_read_number_field(ei->seq, rec->data, &seq);
	if (seq_order_put(&order, has_seq, seq, text, len)) {
		done = true;
		return 1;
	}
	return 0;
}

/* --- setup and teardown ------------------------------------------------ */

/* Whether the core's events are in tracefs: they go with klp.ko. */
static bool klp_events_exist(void)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/events/%s", tracefs_tracing_dir(),
		 KLP_SYSTEM);
	return !access(path, F_OK);
}

static int check_tracefs(void)
{
	const char *dir = NULL;

	if (geteuid()) {
		fprintf(stderr, "klp-trace: must be run as root (it creates a tracefs instance)\n");
		return -1;
	}
	if (tracefs_tracing_dir_is_mounted(false, &dir) != 1) {
		fprintf(stderr, "klp-trace: tracefs is not mounted (mount -t tracefs nodev /sys/kernel/tracing)\n");
		return -1;
	}
	if (!klp_events_exist()) {
		fprintf(stderr, "klp-trace: no %s/events/%s: is the klp core loaded? (insmod core/klp.ko)\n",
			tracefs_tracing_dir(), KLP_SYSTEM);
		return -1;
	}
	return 0;
}

static int setup_instance(void)
{
	char name[64];
	int i;

	snprintf(name, sizeof(name), "klp-trace.%d", getpid());
	instance = tracefs_instance_create(name);
	if (!instance) {
		fprintf(stderr, "klp-trace: cannot create tracefs instance %s: %s\n",
			name, strerror(errno));
		return -1;
	}
	if (!tracefs_instance_is_new(instance)) {
		fprintf(stderr, "klp-trace: tracefs instance %s already exists\n",
			name);
		tracefs_instance_free(instance);
		instance = NULL;
		return -1;
	}

	/* mono: ordered across CPUs and comparable with clock_gettime() */
	mono_clock = tracefs_instance_file_write(instance, "trace_clock",
						 "mono") > 0;
	if (!mono_clock)
		fprintf(stderr, "klp-trace: cannot set the mono trace clock; timestamps are the default clock's\n");

	for (i = 0; i < nr_evs; i++) {
		if (tracefs_event_enable(instance, KLP_SYSTEM,
					 evs[i].event->name)) {
			fprintf(stderr, "klp-trace: cannot enable %s:%s\n",
				KLP_SYSTEM, evs[i].event->name);
			return -1;
		}
		evs[i].enabled = true;
	}
	return 0;
}

static void cleanup(void)
{
	int i;

	for (i = 0; i < nr_evs; i++) {
		if (evs[i].enabled &&
		    tracefs_event_disable(instance, KLP_SYSTEM,
					  evs[i].event->name) &&
		    klp_events_exist())
			fprintf(stderr, "klp-trace: cannot disable %s:%s\n",
				KLP_SYSTEM, evs[i].event->name);
		free(evs[i].fields);
	}
	nr_evs = 0;
	if (instance) {
		if (tracefs_instance_destroy(instance))
			fprintf(stderr, "klp-trace: cannot remove tracefs instance: %s\n",
				strerror(errno));
		tracefs_instance_free(instance);
		instance = NULL;
	}
	if (tep)
		tep_free(tep);
	tep = NULL;
	klp_ksyms_free(&ksyms);
	seq_order_free(&order);
}

/*
 * With every transition event traced, print them in the core's order:
 * those numbered after the core's last seq now are all still to come.
 */
static int setup_order(void)
{
	unsigned long long last = 0;
	bool on = !env.nr_events;
	int err;

	if (on) {
		err = seq_order_read_last(&last);
		if (err) {
			fprintf(stderr, "klp-trace: cannot read debugfs klp/seq (%s): events print in timestamp order\n",
				strerror(-err));
			on = false;
		}
	}
	seq_order_init(&order, on, last, emit_record, NULL);
	return 0;
}

static void wait_next(void)
{
	unsigned long long wait = POLL_NS, now;
	struct timespec ts;

	if (deadline_ns) {
		now = now_ns();
		if (now >= deadline_ns)
			return;
		if (deadline_ns - now < wait)
			wait = deadline_ns - now;
	}
	ts.tv_sec = wait / NSEC_PER_SEC;
	ts.tv_nsec = wait % NSEC_PER_SEC;
	/* a signal cuts the sleep short: the loop then drains and exits */
	nanosleep(&ts, NULL);
}

/* 0 on success; stdout going away (a closed pipe) is a normal end too */
static int flush_output(void)
{
	if (fflush(stdout) == 0 && !ferror(stdout))
		return 0;
	done = true;
	if (errno == EPIPE)
		return 0;
	fprintf(stderr, "klp-trace: writing output: %s\n", strerror(errno));
	return -1;
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
	bool last;
	int err;

	err = argp_parse(&argp, argc, argv, 0, NULL, NULL);
	if (err)
		return err;

	if (check_tracefs())
		return 1;

	tep = tracefs_local_events_system(NULL, systems);
	if (!tep) {
		fprintf(stderr, "klp-trace: cannot read the klp event formats from %s\n",
			tracefs_tracing_dir());
		return 1;
	}

	/* no SA_RESTART: a signal must end the sleep between reads */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* a closed pipe shows up as EPIPE, so the instance still goes away */
	signal(SIGPIPE, SIG_IGN);

	err = 1;
	if (select_events() || setup_instance() || setup_order())
		goto out;

	if (env.duration)
		deadline_ns = now_ns() + env.duration * NSEC_PER_SEC;
	fprintf(stderr, "Tracing %d klp event%s... Hit Ctrl-C to end.\n",
		nr_evs, nr_evs == 1 ? "" : "s");

	err = 0;
	while (!done) {
		/* the read after a signal or the deadline drains the buffers */
		last = exiting || (deadline_ns && now_ns() >= deadline_ns);
		cmdlines_reloaded = false;
		if (tracefs_iterate_raw_events(tep, instance, NULL, 0,
					       handle_record, NULL) < 0) {
			fprintf(stderr, "klp-trace: reading the trace buffers: %s\n",
				strerror(errno));
			err = 1;
			break;
		}
		/* the end: nothing held can be completed any more */
		if (last && !done)
			seq_order_flush(&order);
		if (flush_output()) {
			err = 1;
			break;
		}
		if (last)
			break;
		wait_next();
	}
out:
	cleanup();
	return err;
}
