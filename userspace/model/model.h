/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * klptop.h - klptop's rooms and the state they pass around
 *
 * The BPF side shares only what include/klp/uapi.h declares (the hit key,
 * the transition event).  Here is klptop's own picture of the core, one
 * room per idea:
 *
 *   model.c     patches, patched functions and their func_stacks,
 *                      loaded from the core's state file (debugfs klp/state)
 *   source_klp_events.c    the event applier: a transition event from the ring
 *                      buffer moves the model and becomes a line of the log
 *   source_klp_counters.c  the per-CPU redirection counters, read as deltas
 *   source_klp_attach.c    the BPF programs attached, their ring buffer
 *   klptop_screen.c    which rows and transitions to show; the screen,
 *                      built as a frame of lines in parts
 *   klptop_tty.c       the terminal: its keys, its size (SIGWINCH), and a
 *                      frame fitted to it and written in one go
 *   klptop_keys.c      what each key does to the view, and its help
 *   klptop_json.c      the same as one JSON object per interval
 *   klptop.c           options, the BPF programs, the refresh loop
 *
 * Out of memory, klptop says so and exits (kt_realloc()): a model missing
 * a func would show a wrong winner, and there is nothing to give back.
 * klp-exporter (klp-exporter.h) is built on the model, event, counter
 * and attach rooms too; messages name the program that prints them.
 */
#ifndef _KLPTOP_H
#define _KLPTOP_H

#include <errno.h>		/* program_invocation_short_name */
#include <stdarg.h>
#include <stdbool.h>
#include <signal.h>
#include <stddef.h>
#include <klp/uapi.h>
#include "alloc.h"
#include "event_log.h"
#include "transition.h"

struct termios;

#define KT_FOOTER_LINES		6	/* transitions in the screen's footer */
#define KT_NSEC_PER_SEC		1000000000ULL

enum kt_sort {
	KT_SORT_RATE,		/* hits/s in the last interval, highest first */
	KT_SORT_TOTAL,		/* hits since start, highest first */
	KT_SORT_NAME,		/* object, then function */
	KT_SORT_DEPTH,		/* func_stack depth, deepest first */
	KT_NR_SORTS,
};

extern const char *const kt_sort_names[KT_NR_SORTS];

/* --- the model (model.c) ------------------------------------------ */

/*
 * The live patching core a patch runs on: each one is a source that feeds
 * the model (klp: its events and state file; the kernel's builtin
 * livepatch: userspace/source_livepatch.h).
 */
enum kt_core {
	KT_CORE_KLP,
	KT_CORE_LIVEPATCH,
	KT_NR_CORES,
};

extern const char *const kt_core_names[KT_NR_CORES];

struct kt_patch {
	char name[KLP_NAME_LEN];
	enum kt_core core;
	bool enabled;
	bool seen;		/* found by the current resync */
	/* from the state file only: "" or 0 until a resync saw them */
	char srcversion[KLP_NAME_LEN];
	char cve[KLP_CVE_MAX_LEN + 1];
	unsigned long long enabled_ns;	/* CLOCK_REALTIME; 0 while disabled */
	char replaced_by[KLP_NAME_LEN];	/* the replace patch that disabled it */
	char *json_name;	/* klptop --json: the name as a JSON string */
};

struct kt_fn;

/* One klp_func: one patch's replacement of one function. */
struct kt_func {
	unsigned int id;
	struct kt_patch *patch;
	struct kt_fn *fn;
	unsigned long long hits_interval;
	unsigned long long hits_total;
	bool seen;
	signed char obj_patched;	/* builtin: its object's sysfs "patched"
					 * (-1: no such file, before 6.0) */
	void *priv;		/* the tool's own (klp-exporter: its counter) */
	char *json_head;	/* klptop --json: its unchanging start */
};

/* One patched function: its func_stack (winner first) and its counts. */
struct kt_fn {
	char object[KLP_NAME_LEN];
	char name[KLP_FUNC_LEN];
	unsigned long long old_addr;
	struct kt_func **stack;		/* winner first */
	unsigned int depth;
	struct kt_func **funcs;		/* every known func of this function */
	unsigned int nr_funcs;
	unsigned int cap;		/* of stack and of funcs */
	unsigned long long hits_interval;
	unsigned long long hits_total;
	double rate;
	char *json_head;	/* klptop --json: the row's unchanging start */
	struct kt_fn *hnext;	/* next in its bucket of kt_model's fn_hash */
};

