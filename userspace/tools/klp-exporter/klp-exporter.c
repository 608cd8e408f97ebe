// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * klp-exporter - the klp core's state and counters as Prometheus metrics
 *
 * Which patches are registered and enabled, what identifies them across a
 * fleet (srcversion, CVEs), which func wins each patched function, how
 * many calls each winner took, every transition and failed enable: over
 * HTTP (GET /metrics, loopback unless told otherwise) and/or as a
 * node_exporter textfile, replaced atomically.  doc/metrics.md defines
 * every metric; klp-exporter.h names the rooms.
 *
 * The exporter outlives the core: while the core is absent it serves
 * klp_up 0 and every counter as it was, and reads the core's state again
 * when it comes back.  Its BPF programs pin klp_events.ko (the module of
 * the klp:* tracepoints), not klp.ko, so they stay attached while the
 * core is unloaded and loaded again.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "klp-exporter.h"
#include "source_klp.h"
#include "source_livepatch.h"

#define EX_RETRY_NS	(MODEL_NSEC_PER_SEC)	/* look for the core again */
#define EX_REUSE_NS	(MODEL_NSEC_PER_SEC / 2)	/* an update served again */

struct klp_exporter {
	struct ex_options opt;
	/* the core */
	bool attached;			/* to the klp:* tracepoints */
	bool up;			/* the core there and its state read */
	bool seen_absent;		/* the core was seen absent once */
	struct klp_source klp;		/* the klp core */
	struct model model;
	struct model_log log;		/* the event applier's; not shown */
	struct lp_source lp;		/* the kernel's builtin livepatch */
	bool lp_tried;
	bool lp_read;			/* its state read once: changes count */
	/* each source's lost counts at the last look (klp's: this attachment) */
	unsigned long long lost_events_seen[MODEL_NR_CORES];
	unsigned long long lost_hits_seen[MODEL_NR_CORES];
	unsigned long long last_try_ns;
	unsigned long long updated_ns;	/* the last update's start */
	unsigned long long watched_ns;	/* the builtin's last glance */
	int last_err;			/* of the last attach; said once */
	libbpf_print_fn_t libbpf_print;	/* libbpf's messages, when said */
	/* what only grows, and where it goes */
	struct ex_totals totals;
	struct ex_http *http;
	struct strbuf text;
	bool said_textfile_error;
	struct ex_self self;		/* the exporter's own metrics */
	struct ex_file_id written;	/* the textfile it wrote last */
	bool started;			/* the startup line said */
};

/* Process-wide by nature: what the signal handler sets. */
static volatile sig_atomic_t exiting;

static void sig_handler(int sig)
{
	exiting = 1;
}

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * MODEL_NSEC_PER_SEC + ts.tv_nsec;
}

/* --- the core coming and going ------------------------------------------ */

/*
 * The calls the last counter read found into the totals, unless the
 * calls collector is off (--no-collector.calls: no probe counts them).
 */
static void count_redirects(struct klp_exporter *x,
			    unsigned long long unattributed)
{
	if (x->opt.calls)
		ex_count_redirects(&x->totals, &x->model, unattributed);
}

/* A transition event: counted, then applied to the model. */
static int on_event(void *ctx, void *data, size_t size)
{
	struct klp_exporter *x = ctx;
	struct klp_transition_event e;

	if (size < sizeof(e))
		return 0;
	memcpy(&e, data, sizeof(e));
	model_event_terminate(&e);
	/*
	 * The func of an unregistered patch leaves the model: the calls it
	 * took are read before, while it can still be named.
	 */
	if (e.type == KLP_EV_PATCH_UNREGISTER && !e.ret &&
	    !klp_counters_update(&x->klp.counters, &x->model))
		count_redirects(x, x->klp.counters.interval_unknown);
	ex_count_event(&x->totals, &x->model, &e);
	klp_event_apply(&x->model, &x->log, &e);
	/* the enable's time is in the state file only */
	if (e.type == KLP_EV_PATCH_ENABLE && !e.ret && e.seq > x->model.snap_seq)
		x->model.need_resync = true;
	return 0;
}

