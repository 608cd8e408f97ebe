/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * klp-exporter.h - klp-exporter's rooms and the state they pass around
 *
 * klp-exporter serves the klp core's state and counters as Prometheus
 * metrics (doc/metrics.md is the contract).  It shows the model
 * (model.h) that both cores' sources fill (source_klp.h,
 * source_livepatch.h), as klptop does.  Its own rooms:
 *
 *   klp-exporter_metrics.c  the metrics text of one scrape: klp_up, the
 *                           patches' and functions' gauges, and the rest
 *                           in order
 *   klp-exporter_transitions.c  the transitions in progress as gauges
 *   klp-exporter_counters.c the totals that only grow (kept by label set,
 *                           so a func that goes and comes back, or a core
 *                           that is reloaded, never sends a counter back;
 *                           dropped when their subject has been gone
 *                           EX_GONE_NS)
 *   klp-exporter_text.c     the text's pieces, in both formats: HELP and
 *                           TYPE, label sets, values
 *   klp-exporter_http.c     the HTTP endpoint (libmicrohttpd): GET /metrics
 *   klp-exporter_textfile.c the textfile for node_exporter, replaced whole
 *   klp-exporter_self.c     the exporter's own metrics: build, process
 *                           (as client_golang names them; over HTTP
 *                           only), the textfile's last write
 *   klp-exporter_options.c  the command line, checked whole
 *   klp-exporter.c          the core coming and going, the loop
 */
#ifndef _KLP_EXPORTER_H
#define _KLP_EXPORTER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/types.h>
#include "model.h"
#include "strbuf.h"

#define EX_DEFAULT_LISTEN	"127.0.0.1:9873"

/* The exposition formats: what Prometheus asks for, what files hold. */
enum ex_format {
	EX_OPENMETRICS,		/* application/openmetrics-text 1.0.0 */
	EX_TEXT,		/* text/plain 0.0.4: node_exporter's textfiles */
};

/* Where the HTTP endpoint listens (-l), parsed. */
struct ex_listen {
	const char *text;		/* as given */
	struct sockaddr_storage addr;
	socklen_t addr_len;
	bool dual;			/* IPv6's any: IPv4 too */
};

struct ex_options {
	bool http;			/* the HTTP endpoint, on listen */
	struct ex_listen listen;
	const char *textfile;		/* NULL: none */
	int interval;			/* seconds between textfile writes */
	bool once;
	enum ex_format once_format;
	bool calls;			/* the calls collector (default) */
	bool verbose;
	unsigned int given;		/* which options were */
	const char *version, *revision;	/* what was built (build/version.h) */
};

void ex_options_parse(struct ex_options *o, int argc, char **argv);

/*
 * A counter family: one value per label set, kept in a search tree
 * (tsearch) by its rendered labels, e.g. object="vmlinux",function="f".
 */
struct ex_family {
	void *root;
};

struct ex_totals {
	struct ex_family redirects;	  /* object, function, patch */
	struct ex_family winner_changes;  /* object, function */
	struct ex_family transitions;	  /* patch, event */
	struct ex_family enable_failures; /* patch */
	unsigned long long unattributed;  /* redirects to ids nobody named */
	/* by core (enum model_core), over every attachment */
	unsigned long long lost_events[MODEL_NR_CORES];
	unsigned long long lost_hits[MODEL_NR_CORES];
	unsigned long long errors;	  /* updates that could not read */
	unsigned long long attaches;	  /* times the core was found */
	unsigned long long lp_reads;	  /* the builtin's state read whole */
	unsigned long long probe_failures; /* the builtin's probes that failed */
};

/* What one update made of the core, for the render. */
struct ex_view {
	bool up;			/* the klp core attached, its part current */
	bool no_calls;			/* --no-collector.calls: calls not counted */
	const struct model *model;
	const struct ex_totals *totals;
};

/* --- the totals that only grow (klp-exporter_counters.c) ------------------ */

void ex_count_event(struct ex_totals *t, const struct model *m,
		    const struct klp_transition_event *e);
void ex_count_redirects(struct ex_totals *t, struct model *m,
			unsigned long long unattributed);
/* A function's winner: its top func's id (0 for none or a builtin's) and patch */
struct ex_winner {
	char object[KLP_NAME_LEN];
	char name[KLP_FUNC_LEN];
	char patch[KLP_NAME_LEN];	/* "" for none */
	unsigned int id;
	enum model_core core;
};

size_t ex_winners_save(const struct model *m, struct ex_winner **w);
void ex_count_winner_changes(struct ex_totals *t, const struct model *m,
			     struct ex_winner *before, size_t nr);
void ex_family_render(struct strbuf *b, enum ex_format fmt, const char *name,
		      const char *help, const struct ex_family *f);
void ex_totals_prune(struct ex_totals *t, struct model *m,
		     unsigned long long now);
void ex_totals_free(struct ex_totals *t);

/* --- the text (klp-exporter_metrics.c, _transitions.c, _text.c) ----------- */

void ex_render(struct strbuf *b, enum ex_format fmt, const struct ex_view *v);
void ex_render_transitions(struct strbuf *b, enum ex_format fmt,
			   const struct model *m);
void ex_header(struct strbuf *b, enum ex_format fmt, const char *name,
	       const char *type, const char *help);
void ex_put_labels(struct strbuf *b, ...);
void ex_put_value(struct strbuf *b, unsigned long long v);
void ex_scalar(struct strbuf *b, enum ex_format fmt, const char *name,
	       const char *type, const char *help, unsigned long long value);

/* --- the exporter's own metrics (klp-exporter_self.c) --------------------- */

/* The build, and the textfile, as the exporter's own metrics tell them. */
struct ex_self {
	const char *version;		/* KLP_VERSION (dkms.conf's) */
	const char *revision;		/* the git revision built, or unknown */
	const char *textfile;		/* NULL: none */
	int interval;			/* seconds between writes */
	unsigned long long written_ns;	/* CLOCK_REALTIME of the last; 0: none */
};

void ex_render_self(struct strbuf *b, enum ex_format fmt,
		    const struct ex_self *s, bool process);
const char *ex_version(void);

/* --- the HTTP endpoint (klp-exporter_http.c) ----------------------------- */

struct ex_http;

/* Fills b with the metrics in fmt for one scrape. */
typedef void (*ex_scrape_fn)(void *ctx, enum ex_format fmt, struct strbuf *b);

struct ex_http *ex_http_start(const struct ex_listen *l, ex_scrape_fn scrape,
			      void *ctx);
const char *ex_http_where(const struct ex_http *h);
int ex_http_fd(const struct ex_http *h);
int ex_http_timeout_ms(const struct ex_http *h, int max_ms);
void ex_http_run(struct ex_http *h);
void ex_http_stop(struct ex_http *h);

/* --- the textfile (klp-exporter_textfile.c) ------------------------------- */

/* A file as the exporter wrote it: the one it may remove. */
struct ex_file_id {
	dev_t dev;
	ino_t ino;			/* 0: none written */
};

int ex_textfile_write(const char *path, const char *s, size_t len,
		      struct ex_file_id *id);
int ex_textfile_remove(const char *path, const struct ex_file_id *id);

#endif /* _KLP_EXPORTER_H */