struct kt_model {
	struct kt_patch **patches;
	size_t nr_patches;
	struct kt_fn **fns;
	size_t nr_fns;
	/* fns by object and name, for kt_fn_find(): a power of 2 buckets */
	struct kt_fn **fn_hash;
	size_t fn_hash_size;
	struct kt_func *by_id[KLP_MAX_HIT_KEYS];
	const char *state_path;		/* NULL: KLP_STATE_PATH */
	unsigned long long snap_seq;	/* events up to it are in the model */
	bool need_resync;		/* only the state file can tell now */
	bool quiet;			/* a failed resync says nothing */
	struct kt_trset trs;		/* transitions in progress (transition.h) */
	/* funcs freed so far: a pointer to a func kept since may be stale */
	unsigned long long funcs_freed;
};

struct kt_patch *kt_patch_find(struct kt_model *m, const char *name,
			       bool create);
void kt_patch_free(struct kt_model *m, struct kt_patch *p);
struct kt_fn *kt_fn_find(struct kt_model *m, const char *object,
			 const char *name, bool create);
struct kt_func *kt_func_bind(struct kt_model *m, struct kt_patch *p,
			     struct kt_fn *fn, unsigned int id);
int kt_stack_index(const struct kt_fn *fn, const struct kt_func *f);
void kt_stack_push(struct kt_fn *fn, struct kt_func *f);
void kt_stack_remove(struct kt_fn *fn, struct kt_func *f);
int kt_model_resync(struct kt_model *m);
void kt_model_unsee(struct kt_model *m, enum kt_core core);
void kt_model_sweep(struct kt_model *m, enum kt_core core);
void kt_stack_append(struct kt_fn *fn, struct kt_func *f);
enum kt_core kt_fn_core(const struct kt_fn *fn);
void kt_model_count(const struct kt_model *m, unsigned int *enabled,
		    unsigned int *disabled, unsigned int *patched_fns);
unsigned int kt_model_replaced(const struct kt_model *m);
void kt_model_free(struct kt_model *m);

/* --- the event applier (source_klp_events.c) --------------------------------- */

void kt_event_apply(struct kt_model *m, struct kt_log *log,
		    const struct klp_transition_event *e);

/* --- the counters (source_klp_counters.c) ------------------------------------ */

struct kt_counters {
	const volatile unsigned long long *hits; /* the map, mapped: ncpus
						  * slices of KLP_MAX_HIT_KEYS */
	int ncpus;
	unsigned long long *now;	/* by id: this read's sums over CPUs */
	unsigned long long *last;	/* by id: the last read's */
	unsigned long long interval_unknown;	/* hits of ids we cannot name */
	bool unknown_tried[KLP_MAX_HIT_KEYS];
};

int kt_counters_init(struct kt_counters *c,
		     const volatile unsigned long long *hits, int ncpus);
int kt_counters_update(struct kt_counters *c, struct kt_model *m);
void kt_counters_free(struct kt_counters *c);

/* --- the BPF programs (source_klp_attach.c) ---------------------------------- */

struct klptop_bpf;
struct ring_buffer;
enum libbpf_print_level;

/* Called with each transition event; returns 0 (else consuming stops). */
typedef int (*kt_event_fn)(void *ctx, void *data, size_t size);

struct kt_bpf {
	struct klptop_bpf *skel;
	struct ring_buffer *rb;
	const volatile unsigned long long *hits; /* the hits map, mapped */
	size_t hits_len;
	int ncpus;			/* its slices */
};

int kt_bpf_check_environment(void);
int kt_bpf_attach(struct kt_bpf *b, kt_event_fn on_event, void *ctx);
int kt_bpf_consume(struct kt_bpf *b);
int kt_bpf_events_fd(const struct kt_bpf *b);
unsigned long long kt_bpf_lost_events(const struct kt_bpf *b);
unsigned long long kt_bpf_lost_hits(const struct kt_bpf *b);
void kt_bpf_detach(struct kt_bpf *b);
int kt_bpf_print_all(enum libbpf_print_level level, const char *format,
		     va_list args);

/* --- what is shown (klptop_screen.c, klptop_json.c) ---------------------- */

#define KT_SEARCH_LEN	64	/* the '/' filter's text, NUL included */