/* The core went: its part goes; the attachment and the counters stay. */
static void core_gone(struct klp_exporter *x)
{
	klp_model_drop(&x->model);
	/* the next core gives its ids to other funcs */
	memset(x->klp.counters.unknown_tried, 0,
	       sizeof(x->klp.counters.unknown_tried));
	x->up = false;
	x->seen_absent = true;
	fprintf(stderr, "%s: the klp core went away: klp_up 0 until it is back\n",
		program_invocation_short_name);
}

/*
 * Closed: klp's source, and its part of the model.  The builtin's part
 * stays (a failed attach is no reason to lose it); the whole model is
 * freed only at exit.
 */
static void detach(struct klp_exporter *x)
{
	klp_source_close(&x->klp);
	klp_model_drop(&x->model);
	x->attached = false;
	x->up = false;
}

/*
 * Attach to the klp:* tracepoints.  They are klp_events.ko's, which a
 * program attached pins, not klp.ko's: the core can be unloaded and
 * loaded again under the attachment, and the exporter stays attached,
 * so no event or call of the new core is missed.
 */
static int attach(struct klp_exporter *x)
{
	int err;

	/* a failure is said once, not again every second */
	if (!x->last_err) {
		err = klp_bpf_check_environment();
		if (err)
			return err;
	}
	libbpf_set_print(x->last_err ? NULL : x->libbpf_print);
	err = klp_source_open(&x->klp, on_event, x,
			      (x->opt.calls ? KLP_SOURCE_CALLS : 0) |
			      (x->last_err ? KLP_SOURCE_QUIET : 0));
	libbpf_set_print(x->libbpf_print);
	if (err) {
		detach(x);
		return err;
	}
	x->attached = true;
	x->lost_events_seen[MODEL_CORE_KLP] = 0;
	x->lost_hits_seen[MODEL_CORE_KLP] = 0;
	if (x->started)		/* at start, the startup line says it */
		fprintf(stderr, "%s: attached to the klp core\n",
			program_invocation_short_name);
	return 0;
}

/* Read the state again, counting the winners it changed. */
static int resync(struct klp_exporter *x)
{
	struct ex_winner *before;
	size_t nr = ex_winners_save(&x->model, &before);
	int err = klp_model_resync(&x->model);

	if (err) {
		free(before);
		return err;
	}
	ex_count_winner_changes(&x->totals, &x->model, before, nr);
	return 0;
}

/*
 * Attached, read the core's state; 1 while it is absent (nothing to say).
 * Once the exporter has seen the core absent, nothing was patched then:
 * every winner the state shows came while it watched, and counts as a
 * change unless an event already counted it.  Winners found at start,
 * with the core already there, are not changes it saw.
 */
static int core_up(struct klp_exporter *x)
{
	int err = 0;

	if (access(KLP_SYSFS_ROOT, F_OK)) {
		x->seen_absent = true;
		return 1;
	}
	if (!x->attached)
		err = attach(x);
	x->model.quiet = x->last_err;
	if (!err)
		err = x->seen_absent ? resync(x) : klp_model_resync(&x->model);
	x->model.quiet = false;
	if (err)
		return err;
	x->up = true;
	x->last_err = 0;
	x->totals.attaches++;
	return 0;
}

/* Find the core if it is absent; one try a second at most. */
static void core_try(struct klp_exporter *x)
{
	unsigned long long now = now_ns();
	int err;

	if (x->up || (x->last_try_ns && now - x->last_try_ns < EX_RETRY_NS))
		return;
	x->last_try_ns = now;
	err = core_up(x);
	if (err < 0 && err != -ENOENT && err != x->last_err)
		x->totals.errors++;
	/* said once: the tries after it are quiet until one succeeds */
	if (err < 0)
		x->last_err = err;
}

/*
 * A source's lost counts (they only grow while it is open), what they
 * grew by since the last look added to the core's totals; true if events
 * were lost.
 */
static bool take_losses(struct klp_exporter *x, enum model_core core,
			unsigned long long ev, unsigned long long hits)
{
	bool lost = ev != x->lost_events_seen[core];

	x->totals.lost_events[core] += ev - x->lost_events_seen[core];
	x->totals.lost_hits[core] += hits - x->lost_hits_seen[core];
	x->lost_events_seen[core] = ev;
	x->lost_hits_seen[core] = hits;
	return lost;
}

/*
 * The klp core's part of the model and its counters brought up to now:
 * the events, then the state file if they left it unsure, then the
 * counters.  Returns 0 when its counters were read into the model, 1
 * when the core is absent, -errno (counted) when they could not be.
 */
static int update_core(struct klp_exporter *x)
{
	int err;

	core_try(x);
	if (!x->attached)
		return 1;
	err = klp_source_consume(&x->klp);
	if (take_losses(x, MODEL_CORE_KLP, klp_source_lost_events(&x->klp),
			klp_source_lost_hits(&x->klp)))
		x->model.need_resync = true;
	if (x->up && access(KLP_SYSFS_ROOT, F_OK)) {
		/* the last calls counted are the old core's funcs' */
		if (!klp_counters_update(&x->klp.counters, &x->model))
			count_redirects(x, x->klp.counters.interval_unknown);
		core_gone(x);
	}
	if (!x->up)
		return 1;
	if (!err && x->model.need_resync)
		err = resync(x);
	/* with the calls collector off nothing counts into the hits map */
	if (!err && x->opt.calls)
		err = klp_counters_update(&x->klp.counters, &x->model);
	if (err)
		x->totals.errors++;
	return err;
}

/*
 * The builtin livepatch's part, whether the klp core is there or not:
 * its patches, stacks, calls and transitions (source_livepatch.c; its
 * transitions also without its BPF side).  The winners its first read
 * finds were there before the exporter; every one a later read finds
 * changed counts.  Returns 0 or -errno (counted).
 */
static int update_builtin(struct klp_exporter *x)
{
	struct ex_winner *before;
	size_t nr;
	int err;

	if (!x->lp.present && !x->lp_tried) {
		x->lp_tried = true;	/* said once if it fails */
		lp_source_open(&x->lp, x->opt.calls);
	}
	if (!x->lp.present)
		return lp_source_update(&x->lp, &x->model, &x->log);
	/* its events only make lines of a log; its state is read whole */
	take_losses(x, MODEL_CORE_LIVEPATCH, lp_source_lost_events(&x->lp),
		    lp_source_lost_hits(&x->lp));
	if (!lp_source_check(&x->lp)) {	/* no winner can have changed */
		err = lp_source_update(&x->lp, &x->model, &x->log);
		if (err)
			x->totals.errors++;
		return err;
	}
	nr = ex_winners_save(&x->model, &before);
	err = lp_source_update(&x->lp, &x->model, &x->log);
	x->totals.lp_reads = x->lp.reads;
	x->totals.probe_failures = x->lp.probe_failures;
	if (err) {
		free(before);
		x->totals.errors++;
		return err;
	}
	if (x->lp_read)
		ex_count_winner_changes(&x->totals, &x->model, before, nr);
	else
		free(before);
	x->lp_read = true;
	return 0;
}

/*
 * Bring the model and the totals up to now: each core's source (the
 * builtin's after klp's: a core gone drops only its own transitions),
 * then the calls both counted.
 */
static void update(struct klp_exporter *x)
{
	int klp;

	x->updated_ns = now_ns();
	klp = update_core(x);
	/* not read this time: nothing of klp's to add again */
	if (klp)
		model_interval_start(&x->model);
	update_builtin(x);
	count_redirects(x, klp ? 0 : x->klp.counters.interval_unknown);
	ex_totals_prune(&x->totals, &x->model, now_ns());
}