struct kt_view {
	bool noclear;			/* scroll: print only new transitions */
	bool nosummary;
	bool paused;
	int rows;			/* -r: at most this many rows */
	bool rows_given;		/* ... given: caps a terminal's rows too */
	enum kt_sort sort;
	const char *patch;		/* shell patterns, or NULL */
	const char *func;
	long long realtime_off_ns;	/* CLOCK_REALTIME - CLOCK_MONOTONIC */
	/* on a terminal (klptop_keys.c changes them) */
	char search[KT_SEARCH_LEN];	/* '/': rows of a patch or function
					 * containing it; "" for all */
	char edit[KT_SEARCH_LEN];	/* the search being typed */
	bool editing;			/* ... while it is */
	bool help;			/* the help instead of the rows */
	size_t scroll;			/* first row shown */
	size_t page;			/* rows the last frame had room for */
	size_t nr_rows;			/* rows the last frame could show */
	int term_rows, term_cols;	/* the terminal's size, 0: no terminal */
};

struct kt_totals {
	unsigned long long tick_ns;	/* CLOCK_MONOTONIC at the interval's end */
	double elapsed;			/* seconds in the interval */
	unsigned long long hits;
	double rate;
	unsigned long long lost_hits;
	unsigned long long lost_events;
};

/*
 * A screen as lines, in parts: the head (the time line and whatever
 * follows it), the title (the column header), the body (the rows, which
 * scroll) and the foot (the transitions).  A section of the screen is a
 * function that adds its lines to a part; the terminal fits the parts to
 * its size (klptop_tty.c).
 */
enum kt_part { KT_HEAD, KT_TITLE, KT_BODY, KT_FOOT, KT_NR_PARTS };

struct kt_lines {
	char **line;
	size_t n, cap;
};

struct kt_frame {
	struct kt_lines part[KT_NR_PARTS];
};

void kt_frame_add(struct kt_frame *f, enum kt_part part, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void kt_frame_free(struct kt_frame *f);

size_t kt_select_rows(const struct kt_view *v, const struct kt_model *m,
		      struct kt_fn ***rows);
bool kt_transition_matches(const struct kt_view *v,
			   const struct kt_transition *t);
void kt_fmt_hms(const struct kt_view *v, unsigned long long mono_ns,
		char *buf, size_t size);
void kt_build_screen(const struct kt_view *v, const struct kt_model *m,
		     struct kt_log *log, const struct kt_totals *tot,
		     struct kt_frame *f);
void kt_print_screen(struct kt_view *v, const struct kt_model *m,
		     struct kt_log *log, const struct kt_totals *tot);
struct strbuf;
void kt_print_json(const struct kt_view *v, const struct kt_model *m,
		   struct kt_log *log, const struct kt_totals *tot,
		   struct strbuf *out);

/* --- the terminal (klptop_tty.c) and its keys (klptop_keys.c) ------------ */

/* A key: a character as itself, or one of these. */
enum kt_key {
	KT_KEY_ESC = 0x1b,
	KT_KEY_UP = 0x100,
	KT_KEY_DOWN,
	KT_KEY_PGUP,
	KT_KEY_PGDN,
	KT_KEY_HOME,
	KT_KEY_END,
	KT_KEY_UNKNOWN,		/* an escape sequence we do not use */
};

/* What a key asks of the loop. */
enum kt_action { KT_ACT_NONE, KT_ACT_REDRAW, KT_ACT_QUIT };

struct kt_tty {
	bool keys;			/* stdin in raw mode: keys are read */
	sigset_t waitmask;		/* for ppoll(): SIGWINCH let in */
	int fd;				/* the screen: stdout */
};

int kt_tty_setup(struct kt_tty *t, bool screen);
void kt_tty_restore(void);
bool kt_tty_resized(void);
void kt_tty_size(const struct kt_tty *t, int *rows, int *cols);
size_t kt_keys_decode(const char *buf, size_t len, int *keys, size_t max);
size_t kt_tty_read_keys(const struct kt_tty *t, int *keys, size_t max);
struct strbuf;
void kt_tty_render(struct kt_view *v, const struct kt_frame *f,
		   struct strbuf *out);

enum kt_action kt_view_key(struct kt_view *v, int key);
enum kt_action kt_view_input(struct kt_view *v, const struct kt_tty *t,
			     bool screen);
void kt_help_lines(struct kt_frame *f);

#endif /* _KLPTOP_H */