/*
 * The builtin changed: read it now, from the loop, so that its new funcs'
 * probes (up to 1000 kprobes, longer than a scraper waits) attach here,
 * not inside the next request.  A glance every EX_REUSE_NS at most.
 */
static void watch_builtin(struct klp_exporter *x)
{
	unsigned long long now = now_ns();

	if (!x->lp.present || now - x->updated_ns < EX_REUSE_NS ||
	    now - x->watched_ns < EX_REUSE_NS)
		return;
	x->watched_ns = now;
	if (lp_source_check(&x->lp))
		update(x);
}

/*
 * Everything up to now, then the text; the process_* series only over
 * HTTP (a file's reader, node_exporter, serves its own under those names).
 * Requests within EX_REUSE_NS of an update share it: a burst of scrapers
 * (an HA pair of Prometheus servers, a loop of curl) costs one update.
 */
static void render(struct klp_exporter *x, enum ex_format fmt,
		   struct strbuf *b, bool http)
{
	struct ex_view v = {
		.no_calls = !x->opt.calls,
		.model = &x->model,
		.totals = &x->totals,
	};

	if (now_ns() - x->updated_ns >= EX_REUSE_NS)
		update(x);
	v.up = x->up;	/* as the update left it, with the model */
	ex_render_self(b, fmt, &x->self, http);
	ex_render(b, fmt, &v);
}

/* One scrape over HTTP. */
static void scrape(void *ctx, enum ex_format fmt, struct strbuf *b)
{
	render(ctx, fmt, b, true);
}

/* --- the textfile --------------------------------------------------------- */

/*
 * The metrics, as node_exporter's textfile collector reads them: with
 * the time of this write, kept if it succeeds.
 */
static int write_textfile(struct klp_exporter *x)
{
	unsigned long long last = x->self.written_ns;
	struct timespec ts;
	int err;

	clock_gettime(CLOCK_REALTIME, &ts);
	x->self.written_ns = ts.tv_sec * MODEL_NSEC_PER_SEC + ts.tv_nsec;
	x->text.len = 0;
	render(x, EX_TEXT, &x->text, false);
	err = ex_textfile_write(x->opt.textfile, x->text.s ? x->text.s : "",
				x->text.len, &x->written);
	if (err)
		x->self.written_ns = last;
	return err;
}

/* On a clean stop: the textfile goes, if it is still the one written. */
static void remove_textfile(struct klp_exporter *x)
{
	int err = ex_textfile_remove(x->opt.textfile, &x->written);

	if (err)
		fprintf(stderr, "%s: cannot remove %s: %s\n",
			program_invocation_short_name, x->opt.textfile,
			strerror(-err));
}

static void textfile_tick(struct klp_exporter *x)
{
	int err = write_textfile(x);

	if (!err) {
		x->said_textfile_error = false;
		return;
	}
	x->totals.errors++;
	if (!x->said_textfile_error)
		fprintf(stderr, "%s: cannot write %s: %s\n",
			program_invocation_short_name, x->opt.textfile,
			strerror(-err));
	x->said_textfile_error = true;
}

/*
 * One line at start, as node_exporter's: the version, where it serves,
 * the textfile, and the live patching cores this host has.
 */
static void say_started(struct klp_exporter *x)
{
	bool klp = !access(KLP_SYSFS_ROOT, F_OK);
	bool livepatch = !access(LP_SYSFS_ROOT, F_OK);
	struct strbuf b = {};
	const char *sep = ": ";

	sb_puts(&b, ex_version());
	if (x->http) {
		sb_printf(&b, "%slistening on %s", sep, ex_http_where(x->http));
		sep = "; ";
	}
	if (x->opt.textfile) {
		sb_printf(&b, "%stextfile %s every %d s", sep, x->opt.textfile,
			  x->opt.interval);
		sep = "; ";
	}
	sb_printf(&b, "%scores found: %s%s%s%s\n", sep, klp ? "klp" : "",
		  klp && livepatch ? ", " : "", livepatch ? "livepatch" : "",
		  klp || livepatch ? "" : "none");
	sb_write_all(STDERR_FILENO, b.s, b.len);
	sb_free(&b);
	x->started = true;
}

/* --- the loop --------------------------------------------------------------- */

static int run(struct klp_exporter *x)
{
	unsigned long long step = x->opt.interval * MODEL_NSEC_PER_SEC;
	unsigned long long next = now_ns() + step;	/* main() wrote once */

	while (!exiting) {
		struct pollfd pfd[2];
		int n = 0, ev = -1, timeout_ms = 1000;
		unsigned long long now;

		if (x->opt.textfile) {
			now = now_ns();
			if (now >= next) {
				textfile_tick(x);
				next += step;
				if (next <= now)
					next = now + step;
				continue;
			}
			if ((next - now) / 1000000 < (unsigned long long)timeout_ms)
				timeout_ms = (next - now + 999999) / 1000000;
		}
		if (x->attached) {
			ev = n;
			pfd[n++] = (struct pollfd){ klp_source_events_fd(&x->klp), POLLIN, 0 };
		}
		if (x->http) {
			pfd[n++] = (struct pollfd){ ex_http_fd(x->http), POLLIN, 0 };
			timeout_ms = ex_http_timeout_ms(x->http, timeout_ms);
		}
		if (poll(pfd, n, timeout_ms) < 0 && errno != EINTR) {
			fprintf(stderr, "%s: poll: %s\n",
				program_invocation_short_name, strerror(errno));
			return -errno;
		}
		/* the ring buffer drained as events come: none is lost waiting */
		if (ev >= 0 && pfd[ev].revents && klp_source_consume(&x->klp))
			x->totals.errors++;
		if (x->http)
			ex_http_run(x->http);
		core_try(x);
		watch_builtin(x);
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = sig_handler };
	struct klp_exporter *x;
	int err = 0;

	x = xrealloc(NULL, 1, sizeof(*x));
	memset(x, 0, sizeof(*x));
	ex_options_parse(&x->opt, argc, argv);
	x->self.version = x->opt.version;
	x->self.revision = x->opt.revision;
	x->self.textfile = x->opt.textfile;
	x->self.interval = x->opt.interval;
	x->libbpf_print = libbpf_set_print(NULL);
	if (x->opt.verbose)
		x->libbpf_print = klp_bpf_print_all;
	libbpf_set_print(x->libbpf_print);
	signal(SIGPIPE, SIG_IGN);

	/*
	 * The core present but no way in (not root, no BTF): say it and
	 * stop, rather than serve klp_up 0 for a host that has the core.
	 */
	core_try(x);
	if (!x->up && x->last_err && access(KLP_SYSFS_ROOT, F_OK) == 0) {
		err = x->last_err;
		goto out;
	}
	/* the builtin's probes attached now, not in the first request */
	update(x);
	if (x->opt.once) {
		render(x, x->opt.once_format, &x->text, false);
		err = sb_write_all(STDOUT_FILENO, x->text.s ? x->text.s : "",
				   x->text.len);
		goto out;
	}
	/* a textfile that cannot be written is a bad -t: said, exit 1 */
	if (x->opt.textfile) {
		err = write_textfile(x);
		if (err) {
			fprintf(stderr, "%s: cannot write %s: %s\n",
				program_invocation_short_name, x->opt.textfile,
				strerror(-err));
			goto out;
		}
	}
	if (x->opt.http) {
		x->http = ex_http_start(&x->opt.listen, scrape, x);
		if (!x->http) {
			err = -EADDRNOTAVAIL;
			goto out;
		}
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	say_started(x);
	err = run(x);
	if (!err && x->opt.textfile)	/* a clean stop: SIGTERM, SIGINT */
		remove_textfile(x);
out:
	ex_http_stop(x->http);
	detach(x);
	lp_source_close(&x->lp);
	model_free(&x->model);
	ex_totals_free(&x->totals);
	sb_free(&x->text);
	free(x);
	return err ? 1 : 0;
}
